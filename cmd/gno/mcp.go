package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/server"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newMCPCmd) }

// newMCPCmd is `gno mcp`: serve the index to AI agents over MCP, and
// install gno into their clients' configs.
func newMCPCmd(a *app) *cobra.Command {
	var enableWrite, listenAny bool
	var httpAddr, logFile string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve gno to AI agents over MCP (stdio; streamable HTTP with --http)",
		Long: `Serve gno to AI agents over the Model Context Protocol.

By default gno speaks JSON-RPC on stdin/stdout, which is how MCP clients
(Claude Desktop, Claude Code, Codex) start it; nothing but protocol messages
is written to stdout. With --http 127.0.0.1:PORT it serves the streamable
HTTP transport at /mcp instead, on loopback only unless --listen-any.

Write tools (capture, add/remove collection, sync, tag) are off unless
--enable-write or GNO_MCP_ENABLE_WRITE=1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, closeLog, err := mcpLogger(a, logFile)
			if err != nil {
				return err
			}
			defer closeLog()
			var mu sync.Mutex
			srv := server.New(server.Options{
				Open: func(ctx context.Context) (*retrieval.Engine, error) {
					mu.Lock()
					defer mu.Unlock()
					return a.engine(ctx)
				},
				Version:     version,
				EnableWrite: enableWrite || server.WriteEnabledByEnv(),
				Logger:      logger,
			})
			defer srv.Close()
			ctx := cmd.Context()
			if httpAddr != "" {
				return srv.ServeHTTP(ctx, httpAddr, server.HTTPOptions{ListenAny: listenAny, Ready: func(addr string) {
					fmt.Fprintf(a.stderr, "gno mcp: serving http://%s%s\n", addr, server.EndpointPath)
				}})
			}
			out := a.stdout
			if a.stdout == os.Stdout {
				f, err := server.ProtectStdout()
				if err != nil {
					return err
				}
				defer f.Close()
				out = f
			}
			return srv.ServeStdio(ctx, os.Stdin, out)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&enableWrite, "enable-write", false, "register the write tools (also GNO_MCP_ENABLE_WRITE=1)")
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8765) instead of stdio")
	f.BoolVar(&listenAny, "listen-any", false, "allow --http on a non-loopback address and cross-origin requests")
	f.StringVar(&logFile, "log-file", "", "append logs to `FILE` (stdout never carries logs)")
	cmd.AddCommand(newMCPInstallCmds(a)...)
	return cmd
}

// mcpLogger logs to --log-file, else to stderr with -v, else nowhere.
func mcpLogger(a *app, logFile string) (*slog.Logger, func(), error) {
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
		if a.verbose {
			level = slog.LevelDebug
		}
	case a.verbose:
		w = a.stderr
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), closeFn, nil
}
