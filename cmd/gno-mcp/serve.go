package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/server"
	"github.com/gnosearch/gno/server/web"
	"github.com/spf13/cobra"
)

// newServeCmd is `gno serve` (run as `gno-mcp serve`): the web app and
// REST API. It lives in this binary because the REST API runs the MCP
// tool handlers, which link mcp-go.
func newServeCmd() *cobra.Command {
	var index, configPath, addr, logFile string
	var verbose, enableWrite, listenAny, jsonOut bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the web app and REST API (run it as `gno serve`)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, closeLog, err := newLogger(logFile, verbose)
			if err != nil {
				return err
			}
			defer closeLog()
			var mu sync.Mutex
			var eng *retrieval.Engine
			srv := server.New(server.Options{
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
				EnableWrite: enableWrite,
				Logger:      logger,
			})
			defer func() {
				srv.Close()
				if eng != nil {
					eng.Close()
				}
			}()
			return web.Serve(cmd.Context(), addr, web.Options{Server: srv, EnableWrite: enableWrite, ListenAny: listenAny, Logger: logger},
				func(bound string) {
					fmt.Fprintf(os.Stderr, "gno serve: http://%s/\n", bound)
				})
		},
	}
	f := cmd.Flags()
	f.StringVar(&index, "index", "default", "index name")
	f.StringVar(&configPath, "config", "", "config file")
	f.BoolVar(&jsonOut, "json", false, "ignored")
	f.BoolVarP(&verbose, "verbose", "v", false, "log to stderr")
	f.StringVar(&addr, "addr", "127.0.0.1:7777", "listen on `ADDR`")
	f.BoolVar(&enableWrite, "enable-write", false, "allow sync, embed and tag from the web app and /api/")
	f.BoolVar(&listenAny, "listen-any", false, "allow a non-loopback address, Host and Origin")
	f.StringVar(&logFile, "log-file", "", "append logs to `FILE`")
	return cmd
}
