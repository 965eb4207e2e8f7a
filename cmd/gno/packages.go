package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gnosearch/gno/pkgdocs"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newPackagesCmd) }

// packageIndex opens the package-docs index on first use.
func (a *app) packageIndex(ctx context.Context) (*pkgdocs.Index, error) {
	if a.sharedPkgs != nil {
		return a.sharedPkgs(ctx)
	}
	a.pkgMu.Lock()
	defer a.pkgMu.Unlock()
	if a.pkgs != nil {
		return a.pkgs, nil
	}
	// GNO_PACKAGES_STDLIB=off leaves standard libraries out of every add,
	// the MCP server's and daemon's automatic ones included.
	noStd := strings.EqualFold(os.Getenv("GNO_PACKAGES_STDLIB"), "off")
	x, err := pkgdocs.Open(ctx, pkgdocs.Options{Index: a.index, ConfigFile: a.configPath, NoStdlib: noStd})
	if err != nil {
		return nil, err
	}
	a.pkgs = x
	return x, nil
}

// servedPackageIndex is packageIndex for a long-running server (gno mcp,
// the daemon): the first open also warms the index's models beside the
// call, so the searches after it find the embedder loaded and its query
// layout measured (onnx TuneQueries), as the daemon's worker does for the
// main index. A one-shot command does not pay for that.
func (a *app) servedPackageIndex(ctx context.Context) (*pkgdocs.Index, error) {
	x, err := a.packageIndex(ctx)
	if err == nil {
		a.pkgWarm.Do(func() { go x.Packages().Models().Warm(context.WithoutCancel(ctx)) })
	}
	return x, err
}

// abs makes a project folder from the command line absolute against the
// caller's folder (a daemon answering for a client has another).
func (a *app) abs(dir string) string {
	if filepath.IsAbs(dir) || a.cwd == "" {
		return dir
	}
	return filepath.Join(a.cwd, dir)
}

func newPackagesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "packages",
		Short: "Your dependencies' docs at the installed versions: README, docs, examples and API (Go, npm, Python, Rust, Swift)",
		Long: `gno packages indexes the docs of a project's dependencies at the exact versions it uses:
the README (filtered), docs/ and examples/ files, and the public API with signatures and doc comments,
one searchable unit per item. Docs of a version are stored once and shared by every project using it.
Units are gno://pkg/ECOSYSTEM/NAME@VERSION/UNIT; read one with gno get.`,
	}
	cmd.AddCommand(newPackagesAddCmd(a), newPackagesListCmd(a), newPackagesSearchCmd(a), newPackagesDescribeCmd(a), newPackagesDiffCmd(a), newPackagesRmCmd(a))
	return cmd
}

