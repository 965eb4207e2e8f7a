package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// remoteRef is how each client's entry names the token variable.
var remoteRef = map[Target]string{
	ClaudeCode: `"env": {"GNO_TOKEN": "${GNO_TOKEN}"}`,
	Codex:      `env_vars = ["GNO_TOKEN"]`,
	Cursor:     `"env": {"GNO_TOKEN": "${env:GNO_TOKEN}"}`,
	VSCode:     `"env": {"GNO_TOKEN": "${env:GNO_TOKEN}"}`,
	OpenCode:   `"environment": {"GNO_TOKEN": "{env:GNO_TOKEN}"}`,
	GeminiCLI:  `"env": {"GNO_TOKEN": "$GNO_TOKEN"}`,
	Windsurf:   `"env": {"GNO_TOKEN": "${env:GNO_TOKEN}"}`,
	Zed:        `"env": {}`, // Zed passes its own environment
}

var remoteArgs = []string{"mcp", "--remote", "https://team.example:7777", "--fingerprint", "AB:CD"}

// TestInstallRemote: every client's entry for a team server runs the
// bridge and names the token variable in the client's own syntax, beside
// other servers kept byte for byte; Claude Desktop, which cannot, is told
// to use a token file.
func TestInstallRemote(t *testing.T) {
	for _, ts := range Targets {
		t.Run(string(ts.Target)+"/"+string(ts.Scope), func(t *testing.T) {
			env := testEnv(t, "linux")
			path, _ := ConfigPath(env, ts.Target, ts.Scope)
			before := readFile(t, filepath.Join("testdata", "golden", golden[ts.Target]+".before"))
			writeFile(t, path, before)
			o := Options{Target: ts.Target, Scope: ts.Scope, Command: "/opt/gno/bin/gno", Args: remoteArgs, TokenEnv: "GNO_TOKEN"}
			res, err := Install(env, o)
			if ts.Target == ClaudeDesktop {
				if err == nil || !strings.Contains(err.Error(), "--token-file") {
					t.Fatalf("Claude Desktop without a token file: %v", err)
				}
				if readFile(t, path) != before {
					t.Fatal("a refused install changed the config")
				}
				o.TokenEnv, o.Args = "", append(remoteArgs, "--token-file", "/home/me/.config/gno/team.token")
				if res, err = Install(env, o); err != nil {
					t.Fatal(err)
				}
				if got := readFile(t, path); !strings.Contains(got, `"--token-file", "/home/me/.config/gno/team.token"`) || strings.Contains(got, "GNO_TOKEN") {
					t.Fatalf("Claude Desktop with a token file:\n%s", got)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				got := readFile(t, path)
				if !strings.Contains(got, remoteRef[ts.Target]) || !strings.Contains(got, "https://team.example:7777") {
					t.Fatalf("no %s in:\n%s", remoteRef[ts.Target], got)
				}
				if res, err := Install(env, o); err != nil || res.Action != "unchanged" {
					t.Fatalf("reinstall = %+v, %v", res, err)
				}
				o.TokenEnv = "TEAM_TOKEN"
				if _, err := Install(env, o); err == nil && ts.Target != Zed {
					t.Fatal("another variable replaced the entry without --force")
				}
			}
			st, err := Status(env, string(ts.Target), string(ts.Scope))
			if err != nil || !st[0].Configured || !strings.HasPrefix(st[0].Entry.Describe(), "/opt/gno/bin/gno mcp --remote https://team.example:7777") {
				t.Fatalf("status = %+v, %v", st, err)
			}
			if _, err := Uninstall(env, ts.Target, ts.Scope, false); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); got != before {
				t.Fatalf("uninstall did not give back the config:\n%s", got)
			}
			if res.Backup != "" {
				os.Remove(res.Backup)
			}
		})
	}
}

func TestInstallRemoteBadName(t *testing.T) {
	env := testEnv(t, "linux")
	for _, bad := range []string{"GNO-TOKEN", "1X", "A B", "$GNO_TOKEN"} {
		o := Options{Target: Cursor, Scope: User, Command: "/opt/gno/bin/gno", Args: remoteArgs, TokenEnv: bad}
		if _, err := Install(env, o); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
