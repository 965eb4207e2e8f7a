//go:build unix && !linux

package vector

// adviseRandom is Linux's read-ahead hint (advise_linux.go); elsewhere
// the kernel's default stands.
func adviseRandom([]byte) {}

// adviseUnneeded is Linux's (advise_linux.go); elsewhere the kernel
// reclaims the mapping's clean pages by itself.
func adviseUnneeded([]byte) {}
