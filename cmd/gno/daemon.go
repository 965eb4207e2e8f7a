package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnosearch/gno/cmd/gno/internal/fastpath"
	"github.com/gnosearch/gno/pkgdocs"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/watch"
	"github.com/gnosearch/gno/server"
	"github.com/gnosearch/gno/server/daemon"
	"github.com/gnosearch/gno/server/daemon/wire"
	"github.com/gnosearch/gno/server/web"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newDaemonCmd) }

// daemonHooks add watched paths to the daemon, each from its own file of
// this package (as extraCommands add commands). Package docs are not one:
// pkgdocs polls its projects' fingerprints (watchPackages) beside the
// watcher, as gno watch and gno serve do.
var daemonHooks []func(a *app, e *retrieval.Engine) watch.Hook

// daemonFlags are `gno daemon`'s own flags.
type daemonFlags struct {
	addr, logFile          string
	enableWrite, listenAny bool
	share                  shareFlags
	debounce               time.Duration
	noEmbed, detach        bool
}

func newDaemonCmd(a *app) *cobra.Command {
	var f daemonFlags
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Keep the index in sync and warm, and answer the CLI, MCP and the web app from one process",
		Long: `Run one long-lived process for the index: it watches the collections and
syncs what changes (like gno watch), embeds the backlog, keeps the models
and the vector index loaded, serves MCP over streamable HTTP at /mcp and
the web app on one loopback port (like gno serve), and answers read
commands of the CLI (search, query, get, links…) over a local socket, so
they skip loading anything. Their output is the same either way; use
--no-daemon to run one in-process.

--detach starts it in the background (logs in the index folder: gno daemon
log). gno daemon install starts it at login. One daemon per index.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.detach {
				return detachDaemon(cmd.Context(), a)
			}
			return runDaemon(cmd.Context(), a, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:7777", "serve the web app and MCP (at /mcp) on `ADDR`")
	fl.BoolVar(&f.enableWrite, "enable-write", false, "allow writes from MCP, the web app and /api/ (as gno serve --enable-write)")
	fl.BoolVar(&f.listenAny, "listen-any", false, "share the index: any address, HTTPS and access tokens (see gno token)")
	addShareFlags(cmd, &f.share)
	fl.DurationVar(&f.debounce, "debounce", 500*time.Millisecond, "quiet time before a sync")
	fl.BoolVar(&f.noEmbed, "no-embed", false, "do not embed the backlog")
	fl.BoolVar(&f.detach, "detach", false, "run in the background, logging to the index folder")
	fl.StringVar(&f.logFile, "log-file", "", "append logs to `FILE` (default: stderr)")
	cmd.AddCommand(newDaemonStatusCmd(a), newDaemonStopCmd(a), newDaemonLogCmd(a), newDaemonInstallCmd(a), newDaemonUninstallCmd(a))
	return cmd
}

// runDaemon runs the daemon in this process until a signal or gno daemon
// stop.
func runDaemon(ctx context.Context, a *app, f daemonFlags) error {
	if err := f.share.check(f.listenAny); err != nil {
		return err
	}
	logger, closeLog, err := newMCPLogger(f.logFile, a.verbose)
	if err != nil {
		return err
	}
	defer closeLog()
	if f.logFile == "" {
		// In the foreground the log is the point: stderr, info and up.
		logger = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level(a.verbose)}))
	}
	e, err := a.engine(ctx)
	if err != nil {
		return err
	}
	o := web.Options{EnableWrite: f.enableWrite, ListenAny: f.listenAny, Logger: logger}
	scheme := "http"
	if f.listenAny {
		sh, err := startSharing(ctx, a, "gno daemon", f.addr, f.share, true, logger, f.logFile)
		if err != nil {
			return err
		}
		defer sh.close(context.WithoutCancel(ctx))
		o.TLS, o.Guard, scheme = sh.cert.Config, sh.guard.Wrap, "https"
	}
	srv := server.New(server.Options{
		Open:         func(context.Context) (*retrieval.Engine, error) { return e, nil },
		OpenPackages: a.servedPackageIndex,
		Version:      version,
		EnableWrite:  f.enableWrite || server.WriteEnabledByEnv(),
		Logger:       logger,
	})
	defer srv.Close()
	o.Backend = srv
	mcpH, stopMCP := srv.MCPHandler(f.listenAny)
	defer stopMCP(context.WithoutCancel(ctx))
	o.MCP = mcpH
	var hooks []watch.Hook
	for _, h := range daemonHooks {
		hooks = append(hooks, h(a, e))
	}
	go a.watchPackages(ctx, func(f string, args ...any) { logger.Info(fmt.Sprintf(f, args...)) })
	return daemon.Run(ctx, daemon.Options{
		Engine:   e,
		Version:  version,
		Debounce: f.debounce,
		NoEmbed:  f.noEmbed,
		Hooks:    hooks,
		HTTP: func(ctx context.Context, ready func(string)) error {
			return web.Serve(ctx, f.addr, o, ready)
		},
		Scheme:  scheme,
		CLI:     daemonCLI(e, a.servedPackageIndex),
		Log:     logger,
		LogFile: f.logFile,
		Ready: func(in daemon.Info) {
			fmt.Fprintf(a.stderr, "gno daemon: serving index %s at %s (MCP at %s%s), pid %d\n",
				in.Index, in.URL(), strings.TrimSuffix(in.URL(), "/"), server.EndpointPath, in.PID)
		},
	})
}

func level(verbose bool) slog.Level {
	if verbose {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// errHandBack stops a command the daemon must not answer, before it
// writes anything: the client runs it itself.
var errHandBack = errors.New("handed back to the client")

// daemonCLI runs a fast-path client's command line with the CLI's own
// code (executeOn), on the daemon's engine, writing to the client.
func daemonCLI(e *retrieval.Engine, pkgs func(context.Context) (*pkgdocs.Index, error)) daemon.CLIFunc {
	trees := newTreePool(e, pkgs)
	return func(ctx context.Context, req *wire.Request, out *daemon.Output) int {
		a, root := trees.get()
		a.stdout, a.stderr = out.Stdout(), out.Stderr()
		a.daemonUpdate = out.Update
		a.cwd = req.Cwd
		a.term = termInfo{stdout: req.StdoutTTY, stderr: req.StderrTTY, width: req.Width}
		var refusal string
		err := executeOn(ctx, a, root, req.Args, func(cmd *cobra.Command) error {
			if refusal = daemonMayAnswer(a, cmd, req); refusal != "" {
				return errHandBack
			}
			out.Accept()
			return nil
		})
		if errors.Is(err, errHandBack) && out.Refuse(refusal) {
			return 0
		}
		if err != nil {
			return report(a, err)
		}
		return 0
	}
}

// treePool keeps command trees built ahead of the next request: building
// one (pflag formats every flag's default) costs about half a
// millisecond, a good part of a search's time in the daemon. A tree is
// used once; the next is built after a request, so an idle daemon does
// nothing.
type treePool struct {
	e     *retrieval.Engine
	pkgs  func(context.Context) (*pkgdocs.Index, error)
	ready chan tree
}

// tree is an app and the command tree newRootCmd built on it.
type tree struct {
	a    *app
	root *cobra.Command
}

func newTreePool(e *retrieval.Engine, pkgs func(context.Context) (*pkgdocs.Index, error)) *treePool {
	p := &treePool{e: e, pkgs: pkgs, ready: make(chan tree, 2)}
	p.fill()
	return p
}

func (p *treePool) build() tree {
	a := &app{eng: p.e, sharedPkgs: p.pkgs}
	return tree{a, newRootCmd(a)}
}

// fill builds trees until the pool is full (a concurrent fill's extra
// tree is dropped).
func (p *treePool) fill() {
	for len(p.ready) < cap(p.ready) {
		select {
		case p.ready <- p.build():
		default:
			return
		}
	}
}

// get returns a fresh app and its tree, built now if none is ready, and
// starts building the next.
func (p *treePool) get() (*app, *cobra.Command) {
	defer func() { go p.fill() }()
	select {
	case t := <-p.ready:
		return t.a, t.root
	default:
		t := p.build()
		return t.a, t.root
	}
}

// daemonMayAnswer checks, once cobra has parsed the line, that it is a
// read command on the daemon's index as the client understood it; it
// returns why not.
func daemonMayAnswer(a *app, cmd *cobra.Command, req *wire.Request) string {
	top := cmd
	for top.HasParent() && top.Parent().HasParent() {
		top = top.Parent()
	}
	sub := ""
	if cmd != top {
		sub = cmd.Name()
	}
	if !fastpath.Answers(top.Name(), sub) || top == cmd.Root() {
		return "not a read command"
	}
	if top.Name() == "update" && (cmd.Flags().Changed("rebuild") || cmd.Flags().Changed("git-pull")) {
		return "update --rebuild and --git-pull run in the client"
	}
	if a.noDaemon {
		return "--no-daemon"
	}
	if a.readURL != "" {
		return "--read-url: this process reads from the replica it names"
	}
	index := req.Index
	if index == "" {
		index = "default"
	}
	cfg := a.configPath
	if cfg != "" {
		if !filepath.IsAbs(cfg) {
			cfg = filepath.Join(req.Cwd, cfg)
		}
		cfg = filepath.Clean(cfg)
	}
	if a.index != index || cfg != req.Config {
		return "the command line names another index or config"
	}
	return ""
}
