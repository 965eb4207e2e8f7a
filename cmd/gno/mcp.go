package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gnosearch/gno/server/install"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newMCPCmd) }

// newMCPCmd is `gno mcp`: serve the index to AI agents over MCP, and
// install gno into their clients' configs.
func newMCPCmd(a *app) *cobra.Command {
	var enableWrite, listenAny bool
	var httpAddr, logFile string
	var share shareFlags
	var rem remoteFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve gno to AI agents over MCP (stdio; streamable HTTP with --http)",
		Long: `Serve gno to AI agents over the Model Context Protocol.

By default gno speaks JSON-RPC on stdin/stdout, which is how MCP clients
(Claude Desktop, Claude Code, Codex, Cursor, VS Code, OpenCode, Gemini CLI,
Zed, Windsurf) start it; nothing but protocol messages is written to stdout.
"gno mcp install -t CLIENT" adds gno to a client's config. With --http
127.0.0.1:PORT it serves the streamable HTTP transport at /mcp instead, on
loopback only unless --listen-any, which shares it with HTTPS and access
tokens (see gno token and gno serve).

Write tools (capture, add/remove collection, sync, tag) are off unless
--enable-write or GNO_MCP_ENABLE_WRITE=1.

With --remote https://HOST:PORT it serves no index of its own: it bridges
stdio to a team server (gno serve --listen-any), for clients that cannot
send its access token themselves. The token comes from GNO_TOKEN (or
--token-env NAME, or --token-file FILE), never the command line; a
self-signed certificate is trusted by --fingerprint, the SHA-256
fingerprint the server printed. "gno mcp install -t CLIENT --remote URL"
writes this into a client's config.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := rem.check(); err != nil {
				return err
			}
			if rem.url != "" {
				return serveRemote(cmd.Context(), a, rem, mcpFlags{enableWrite: enableWrite, listenAny: listenAny, httpAddr: httpAddr, logFile: logFile, share: share})
			}
			return serveMCP(cmd.Context(), a, mcpFlags{enableWrite: enableWrite, listenAny: listenAny, httpAddr: httpAddr, logFile: logFile, share: share})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&enableWrite, "enable-write", false, "register the write tools (also GNO_MCP_ENABLE_WRITE=1)")
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8765) instead of stdio")
	f.BoolVar(&listenAny, "listen-any", false, "share --http: any address, HTTPS and access tokens (see gno token)")
	addShareFlags(cmd, &share)
	addRemoteFlags(cmd, &rem)
	f.StringVar(&logFile, "log-file", "", "append logs to `FILE` (stdout never carries logs)")
	cmd.AddCommand(newMCPInstallCmds(a)...)
	return cmd
}

// newMCPInstallCmds are `gno mcp install|uninstall|status`.
func newMCPInstallCmds(a *app) []*cobra.Command {
	var target, scope string
	var force, dryRun, enableWrite bool
	var rem remoteFlags
	inst := &cobra.Command{
		Use:   "install",
		Short: "Add gno to an MCP client's config (" + strings.Join(install.TargetNames(), ", ") + ")",
		Long: `Add gno to an MCP client's config, changing nothing else in the file
(comments and formatting are kept byte for byte; the old file is kept as
FILE.bak). A config gno cannot parse is refused, naming the line.

Clients and scopes:
` + targetTable() + `
With --remote URL (and --fingerprint, as gno serve --listen-any printed
it) the entry runs gno mcp --remote, a bridge to that team server; the
entry names the environment variable holding the access token (GNO_TOKEN,
or --token-env NAME) in the client's own syntax, never the token itself.
Claude Desktop cannot pass a variable: give it --token-file FILE.

Restart the client afterwards.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, err := installEnv()
			if err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find the gno binary: %w", err)
			}
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
			args, tokenEnv := mcpArgs(a, enableWrite), ""
			if rem.url != "" {
				if args, tokenEnv, err = rem.installArgs(a, enableWrite); err != nil {
					return err
				}
			} else if err := rem.check(); err != nil {
				return err
			}
			res, err := install.Install(env, install.Options{Target: install.Target(target), Scope: install.Scope(scope),
				Command: exe, Args: args, TokenEnv: tokenEnv, Force: force, DryRun: dryRun})
			if err != nil {
				return err
			}
			if err := printInstall(a, res); err != nil || a.json || tokenEnv == "" {
				return err
			}
			fmt.Fprintf(a.stdout, "    Token: %s\n", install.TokenEnvNote(res.Target, tokenEnv))
			return nil
		},
	}
	f := inst.Flags()
	f.StringVarP(&target, "target", "t", string(install.ClaudeDesktop), "client: "+strings.Join(install.TargetNames(), ", "))
	f.StringVarP(&scope, "scope", "s", string(install.User), "scope: user, or project (the current folder)")
	f.BoolVarP(&force, "force", "f", false, "replace an existing, different gno entry")
	f.BoolVar(&dryRun, "dry-run", false, "show what would change without writing")
	f.BoolVar(&enableWrite, "enable-write", false, "install with --enable-write (write tools on)")
	addRemoteFlags(inst, &rem)

	var uTarget, uScope string
	var uDry bool
	uninst := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove gno from an MCP client's config",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, err := installEnv()
			if err != nil {
				return err
			}
			res, err := install.Uninstall(env, install.Target(uTarget), install.Scope(uScope), uDry)
			if err != nil {
				return err
			}
			return printInstall(a, res)
		},
	}
	uf := uninst.Flags()
	uf.StringVarP(&uTarget, "target", "t", string(install.ClaudeDesktop), "client: "+strings.Join(install.TargetNames(), ", "))
	uf.StringVarP(&uScope, "scope", "s", string(install.User), "scope: user or project")
	uf.BoolVar(&uDry, "dry-run", false, "show what would change without writing")

	var sTarget, sScope string
	status := &cobra.Command{
		Use:   "status",
		Short: "Show whether gno is configured in each MCP client",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, err := installEnv()
			if err != nil {
				return err
			}
			st, err := install.Status(env, sTarget, sScope)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{"targets": st})
			}
			return printStatus(a, env, st)
		},
	}
	sf := status.Flags()
	sf.StringVarP(&sTarget, "target", "t", "all", "client, or all")
	sf.StringVarP(&sScope, "scope", "s", "all", "user, project or all")
	return []*cobra.Command{inst, uninst, status}
}

