package main

import (
	"os"
	"syscall"

	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newServeCmd) }

// newServeCmd is `gno serve`: the local web app and REST API. Like `gno
// mcp`, it runs in the gno-mcp binary (`gno-mcp serve`), which links the
// MCP tool handlers the REST API shares.
func newServeCmd(a *app) *cobra.Command {
	var addr, logFile string
	var enableWrite, listenAny bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a local web app and REST API (default http://127.0.0.1:7777)",
		Long: `Serve a local web app over the index: search with the three modes and
filters, an explain view, documents, answers with citations (gno ask),
index status and live sync/embed progress; and a REST API under /api/
whose JSON is the MCP tools' structuredContent.

Loopback only unless --listen-any. Sync, embed and tag from the web app
and POST /api/sync|embed|tag need --enable-write.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := findMCP()
			if err != nil {
				return err
			}
			args := []string{mcpBinary, "serve", "--index", a.index}
			if a.configPath != "" {
				args = append(args, "--config", a.configPath)
			}
			if a.verbose {
				args = append(args, "--verbose")
			}
			args = append(args, "--addr", addr)
			if enableWrite {
				args = append(args, "--enable-write")
			}
			if listenAny {
				args = append(args, "--listen-any")
			}
			if logFile != "" {
				args = append(args, "--log-file", logFile)
			}
			return syscall.Exec(path, args, os.Environ())
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:7777", "listen on `ADDR`")
	f.BoolVar(&enableWrite, "enable-write", false, "allow sync, embed and tag from the web app and /api/")
	f.BoolVar(&listenAny, "listen-any", false, "allow a non-loopback address, Host and Origin")
	f.StringVar(&logFile, "log-file", "", "append logs to `FILE`")
	return cmd
}
