// Package startup sets the garbage collector for a short gno command before
// the rest of the program initialises.
//
// Go initialises packages in dependency order, and among those ready, in
// the order of their import paths, so this package (few imports, an early
// path) runs its init before those of gno's dependencies, whose package
// initialisation allocates about 3 MB (mcp-go's JSON-Schema validator
// alone 1.7 MB). With the default GOGC that triggers a collection before
// main starts and often a second during a search: about 300 page faults
// and a few milliseconds of a process that lives 30. A one-shot read
// command holds little live memory and exits soon, so for those the
// collector runs at GOGC=400 (a 16 MB minimum heap) instead. Long-running
// and writing commands (update, embed, watch, serve, mcp, daemon…) keep
// the default, and so does every command when GOGC is set.
//
// main imports this package blank, first; it has no API.
package startup

import (
	"os"
	"runtime/debug"
	"slices"
)

// GCPercent is the GOGC a short command runs with.
const GCPercent = 400

// shortCommands are one-shot reads: they print an answer and exit.
var shortCommands = []string{"search", "vsearch", "query", "get", "multi-get", "ls", "status",
	"tags", "changes", "links", "hubs", "orphans", "path", "related", "resolve", "ask", "help"}

// valueFlags are gno's global flags that take a value as the next word.
var valueFlags = []string{"--index", "--config"}

func init() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	if Short(os.Args[1:]) {
		debug.SetGCPercent(GCPercent)
	}
}

// Short reports whether a gno command line is a one-shot read command (or
// only --version/--help).
func Short(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case slices.Contains(valueFlags, a):
			i++
		case a == "--version" || a == "-h" || a == "--help":
			return true
		case len(a) > 0 && a[0] == '-':
		default:
			return slices.Contains(shortCommands, a)
		}
	}
	return false
}