func newPackagesAddCmd(a *app) *cobra.Command {
	var opt pkgdocs.AddOptions
	var noEmbed, embedStd bool
	cmd := &cobra.Command{
		Use:   "add [DIR]",
		Short: "Index the dependencies of a project (default: the current folder); re-runs only what changed",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			x, err := a.packageIndex(ctx)
			if err != nil {
				return err
			}
			p := a.addProgress()
			opt.Progress = p.report
			res, err := x.Add(ctx, dir, opt)
			p.finish()
			if err != nil {
				return err
			}
			var emb *retrieval.EmbedResult
			var embErr error
			if !noEmbed {
				embed := x.Embed
				if embedStd {
					embed = x.EmbedStdlib
				}
				emb, embErr = embed(ctx, a.chunkBar("embedding package docs"))
				if embErr != nil && ctx.Err() != nil {
					return embErr
				}
			}
			if a.json {
				out := map[string]any{"add": res}
				if emb != nil {
					out["embed"] = emb
				}
				if embErr != nil {
					out["embedError"] = gnoerr.Public(embErr)
				}
				return a.printJSON(out)
			}
			printAdd(a, res)
			switch {
			case embErr != nil:
				fmt.Fprintf(a.stderr, "vectors not built (keyword search works): %v\n", embErr)
			case emb != nil:
				fmt.Fprintf(a.stdout, "vectors: %d chunks embedded with %s in %.1f s\n", emb.Embedded, emb.Model, emb.DurationMS/1000)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opt.All, "all", false, "transitive dependencies too (default: direct ones)")
	f.BoolVar(&opt.Offline, "offline", false, "fetch missing packages from the clients' local caches only")
	f.BoolVar(&opt.NoFetch, "no-fetch", false, "index only installed packages: never run go, npm, pip or cargo to fetch")
	f.BoolVar(&opt.Force, "force", false, "re-read the project and re-extract every version")
	f.StringSliceVar(&opt.Ecosystems, "ecosystem", nil, "only these ecosystems (go, npm, python, rust, swift)")
	f.BoolVar(&noEmbed, "no-embed", false, "skip vectors (BM25 search works without them)")
	f.BoolVar(&opt.NoStdlib, "no-stdlib", false, "leave out the standard libraries (Go, Python, Node's @types/node, Rust's rust-src; GNO_PACKAGES_STDLIB=off for every add)")
	f.BoolVar(&embedStd, "embed-stdlib", false, "embed the standard libraries too (minutes; by default they are searched by keywords only)")
	return cmd
}

func printAdd(a *app, res *pkgdocs.AddResult) {
	if res.Unchanged {
		fmt.Fprintf(a.stdout, "%s: unchanged, %d packages (%.0f ms)\n", res.Project, res.Packages, res.DurationMS)
	} else {
		fmt.Fprintf(a.stdout, "%s: %d packages (%d indexed, %d already stored), %d missing, %.0f ms\n",
			res.Project, res.Packages, len(res.Indexed), res.Reused, len(res.Missing), res.DurationMS)
	}
	for _, m := range res.Missing {
		fmt.Fprintf(a.stdout, "  missing %s %s %s: %s\n", m.Ecosystem, m.Name, m.Version, m.Reason)
	}
	if a.verbose {
		for _, w := range res.Warnings {
			fmt.Fprintf(a.stderr, "  warning: %s\n", w)
		}
	} else if n := len(res.Warnings); n > 0 {
		fmt.Fprintf(a.stderr, "  %d warnings (files left out or cut; -v lists them)\n", n)
	}
}

// addProgress shows an add's stages on a terminal: client runs as lines,
// extraction as a bar.
type addProgress struct {
	a   *app
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

func (a *app) addProgress() *addProgress { return &addProgress{a: a} }

func (p *addProgress) report(ev pkgdocs.Progress) {
	if !p.a.stderrTTY() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Stage {
	case "discover", "fetch":
		fmt.Fprintf(p.a.stderr, "%s %s\n", ev.Stage, ev.Line)
	case "index":
		if p.bar == nil {
			p.bar = progressbar.NewOptions(ev.Total, progressbar.OptionSetWriter(p.a.stderr), progressbar.OptionSetDescription("indexing packages"),
				progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
		}
		p.bar.Set(ev.Done)
	}
}

func (p *addProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
}

// chunkBar is an embedding progress callback drawing a bar on a
// terminal (nil elsewhere: quiet).
func (a *app) chunkBar(what string) func(done, total int) {
	if !a.stderrTTY() {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(a.stderr), progressbar.OptionSetDescription(what),
				progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("chunks"),
				progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
		}
		bar.Set(done)
		if done == total {
			bar.Finish()
		}
	}
}

func newPackagesListCmd(a *app) *cobra.Command {
	var project string
	var all bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List a project's indexed dependencies and those missing (default: the current folder)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			x, err := a.packageIndex(cmd.Context())
			if err != nil {
				return err
			}
			var dirs []string
			if !all {
				dirs = []string{a.abs(project)}
			}
			ps, err := x.List(cmd.Context(), dirs)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{"projects": ps})
			}
			fmt.Fprintln(a.stdout, pkgdocs.ListText(ps))
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", ".", "project folder")
	cmd.Flags().BoolVar(&all, "all-projects", false, "every indexed project")
	return cmd
}

