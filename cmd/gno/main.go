// Command gno is a local search engine for documents: BM25, vectors and
// reranking over folders of Markdown and text, for people and AI agents.
//
// The command owns flags, terminal output and exit codes; it must not
// search, write the index or the user's files itself (the engine and its
// parts do) nor build a request a second way (it fills the engine's
// request structs).
package main

import (
	// First: a read command answered by a running daemon exits from its
	// init, before the heavy packages initialise (see its doc).
	_ "github.com/gnosearch/gno/cmd/gno/internal/fastpath"
	// Next (by import path, fastpath < startup): it tunes the garbage
	// collector before the other packages initialise (see its doc).
	_ "github.com/gnosearch/gno/cmd/gno/internal/startup"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/gnosearch/gno/pkgdocs"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// app carries the global flags and the lazily opened engine.
type app struct {
	index      string
	configPath string
	json       bool
	verbose    bool
	noDaemon   bool
	// readURL sends the index's reads to a streaming replica (--read-url).
	readURL string
	stdout  io.Writer
	stderr  io.Writer
	// term describes the terminal behind stdout and stderr: this
	// process's, or a fast-path client's when the daemon runs the command.
	term    termInfo
	eng     *retrieval.Engine
	pkgMu   sync.Mutex // the MCP server and the package watcher share pkgs
	pkgs    *pkgdocs.Index
	pkgWarm sync.Once // servedPackageIndex warms pkgs once
	// sharedPkgs, in a daemon's per-command app, is the daemon's own
	// package index (warm, shared by every command; never closed here).
	sharedPkgs func(context.Context) (*pkgdocs.Index, error)
	// cwd is the folder relative paths on the command line name: this
	// process's, or a fast-path client's.
	cwd string
	// daemonUpdate, in a daemon's per-command app, runs `gno update` on
	// the daemon's writer from its watcher's changes.
	daemonUpdate func(context.Context, retrieval.UpdateOptions) (*retrieval.UpdateResult, error)
}

// termInfo is what the output code may know of the terminal.
type termInfo struct {
	stdout, stderr bool // each is a terminal
	width          int  // stdout's columns (0: not a terminal)
}

// detectTerm describes this process's stdout and stderr.
func detectTerm() termInfo {
	t := termInfo{stdout: term.IsTerminal(int(os.Stdout.Fd())), stderr: term.IsTerminal(int(os.Stderr.Fd()))}
	if t.stdout {
		t.width, _, _ = term.GetSize(int(os.Stdout.Fd()))
	}
	return t
}

// engine opens the index on first use.
func (a *app) engine(ctx context.Context) (*retrieval.Engine, error) {
	if a.eng != nil {
		return a.eng, nil
	}
	e, err := retrieval.Open(ctx, retrieval.Options{Index: a.index, ConfigFile: a.configPath, ReadURL: a.readURL})
	if err != nil {
		return nil, err
	}
	a.eng = e
	return e, nil
}

// printJSON writes v as indented JSON to stdout.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// tty reports whether stdout is a terminal (colour and progress only then).
func (a *app) tty() bool { return a.term.stdout }

// stderrTTY reports whether stderr is a terminal, where progress bars go.
func (a *app) stderrTTY() bool { return a.term.stderr && !a.json }

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:           "gno",
		Short:         "Local search for your documents: BM25, vectors and reranking, for people and AI agents",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.index, "index", "default", "index name")
	pf.StringVar(&a.configPath, "config", "", "config file (default: per index, under the XDG config dir or $GNO_HOME)")
	pf.BoolVar(&a.json, "json", false, "JSON output")
	pf.BoolVarP(&a.verbose, "verbose", "v", false, "log to stderr")
	pf.StringVar(&a.readURL, "read-url", "", "send the index's reads to a streaming replica of its Postgres store (postgres://...; also read_store: in the config, "+retrieval.StoreReadURLEnv+"); writes and the writer lock stay on the store")
	pf.BoolVar(&a.noDaemon, "no-daemon", false, "run a read command in this process even when a gno daemon serves the index")
	root.AddCommand(
		newInitCmd(a), newCollectionCmd(a), newContextCmd(a),
		newUpdateCmd(a), newIndexCmd(a), newEmbedCmd(a), newWatchCmd(a),
		newSearchCmd(a, "search"), newSearchCmd(a, "vsearch"), newSearchCmd(a, "query"),
		newGetCmd(a), newMultiGetCmd(a), newLsCmd(a), newStatusCmd(a), newCleanupCmd(a),
		newTagsCmd(a), newTagCmd(a), newChangesCmd(a),
	)
	for _, extra := range extraCommands {
		root.AddCommand(extra(a))
	}
	return root
}

// extraCommands are added by other files of this package (models, doctor,
// mcp), so each can be written on its own.
var extraCommands []func(*app) *cobra.Command

func main() {
	a := &app{stdout: os.Stdout, stderr: os.Stderr, term: detectTerm()}
	a.cwd, _ = os.Getwd()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := startProfile()
	heapOnSignal()
	err := execute(ctx, a, os.Args[1:], nil)
	stop()
	stopProfile()
	if a.eng != nil {
		a.eng.Close()
	}
	if a.pkgs != nil {
		a.pkgs.Close()
	}
	if err != nil {
		os.Exit(report(a, err))
	}
}

// execute runs one gno command line for a. It is the one way a command
// runs, in this process and in the daemon for a fast-path client (which
// passes pre, run after the flags are parsed and before the command), so
// the two cannot print differently.
func execute(ctx context.Context, a *app, args []string, pre func(*cobra.Command) error) error {
	return executeOn(ctx, a, newRootCmd(a), args, pre)
}

// executeOn is execute on root, a tree newRootCmd(a) built beforehand
// (the daemon keeps one ready: building one is a good part of a search).
func executeOn(ctx context.Context, a *app, root *cobra.Command, args []string, pre func(*cobra.Command) error) error {
	root.SetArgs(queryArgs(root, args))
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	if pre != nil {
		root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return pre(cmd) }
	}
	return root.ExecuteContext(ctx)
}

// report prints err and returns the exit code: 2 for bad input, 3 for not
// found, 4 for a held lock, 1 otherwise.
func report(a *app, err error) int {
	code := gnoerr.CodeOf(err)
	msg := gnoerr.Public(err)
	var ge *gnoerr.Error
	if a.json {
		enc := json.NewEncoder(a.stdout)
		enc.Encode(map[string]any{"error": map[string]string{"code": string(code), "message": msg}})
	}
	if errors.As(err, &ge) {
		fmt.Fprintf(a.stderr, "gno: %s (%s)\n", msg, code)
	} else {
		fmt.Fprintf(a.stderr, "gno: %s\n", msg)
	}
	if a.verbose && msg != err.Error() {
		fmt.Fprintf(a.stderr, "gno: detail: %v\n", err)
	}
	switch code {
	case gnoerr.InvalidInput, gnoerr.InvalidPath:
		return 2
	case gnoerr.NotFound, gnoerr.PathNotFound:
		return 3
	case gnoerr.Locked:
		return 4
	}
	return 1
}
