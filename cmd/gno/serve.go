package main

import (
	"fmt"

	"github.com/gnosearch/gno/server/web"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newServeCmd) }

// newServeCmd is `gno serve`: the local web app and REST API, which run
// the MCP tool handlers in-process.
func newServeCmd(a *app) *cobra.Command {
	var addr, logFile string
	var enableWrite, listenAny bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a local web app and REST API (default http://127.0.0.1:7777)",
		Long: `Serve a local web app over the index: search with the three modes and
filters, an explain view, documents with links and backlinks, answers with
citations (gno ask), index status and live sync/embed progress; and a REST
API under /api/ whose JSON is the MCP tools' structuredContent.

Loopback only unless --listen-any. Sync, embed and tag from the web app
and POST /api/sync|embed|tag need --enable-write.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, closeLog, err := newMCPLogger(logFile, a.verbose)
			if err != nil {
				return err
			}
			defer closeLog()
			srv, closeSrv := newServer(a, enableWrite, logger)
			defer closeSrv()
			go a.watchPackages(cmd.Context(), func(f string, args ...any) { logger.Info(fmt.Sprintf(f, args...)) })
			return web.Serve(cmd.Context(), addr, web.Options{Backend: srv, EnableWrite: enableWrite, ListenAny: listenAny, Logger: logger},
				func(bound string) {
					fmt.Fprintf(a.stderr, "gno serve: http://%s/\n", bound)
				})
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:7777", "listen on `ADDR`")
	f.BoolVar(&enableWrite, "enable-write", false, "allow sync, embed and tag from the web app and /api/")
	f.BoolVar(&listenAny, "listen-any", false, "allow a non-loopback address, Host and Origin")
	f.StringVar(&logFile, "log-file", "", "append logs to `FILE`")
	return cmd
}
