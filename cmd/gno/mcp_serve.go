package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/server"
)

// mcpFlags are `gno mcp`'s own flags.
type mcpFlags struct {
	enableWrite, listenAny bool
	httpAddr, logFile      string
	share                  shareFlags
}

// serveMCP runs the MCP server in this process until ctx ends or the
// client closes stdin. The index is opened on the first tool call, never
// at start-up, so initialize answers at once; stdout carries nothing but
// JSON-RPC (server.ProtectStdout moves fd 1 out of reach of stray writes).
func serveMCP(ctx context.Context, a *app, f mcpFlags) error {
	logger, closeLog, err := newMCPLogger(f.logFile, a.verbose)
	if err != nil {
		return err
	}
	defer closeLog()
	srv, closeSrv := newServer(a, f.enableWrite || server.WriteEnabledByEnv(), logger)
	defer closeSrv()
	if err := f.share.check(f.listenAny); err != nil {
		return err
	}
	if f.httpAddr != "" {
		o := server.HTTPOptions{ListenAny: f.listenAny}
		scheme, hint := "http", ""
		if f.listenAny {
			sh, err := startSharing(ctx, a, "gno mcp", f.httpAddr, f.share, false, logger, f.logFile)
			if err != nil {
				return err
			}
			defer sh.close(context.WithoutCancel(ctx))
			o.TLS, o.Guard, scheme = sh.cert.Config, sh.guard.Wrap, "https"
			hint = "gno mcp: " + remoteHint(sh.cert)
		}
		o.Ready = func(addr string) {
			fmt.Fprintf(a.stderr, "gno mcp: serving %s://%s%s\n", scheme, addr, server.EndpointPath)
			if hint != "" {
				fmt.Fprintln(a.stderr, strings.ReplaceAll(hint, "ADDR", shownAddr(addr)))
			}
		}
		return srv.ServeHTTP(ctx, f.httpAddr, o)
	}
	out, err := server.ProtectStdout()
	if err != nil {
		return err
	}
	defer out.Close()
	return srv.ServeStdio(ctx, os.Stdin, out)
}

// newServer builds the MCP server (which the web app shares) over the
// index, opened on the first call; the returned func closes both.
func newServer(a *app, enableWrite bool, logger *slog.Logger) (*server.Server, func()) {
	var mu sync.Mutex
	var eng *retrieval.Engine
	srv := server.New(server.Options{
		Open: func(ctx context.Context) (*retrieval.Engine, error) {
			mu.Lock()
			defer mu.Unlock()
			if eng == nil {
				e, err := retrieval.Open(ctx, retrieval.Options{Index: a.index, ConfigFile: a.configPath, ReadURL: a.readURL})
				if err != nil {
					return nil, err
				}
				eng = e
			}
			return eng, nil
		},
		OpenPackages: a.servedPackageIndex,
		Version:      version,
		EnableWrite:  enableWrite,
		Logger:       logger,
	})
	return srv, func() {
		srv.Close() // closes the package index it opened
		mu.Lock()
		if eng != nil {
			eng.Close()
		}
		mu.Unlock()
	}
}

// newMCPLogger logs to logFile, else to stderr when verbose, else nowhere:
// stdout is the protocol's.
func newMCPLogger(logFile string, verbose bool) (*slog.Logger, func(), error) {
	var w io.Writer = io.Discard
	closeFn := func() {}
	level := slog.LevelInfo
	switch {
	case logFile != "":
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("open log file: %w", err)
		}
		w, closeFn = f, func() { f.Close() }
		if verbose {
			level = slog.LevelDebug
		}
	case verbose:
		w = os.Stderr
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), closeFn, nil
}
