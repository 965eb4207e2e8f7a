package install

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// Target is an MCP client.
type Target string

// The supported clients.
const (
	ClaudeDesktop Target = "claude-desktop"
	ClaudeCode    Target = "claude-code"
	Codex         Target = "codex"
	Cursor        Target = "cursor"
	VSCode        Target = "vscode"
	OpenCode      Target = "opencode"
	GeminiCLI     Target = "gemini-cli"
	Zed           Target = "zed"
	Windsurf      Target = "windsurf"
)

// Scope is where a client config lives: the user's, or the project's
// (the current folder).
type Scope string

// The scopes.
const (
	User    Scope = "user"
	Project Scope = "project"
)

// ServerName is gno's key among a client's servers.
const ServerName = "gno"

// Env is what config locations depend on, so tests need not touch the
// real home folder.
type Env struct {
	GOOS          string
	Home          string
	CWD           string
	AppData       string // Windows %APPDATA%
	XDGConfigHome string
	CodexHome     string // $CODEX_HOME
}

// FromOS reads an Env from this process: GOOS, the home and current
// folders and the variables clients honour.
func FromOS(goos string) (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return Env{}, err
	}
	return Env{GOOS: goos, Home: home, CWD: cwd, AppData: os.Getenv("APPDATA"),
		XDGConfigHome: os.Getenv("XDG_CONFIG_HOME"), CodexHome: os.Getenv("CODEX_HOME")}, nil
}

// appData is %APPDATA% on Windows, defaulting under the home folder.
func (e Env) appData() string {
	if e.AppData != "" {
		return e.AppData
	}
	return filepath.Join(e.Home, "AppData", "Roaming")
}

// XDGConfigDir is $XDG_CONFIG_HOME when absolute (the spec ignores a
// relative one), else ~/.config.
func (e Env) XDGConfigDir() string {
	if e.XDGConfigHome != "" && isAbs(e.XDGConfigHome) {
		return e.XDGConfigHome
	}
	return filepath.Join(e.Home, ".config")
}

