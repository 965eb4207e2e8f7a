// Package install adds gno to, removes it from, and reports it in the MCP
// configs of agent clients. It owns one table of targets (targets.go:
// client, scopes, config path per OS, format) and one editor per file
// syntax: JSON and JSONC through github.com/tailscale/hujson's exact
// syntax tree (jsonedit.go), TOML through github.com/pelletier/go-toml's
// parser positions (tomledit.go). Only gno's own entry is written: every
// other byte of a user's file, comments, trailing commas and layout
// included, comes back as it was, and uninstall after install gives back
// the original file. A file that cannot be parsed is refused with its
// line and column, and nothing is written. Writes are atomic (temp file
// and rename, through a symlinked config to its target) and leave the
// previous file as FILE.bak.
//
// Clients, where they read MCP servers, and the shape of gno's entry
// (~ is the home folder, %APPDATA% Windows' roaming folder, $XDG the
// absolute $XDG_CONFIG_HOME or ~/.config):
//
//	claude-desktop  user     macOS ~/Library/Application Support/Claude/claude_desktop_config.json,
//	                         Windows %APPDATA%\Claude\..., Linux $XDG/Claude/...   {"mcpServers": {"gno": {command, args}}}, strict JSON
//	claude-code     user     ~/.claude.json; project: ./.mcp.json                 {"mcpServers": {"gno": {"type": "stdio", command, args}}}, strict JSON
//	codex           user     $CODEX_HOME/config.toml or ~/.codex/config.toml;
//	                project  ./.codex/config.toml (read for trusted projects)     [mcp_servers.gno] command, args (TOML)
//	cursor          user     ~/.cursor/mcp.json; project: ./.cursor/mcp.json      {"mcpServers": {...}}
//	vscode          user     macOS ~/Library/Application Support/Code/User/mcp.json,
//	                         Windows %APPDATA%\Code\User\mcp.json, Linux $XDG/Code/User/mcp.json;
//	                project  ./.vscode/mcp.json                                   {"servers": {"gno": {"type": "stdio", command, args}}}, JSONC
//	opencode        user     $XDG/opencode/opencode.json(c) on every OS;
//	                project  ./opencode.json(c)                                   {"mcp": {"gno": {"type": "local", "command": [cmd, args...], "enabled": true}}}, JSONC
//	gemini-cli      user     ~/.gemini/settings.json; project ./.gemini/settings.json  {"mcpServers": {...}}, JSONC
//	zed             user     Linux $XDG/zed/settings.json, macOS ~/.config/zed/settings.json,
//	                         Windows %APPDATA%\Zed\settings.json                  {"context_servers": {"gno": {"source": "custom", command, args, "env": {}}}}, JSONC
//	windsurf        user     ~/.codeium/windsurf/mcp_config.json                  {"mcpServers": {...}}
//
// Sources, checked when this was written: Claude Desktop and Claude Code:
// modelcontextprotocol.io quickstart and code.claude.com/docs (mcp, "claude
// mcp add" writes type stdio); Codex: developers.openai.com/codex/mcp and
// codex-rs config loader (project layers .codex/config.toml, trusted
// projects only); Cursor: cursor.com/docs/mcp; VS Code:
// code.visualstudio.com/docs/copilot/reference/mcp-configuration;
// OpenCode: opencode.ai/docs/config and /docs/mcp-servers (V1 schema:
// "type": "local", command array; opencode.jsonc accepted); Gemini CLI:
// geminicli.com/docs/cli/configuration and docs/tools/mcp-server.md;
// Zed: zed.dev/docs/ai/mcp and /docs/configuring-zed (XDG on Linux only);
// Windsurf: docs.windsurf.com/windsurf/cascade/mcp. Claude Desktop has no
// official Linux build; the path is the one community builds use.
//
// An entry for a team server (Options.TokenEnv: gno mcp --remote) also
// names the environment variable holding the access token, in each
// client's own syntax, never the token itself (remote.go).
//
// Clients that read the file with a plain JSON parser (Claude Desktop,
// Claude Code) get strict JSON: a comment or trailing comma already in
// such a file is refused, since the client itself would fail on it.
//
// It owns those client config files; it must not touch the index.
package install
