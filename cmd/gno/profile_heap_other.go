//go:build !unix

package main

// heapOnSignal is unix-only (SIGUSR1).
func heapOnSignal() {}
