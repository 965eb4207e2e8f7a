// Command gno-mcp is gno's MCP server; `gno mcp` runs it.
//
// It is a binary of its own because the MCP stack costs about 5 ms of
// package initialisation (mcp-go's JSON-schema tables) in every process
// that links it, a third of a `gno search`. Users never call it directly.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/server"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gno mcp: %v\n", err)
		os.Exit(1)
	}
}

func newCmd() *cobra.Command {
	var index, configPath, httpAddr, logFile string
	var verbose, enableWrite, listenAny, jsonOut bool
	cmd := &cobra.Command{
		Use:           "gno-mcp",
		Short:         "gno's MCP server (run it as `gno mcp`)",
		Version:       version,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, closeLog, err := newLogger(logFile, verbose)
			if err != nil {
				return err
			}
			defer closeLog()
			var mu sync.Mutex
			var eng *retrieval.Engine
			srv := server.New(server.Options{
				// The index is opened on the first tool call, never at
				// start-up: initialize must answer at once.
				Open: func(ctx context.Context) (*retrieval.Engine, error) {
					mu.Lock()
					defer mu.Unlock()
					if eng == nil {
						e, err := retrieval.Open(ctx, retrieval.Options{Index: index, ConfigFile: configPath})
						if err != nil {
							return nil, err
						}
						eng = e
					}
					return eng, nil
				},
				Version:     version,
				EnableWrite: enableWrite || server.WriteEnabledByEnv(),
				Logger:      logger,
			})
			defer func() {
				srv.Close()
				if eng != nil {
					eng.Close()
				}
			}()
			ctx := cmd.Context()
			if httpAddr != "" {
				return srv.ServeHTTP(ctx, httpAddr, server.HTTPOptions{ListenAny: listenAny, Ready: func(addr string) {
					fmt.Fprintf(os.Stderr, "gno mcp: serving http://%s%s\n", addr, server.EndpointPath)
				}})
			}
			out, err := server.ProtectStdout()
			if err != nil {
				return err
			}
			defer out.Close()
			return srv.ServeStdio(ctx, os.Stdin, out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&index, "index", "default", "index name")
	f.StringVar(&configPath, "config", "", "config file")
	f.BoolVar(&jsonOut, "json", false, "ignored (MCP speaks JSON-RPC)")
	f.BoolVarP(&verbose, "verbose", "v", false, "log to stderr")
	f.BoolVar(&enableWrite, "enable-write", false, "register the write tools (also GNO_MCP_ENABLE_WRITE=1)")
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8765) instead of stdio")
	f.BoolVar(&listenAny, "listen-any", false, "allow --http on a non-loopback address and cross-origin requests")
	f.StringVar(&logFile, "log-file", "", "append logs to `FILE` (stdout never carries logs)")
	cmd.AddCommand(newServeCmd())
	return cmd
}

// newLogger logs to logFile, else to stderr when verbose, else nowhere.
func newLogger(logFile string, verbose bool) (*slog.Logger, func(), error) {
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
