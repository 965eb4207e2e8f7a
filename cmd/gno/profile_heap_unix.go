//go:build unix

package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
)

// heapOnSignal writes a heap profile of this process to $GNO_HEAPPROFILE
// each time it receives SIGUSR1 (after a collection that returns freed pages to
// the system, so the profile and the RSS show what is live): how the scale benchmark sees what a long-running daemon holds.
// Unset, nothing is installed; a profile that cannot be written is
// skipped, as startProfile's is.
func heapOnSignal() {
	path := os.Getenv("GNO_HEAPPROFILE")
	if path == "" {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for range ch {
			// A collection that also returns the freed pages: what is
			// left in RSS is what is live (and what is not Go's heap).
			debug.FreeOSMemory()
			f, err := os.Create(path)
			if err != nil {
				continue
			}
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
			// Beside it, the runtime's own account: what of the RSS is
			// Go's (heap, stacks, metadata) and what is not (SQLite's).
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			os.WriteFile(path+".txt", fmt.Appendf(nil, "HeapAlloc %d\nHeapInuse %d\nHeapIdle %d\nHeapReleased %d\nStackInuse %d\nSys %d\nNumGC %d\n",
				ms.HeapAlloc, ms.HeapInuse, ms.HeapIdle, ms.HeapReleased, ms.StackInuse, ms.Sys, ms.NumGC), 0o644)
		}
	}()
}
