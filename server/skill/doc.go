// Package skill generates gno's agent skill and installs it into agent
// clients. The skill is generated at run time from the real definitions,
// so it cannot drift from them: the CLI's command tree (Input.Commands,
// read by cmd/gno from cobra) and the MCP tool registry (server.Tools, handed
// over by cmd/gno as Input.Tools: names, descriptions, input schemas). Only the guidance is hand-written
// (guide.go: when to use each tool and command, the agent retry strategy
// of gno-mcp-reference.md, recipes); Missing reports any tool or
// top-level command without a guidance line, and the drift tests fail on
// it.
//
// The skill is a folder gno/ holding SKILL.md (YAML front matter with
// name and description, the fields every client requires; name matches
// the folder as OpenCode demands) and references/mcp-tools.md and
// references/cli.md, loaded by the agent only when needed (progressive
// disclosure). Every file carries a marker line with gno's version and
// the SHA-256 of the rest of the file: a file whose hash no longer
// matches was edited by someone, and install and uninstall refuse to
// touch it unless --force, which keeps it as FILE.bak. Files are written
// atomically (temp file and rename).
//
// Where each client reads skills (user scope; project scope, relative to
// the current folder):
//
//	claude    ~/.claude/skills/gno/SKILL.md               .claude/skills/gno/SKILL.md
//	codex     ~/.agents/skills/gno/SKILL.md               .agents/skills/gno/SKILL.md
//	opencode  $XDG_CONFIG_HOME/opencode/skills/gno/ (or ~/.config/opencode/skills/gno/)
//	                                                      .opencode/skills/gno/SKILL.md
//
// Sources: Claude Code: code.claude.com/docs/en/skills (personal
// ~/.claude/skills/<name>/SKILL.md, project .claude/skills/<name>/SKILL.md;
// front matter name and description). Codex: developers.openai.com/codex/skills
// ("Where to save skills": USER $HOME/.agents/skills, REPO .agents/skills
// from the current folder up to the repository root; name at most 64
// and description at most 1,024 characters, codex-rs skills loader);
// ~/.codex/skills is the legacy location (openai/codex#14337, PRs
// #10317 and #10437). OpenCode: opencode.ai/docs/skills (global
// ~/.config/opencode/skills/<name>/SKILL.md, project
// .opencode/skills/<name>/SKILL.md; it also reads ~/.claude/skills and
// ~/.agents/skills, so one of those is enough for it).
package skill