// mcpArgs are the arguments a client runs gno with: mcp, and the index
// and config this command was given.
func mcpArgs(a *app, enableWrite bool) []string {
	args := []string{"mcp"}
	if enableWrite {
		args = append(args, "--enable-write")
	}
	if a.index != "" && a.index != "default" {
		args = append(args, "--index", a.index)
	}
	if a.configPath != "" {
		if abs, err := filepath.Abs(a.configPath); err == nil {
			args = append(args, "--config", abs)
		}
	}
	return args
}

func installEnv() (install.Env, error) {
	env, err := install.FromOS(runtime.GOOS)
	if err != nil {
		return env, fmt.Errorf("find home and current folders: %w", err)
	}
	return env, nil
}

// targetTable lists the clients and their scopes for help text.
func targetTable() string {
	var b strings.Builder
	for _, t := range install.TargetNames() {
		var scopes []string
		for _, s := range install.Scopes(install.Target(t)) {
			scopes = append(scopes, string(s))
		}
		fmt.Fprintf(&b, "  %-15s %-15s %s\n", t, install.DisplayName(install.Target(t)), strings.Join(scopes, ", "))
	}
	return b.String()
}

func printInstall(a *app, res *install.Result) error {
	if a.json {
		return a.printJSON(res)
	}
	name := install.DisplayName(res.Target)
	prefix := ""
	if res.DryRun {
		prefix = "[dry run] would have "
	}
	switch res.Action {
	case "installed", "updated":
		fmt.Fprintf(a.stdout, "%s%s gno for %s (%s scope)\n    Command: %s\n    Config: %s\n", prefix, res.Action, name, res.Scope, res.Entry.Describe(), res.ConfigPath)
	case "unchanged":
		fmt.Fprintf(a.stdout, "gno is already configured for %s (%s scope) in %s\n", name, res.Scope, res.ConfigPath)
	case "uninstalled":
		fmt.Fprintf(a.stdout, "%suninstalled gno from %s (%s scope)\n    Config: %s\n", prefix, name, res.Scope, res.ConfigPath)
	case "not-installed":
		fmt.Fprintf(a.stdout, "gno is not configured for %s (%s scope) in %s\n", name, res.Scope, res.ConfigPath)
	}
	if res.Backup != "" {
		fmt.Fprintf(a.stdout, "    Backup: %s\n", res.Backup)
	}
	if res.Action == "installed" || res.Action == "updated" || res.Action == "uninstalled" {
		if !res.DryRun {
			fmt.Fprintf(a.stdout, "Restart %s to apply.\n", name)
		}
	}
	return nil
}

func printStatus(a *app, env install.Env, st []install.StatusEntry) error {
	w := a.stdout
	fmt.Fprintf(w, "MCP Server Status\n%s\n", strings.Repeat("─", 50))
	n := 0
	for _, s := range st {
		label := install.DisplayName(s.Target)
		if len(install.Scopes(s.Target)) > 1 {
			label += " (" + string(s.Scope) + ")"
		}
		cfg := s.ConfigPath
		if env.Home != "" && strings.HasPrefix(cfg, env.Home+string(filepath.Separator)) {
			cfg = "~" + cfg[len(env.Home):]
		}
		switch {
		case s.Error != "":
			fmt.Fprintf(w, "\n! %s: unreadable config\n    Error: %s\n", label, s.Error)
		case s.Configured:
			n++
			fmt.Fprintf(w, "\n✓ %s: configured\n    Command: %s\n    Args: %s\n", label, s.Entry.Command, strings.Join(s.Entry.Args, " "))
		default:
			fmt.Fprintf(w, "\n✗ %s: not configured\n", label)
		}
		fmt.Fprintf(w, "    Config: %s\n", cfg)
	}
	fmt.Fprintf(w, "\n%d/%d targets configured\n", n, len(st))
	return nil
}
