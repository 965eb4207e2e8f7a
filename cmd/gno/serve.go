package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/server/web"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newServeCmd) }

// newServeCmd is `gno serve`: the local web app and REST API, which run
// the MCP tool handlers in-process.
func newServeCmd(a *app) *cobra.Command {
	var addr, logFile string
	var enableWrite, listenAny bool
	var share shareFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a local web app and REST API (default http://127.0.0.1:7777)",
		Long: `Serve a local web app over the index: search with the three modes and
filters, an explain view, documents with links and backlinks, answers with
citations (gno ask), index status and live sync/embed progress; and a REST
API under /api/ whose JSON is the MCP tools' structuredContent.

Loopback only unless --listen-any. Sync, embed and tag from the web app
and POST /api/sync|embed|tag need --enable-write.

--listen-any shares the index with a team: HTTPS only (--tls-cert/--tls-key,
or a self-signed certificate whose fingerprint is printed), access tokens
from gno token create (REST and MCP at /mcp take "Authorization: Bearer",
the web app has a sign-in page); read tokens never write.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, closeLog, err := newMCPLogger(logFile, a.verbose)
			if err != nil {
				return err
			}
			defer closeLog()
			if err := share.check(listenAny); err != nil {
				return err
			}
			o := web.Options{EnableWrite: enableWrite, ListenAny: listenAny, Logger: logger}
			scheme, hint := "http", ""
			if listenAny {
				sh, err := startSharing(cmd.Context(), a, "gno serve", addr, share, true, logger, logFile)
				if err != nil {
					return err
				}
				defer sh.close(context.WithoutCancel(cmd.Context()))
				o.TLS, o.Guard, scheme = sh.cert.Config, sh.guard.Wrap, "https"
				hint = "gno serve: " + remoteHint(sh.cert)
			}
			srv, closeSrv := newServer(a, enableWrite, logger)
			defer closeSrv()
			go a.watchPackages(cmd.Context(), func(f string, args ...any) { logger.Info(fmt.Sprintf(f, args...)) })
			o.Backend = srv
			if listenAny {
				h, stop := srv.MCPHandler(true)
				defer stop(context.WithoutCancel(cmd.Context()))
				o.MCP = h
			}
			return web.Serve(cmd.Context(), addr, o, func(bound string) {
				fmt.Fprintf(a.stderr, "gno serve: %s://%s/\n", scheme, bound)
				if hint != "" {
					fmt.Fprintln(a.stderr, strings.ReplaceAll(hint, "ADDR", shownAddr(bound)))
				}
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:7777", "listen on `ADDR`")
	f.BoolVar(&enableWrite, "enable-write", false, "allow sync, embed and tag from the web app and /api/")
	f.BoolVar(&listenAny, "listen-any", false, "share the index: any address, HTTPS and access tokens (see gno token)")
	addShareFlags(cmd, &share)
	f.StringVar(&logFile, "log-file", "", "append logs to `FILE`")
	return cmd
}
