package install

import (
	"regexp"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// A team server's entry (gno mcp install --remote) runs the bridge, `gno
// mcp --remote URL --fingerprint FP`, which reads the access token from an
// environment variable. The entry never holds the token: it names the
// variable, each client in its own syntax, so the client passes it from
// the environment it started in. Sources, checked when this was written:
//
//	claude-code  "env": {"GNO_TOKEN": "${GNO_TOKEN}"}      .mcp.json expands ${VAR} in command, args, env (code.claude.com/docs mcp)
//	codex        env_vars = ["GNO_TOKEN"]                  forwards the named variables (developers.openai.com/codex/mcp)
//	cursor       "env": {"GNO_TOKEN": "${env:GNO_TOKEN}"}  cursor.com/docs/context/mcp (interpolation)
//	vscode       "env": {"GNO_TOKEN": "${env:GNO_TOKEN}"}  code.visualstudio.com/docs/reference/variables-reference
//	opencode     "environment": {"GNO_TOKEN": "{env:GNO_TOKEN}"}  opencode.ai/docs/config (variables), /docs/mcp-servers
//	gemini-cli   "env": {"GNO_TOKEN": "$GNO_TOKEN"}        expands $VAR and ${VAR} in env (geminicli.com docs/tools/mcp-server)
//	windsurf     "env": {"GNO_TOKEN": "${env:GNO_TOKEN}"}  docs.windsurf.com cascade/mcp (config interpolation)
//	zed          nothing: Zed starts context servers in its own environment, the login shell's
//	claude-desktop  none: it starts servers with only a few variables of its own (PATH, HOME, USER)
//	             and expands none in its config, so its entry names a token file (--token-file)
//
// Gemini CLI and Codex also keep variables that look like secrets from a
// server that does not name them, which is one more reason to name it.

// envName is a portable environment variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// tokenFields are the fields that make target pass the variable name to
// gno. ok is false for a client that cannot (Claude Desktop).
func tokenFields(t Target, name string) (fields []field, ok bool) {
	ref := func(form string) []field {
		return []field{{"env", map[string]string{name: form}, true}}
	}
	switch t {
	case ClaudeCode:
		return ref("${" + name + "}"), true
	case Codex:
		return []field{{"env_vars", []string{name}, true}}, true
	case Cursor, VSCode, Windsurf:
		return ref("${env:" + name + "}"), true
	case OpenCode:
		return []field{{"environment", map[string]string{name: "{env:" + name + "}"}, true}}, true
	case GeminiCLI:
		return ref("$" + name), true
	case Zed:
		return nil, true
	}
	return nil, false
}

// remoteFields adds to an entry's fields what passes the token variable.
func remoteFields(t Target, o Options, fields []field) ([]field, error) {
	if o.TokenEnv == "" {
		return fields, nil
	}
	if !envName.MatchString(o.TokenEnv) {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%q is not an environment variable name", o.TokenEnv)
	}
	extra, ok := tokenFields(t, o.TokenEnv)
	if !ok {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s starts MCP servers with only a few environment variables of its own and cannot name one in its config: "+
			"write the access token into a file only you can read (chmod 600) and pass --token-file FILE", DisplayName(t))
	}
	for _, e := range extra {
		replaced := false
		for i := range fields {
			if fields[i].key == e.key {
				fields[i], replaced = e, true
			}
		}
		if !replaced {
			fields = append(fields, e)
		}
	}
	return fields, nil
}

// TokenEnvNote says, for people, where target must find the token
// variable for the installed entry to work.
func TokenEnvNote(t Target, name string) string {
	switch t {
	case Zed:
		return "set " + name + " in your login shell's environment (Zed starts gno with it)"
	case Codex:
		return "set " + name + " where you start Codex (it forwards it to gno: env_vars)"
	}
	return "set " + name + " in the environment " + DisplayName(t) + " starts from (the entry names it, not its value)"
}