// isAbs accepts Windows paths too, so tests of the Windows layout run on
// any OS.
func isAbs(p string) bool {
	return filepath.IsAbs(p) || strings.HasPrefix(p, `\\`) || (len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/'))
}

// electronUserDir is where an Electron app named app keeps its user
// data: Claude Desktop and VS Code.
func (e Env) electronUserDir(app string) string {
	switch e.GOOS {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support", app)
	case "windows":
		return filepath.Join(e.appData(), app)
	default:
		return filepath.Join(e.XDGConfigDir(), app)
	}
}

// client is one row of the target table: where a client keeps its MCP
// servers and in which format.
type client struct {
	target Target
	name   string
	scopes []Scope
	format *format
	// paths returns the config file for a scope; when several names are
	// possible (opencode.json or opencode.jsonc) the first that exists
	// wins, else the first.
	paths func(e Env, s Scope) []string
}

// clients is the one table of targets. Sources for every path and format
// are in the package doc.
var clients = []client{
	{ClaudeDesktop, "Claude Desktop", []Scope{User}, mcpServersJSON, func(e Env, _ Scope) []string {
		return []string{filepath.Join(e.electronUserDir("Claude"), "claude_desktop_config.json")}
	}},
	{ClaudeCode, "Claude Code", []Scope{User, Project}, claudeCodeJSON, func(e Env, s Scope) []string {
		if s == Project {
			return []string{filepath.Join(e.CWD, ".mcp.json")}
		}
		return []string{filepath.Join(e.Home, ".claude.json")}
	}},
	{Codex, "Codex", []Scope{User, Project}, codexTOML, func(e Env, s Scope) []string {
		if s == Project {
			return []string{filepath.Join(e.CWD, ".codex", "config.toml")}
		}
		if e.CodexHome != "" && isAbs(e.CodexHome) {
			return []string{filepath.Join(e.CodexHome, "config.toml")}
		}
		return []string{filepath.Join(e.Home, ".codex", "config.toml")}
	}},
	{Cursor, "Cursor", []Scope{User, Project}, mcpServersJSONC, func(e Env, s Scope) []string {
		if s == Project {
			return []string{filepath.Join(e.CWD, ".cursor", "mcp.json")}
		}
		return []string{filepath.Join(e.Home, ".cursor", "mcp.json")}
	}},
	{VSCode, "VS Code", []Scope{User, Project}, vscodeJSONC, func(e Env, s Scope) []string {
		if s == Project {
			return []string{filepath.Join(e.CWD, ".vscode", "mcp.json")}
		}
		return []string{filepath.Join(e.electronUserDir("Code"), "User", "mcp.json")}
	}},
	{OpenCode, "OpenCode", []Scope{User, Project}, opencodeJSONC, func(e Env, s Scope) []string {
		dir := e.CWD
		if s == User {
			// OpenCode uses XDG folders on every OS (xdg-basedir).
			dir = filepath.Join(e.XDGConfigDir(), "opencode")
		}
		return []string{filepath.Join(dir, "opencode.json"), filepath.Join(dir, "opencode.jsonc")}
	}},
	{GeminiCLI, "Gemini CLI", []Scope{User, Project}, mcpServersJSONC, func(e Env, s Scope) []string {
		if s == Project {
			return []string{filepath.Join(e.CWD, ".gemini", "settings.json")}
		}
		return []string{filepath.Join(e.Home, ".gemini", "settings.json")}
	}},
	{Zed, "Zed", []Scope{User}, zedJSONC, func(e Env, _ Scope) []string {
		switch e.GOOS {
		case "windows":
			return []string{filepath.Join(e.appData(), "Zed", "settings.json")}
		case "darwin":
			return []string{filepath.Join(e.Home, ".config", "zed", "settings.json")}
		default:
			return []string{filepath.Join(e.XDGConfigDir(), "zed", "settings.json")}
		}
	}},
	{Windsurf, "Windsurf", []Scope{User}, mcpServersJSONC, func(e Env, _ Scope) []string {
		return []string{filepath.Join(e.Home, ".codeium", "windsurf", "mcp_config.json")}
	}},
}

// TargetScope is one (client, scope) pair.
type TargetScope struct {
	Target Target
	Scope  Scope
}

// Targets lists every (target, scope) pair, in display order.
var Targets = func() []TargetScope {
	var out []TargetScope
	for _, c := range clients {
		for _, s := range c.scopes {
			out = append(out, TargetScope{c.target, s})
		}
	}
	return out
}()

// TargetNames lists the target ids, in display order.
func TargetNames() []string {
	var out []string
	for _, c := range clients {
		out = append(out, string(c.target))
	}
	return out
}

// DisplayName is a target's name for people ("VS Code").
func DisplayName(t Target) string {
	if c := lookup(t); c != nil {
		return c.name
	}
	return string(t)
}

// Scopes lists the scopes a target supports.
func Scopes(t Target) []Scope {
	if c := lookup(t); c != nil {
		return c.scopes
	}
	return nil
}

func lookup(t Target) *client {
	for i := range clients {
		if clients[i].target == t {
			return &clients[i]
		}
	}
	return nil
}

// resolve finds a target's client and checks the scope.
func resolve(t Target, s Scope) (*client, error) {
	c := lookup(t)
	if c == nil {
		return nil, gnoerr.New(gnoerr.InvalidInput, "unknown target %q: use %s", t, strings.Join(TargetNames(), ", "))
	}
	if s != User && s != Project {
		return nil, gnoerr.New(gnoerr.InvalidInput, "unknown scope %q: use user or project", s)
	}
	for _, cs := range c.scopes {
		if cs == s {
			return c, nil
		}
	}
	return nil, gnoerr.New(gnoerr.InvalidInput, "%s has only the %s scope", t, c.scopes[0])
}

// ConfigPath returns the config file of target in scope.
func ConfigPath(env Env, t Target, s Scope) (string, error) {
	c, err := resolve(t, s)
	if err != nil {
		return "", err
	}
	return pick(c.paths(env, s)), nil
}

// pick returns the first candidate that exists, else the first.
func pick(cands []string) string {
	for _, p := range cands {
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
	return cands[0]
}