func newPackagesSearchCmd(a *app) *cobra.Command {
	var req pkgdocs.SearchRequest
	var project string
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the docs of a project's dependencies (README, docs, examples, API items)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			x, err := a.packageIndex(cmd.Context())
			if err != nil {
				return err
			}
			req.Query = strings.Join(args, " ")
			req.Projects = []string{a.abs(project)}
			req.Auto = true
			res, err := x.Search(cmd.Context(), req)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			fmt.Fprintln(a.stdout, res.Text())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&project, "project", ".", "project folder")
	f.StringVar(&req.Package, "package", "", "only this package (name or short name)")
	f.StringVar(&req.Ecosystem, "ecosystem", "", "only this ecosystem (go, npm, python, rust, swift)")
	f.StringVar(&req.Path, "path", "", "the file being edited: without --ecosystem, its language narrows the search to that ecosystem")
	f.IntVarP(&req.Limit, "limit", "n", 10, "number of results")
	f.StringVar(&req.Mode, "mode", pkgdocs.DefaultMode, "search (BM25), fast (BM25 + vectors) or query (+ reranking)")
	f.BoolVar(&req.Explain, "explain", false, "per-stage scores and timings")
	return cmd
}

func newPackagesDescribeCmd(a *app) *cobra.Command {
	var req pkgdocs.DescribeRequest
	var project string
	cmd := &cobra.Command{
		Use:   "describe NAME",
		Short: "A package's summary, install and usage, and top-level API; with --symbol one item's signature, doc and examples",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Package, req.Projects, req.Auto = args[0], []string{a.abs(project)}, true
			return a.printPackageRead(cmd, func(x *pkgdocs.Index) (texter, error) { return x.Describe(cmd.Context(), req) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&project, "project", ".", "project folder")
	f.StringVar(&req.Ecosystem, "ecosystem", "", "the package's ecosystem, when a name is in several")
	f.StringVar(&req.Version, "version", "", "a version other than the project's")
	f.StringVar(&req.Symbol, "symbol", "", "one API item as written anywhere: Command.PersistentFlags, PersistentFlags, cobra.Command.PersistentFlags(), Command#PersistentFlags")
	return cmd
}

func newPackagesRmCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "rm [DIR]",
		Short: "Forget a project (its package versions go at the next `gno cleanup` unless another project uses them)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			x, err := a.packageIndex(cmd.Context())
			if err != nil {
				return err
			}
			ok, err := x.Remove(cmd.Context(), dir)
			if err != nil {
				return err
			}
			if !ok {
				return gnoerr.New(gnoerr.NotFound, "project %s was never added", dir)
			}
			return a.done(map[string]any{"removed": true, "project": dir}, "Removed %s; run `gno cleanup` to drop versions no other project uses", dir)
		},
	}
}

// get reads a document of the notes index, or a package unit for a
// gno://pkg/ URI.
func (a *app) get(ctx context.Context, req retrieval.GetRequest) (*retrieval.Document, error) {
	if ref.IsPackageURI(req.Ref) {
		x, err := a.packageIndex(ctx)
		if err != nil {
			return nil, err
		}
		return x.Packages().Get(ctx, req)
	}
	e, err := a.engine(ctx)
	if err != nil {
		return nil, err
	}
	return e.Get(ctx, req)
}

// watchPackages re-indexes, every pkgdocs.RefreshInterval, the added
// projects whose manifests or lockfiles changed (`gno watch`, `gno serve`).
func (a *app) watchPackages(ctx context.Context, logf func(format string, args ...any)) {
	x, err := a.packageIndex(ctx)
	if err != nil {
		logf("package docs not watched: %v", err)
		return
	}
	x.Watch(ctx, pkgdocs.RefreshInterval, func(res *pkgdocs.AddResult, err error) {
		if err != nil {
			logf("package docs: %v", err)
			return
		}
		logf("package docs: %s re-indexed: %d packages, %d new", res.Project, res.Packages, len(res.Indexed))
	})
}
