// Command gno is a local search engine for documents: BM25, vectors and
// reranking over folders of Markdown and text, for people and AI agents.
package main

import (
	// First: it tunes the garbage collector before the other packages
	// initialise (see its doc).
	_ "github.com/gnosearch/gno/cmd/gno/internal/startup"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

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
	stdout     io.Writer
	stderr     io.Writer
	eng        *retrieval.Engine
}

// engine opens the index on first use.
func (a *app) engine(ctx context.Context) (*retrieval.Engine, error) {
	if a.eng != nil {
		return a.eng, nil
	}
	e, err := retrieval.Open(ctx, retrieval.Options{Index: a.index, ConfigFile: a.configPath})
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
func (a *app) tty() bool {
	f, ok := a.stdout.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// stderrTTY reports whether stderr is a terminal, where progress bars go.
func (a *app) stderrTTY() bool {
	f, ok := a.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && !a.json
}

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
	a := &app{stdout: os.Stdout, stderr: os.Stderr}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	root := newRootCmd(a)
	root.SetArgs(queryArgs(root, os.Args[1:]))
	err := root.ExecuteContext(ctx)
	stop()
	if a.eng != nil {
		a.eng.Close()
	}
	if err != nil {
		os.Exit(report(a, err))
	}
}

// report prints err and returns the exit code: 2 for bad input, 3 for not
// found, 4 for a held lock, 1 otherwise.
func report(a *app, err error) int {
	code := gnoerr.CodeOf(err)
	var ge *gnoerr.Error
	if a.json {
		enc := json.NewEncoder(a.stdout)
		enc.Encode(map[string]any{"error": map[string]string{"code": string(code), "message": err.Error()}})
	}
	if errors.As(err, &ge) {
		fmt.Fprintf(a.stderr, "gno: %s (%s)\n", err, code)
	} else {
		fmt.Fprintf(a.stderr, "gno: %s\n", err)
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
