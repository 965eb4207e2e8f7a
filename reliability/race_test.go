//go:build race

package reliability

// raceEnabled builds the binaries under test with -race too.
const raceEnabled = true
