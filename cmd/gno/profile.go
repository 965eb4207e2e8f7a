package main

import (
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of this process to $GNO_CPUPROFILE when
// it is set: the scale benchmark (bench/cmd/gnoscale) uses it to see where a
// whole `gno update` or `gno search` spends its time. It returns the function
// that stops the profile; a profile that cannot start is skipped silently,
// since it is a developer's aid and must never fail a command.
func startProfile() func() {
	path := os.Getenv("GNO_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
