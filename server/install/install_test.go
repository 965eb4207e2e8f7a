package install

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

var update = flag.Bool("update", false, "rewrite the golden .after files")

// golden names each target's format family: the before/after files in
// testdata/golden. A target added to the table without one fails here.
var golden = map[Target]string{
	ClaudeDesktop: "mcpservers-json",
	ClaudeCode:    "claude-code-json",
	Codex:         "codex-toml",
	Cursor:        "mcpservers-jsonc",
	VSCode:        "vscode-jsonc",
	OpenCode:      "opencode-jsonc",
	GeminiCLI:     "mcpservers-jsonc",
	Zed:           "zed-jsonc",
	Windsurf:      "mcpservers-jsonc",
}

var gooses = []string{"linux", "darwin", "windows"}

func testEnv(t *testing.T, goos string) Env {
	d := t.TempDir()
	return Env{GOOS: goos, Home: filepath.Join(d, "home"), CWD: filepath.Join(d, "proj"),
		AppData: filepath.Join(d, "appdata"), XDGConfigHome: filepath.Join(d, "xdg")}
}

func testOpts(t Target, s Scope) Options {
	return Options{Target: t, Scope: s, Command: "/opt/gno/bin/gno", Args: []string{"mcp", "--index", "work"}}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestConfigPaths(t *testing.T) {
	env := Env{Home: "/h", CWD: "/p", AppData: `C:\Users\u\AppData\Roaming`}
	j := filepath.Join
	appData := env.AppData
	for _, tc := range []struct {
		goos string
		t    Target
		s    Scope
		want string
	}{
		{"darwin", ClaudeDesktop, User, "/h/Library/Application Support/Claude/claude_desktop_config.json"},
		{"linux", ClaudeDesktop, User, "/h/.config/Claude/claude_desktop_config.json"},
		{"windows", ClaudeDesktop, User, j(appData, "Claude", "claude_desktop_config.json")},
		{"linux", ClaudeCode, User, "/h/.claude.json"},
		{"windows", ClaudeCode, User, "/h/.claude.json"},
		{"linux", ClaudeCode, Project, "/p/.mcp.json"},
		{"linux", Codex, User, "/h/.codex/config.toml"},
		{"windows", Codex, User, "/h/.codex/config.toml"},
		{"linux", Codex, Project, "/p/.codex/config.toml"},
		{"darwin", Cursor, User, "/h/.cursor/mcp.json"},
		{"linux", Cursor, Project, "/p/.cursor/mcp.json"},
		{"linux", VSCode, User, "/h/.config/Code/User/mcp.json"},
		{"darwin", VSCode, User, "/h/Library/Application Support/Code/User/mcp.json"},
		{"windows", VSCode, User, j(appData, "Code", "User", "mcp.json")},
		{"windows", VSCode, Project, "/p/.vscode/mcp.json"},
		{"linux", OpenCode, User, "/h/.config/opencode/opencode.json"},
		{"windows", OpenCode, User, "/h/.config/opencode/opencode.json"},
		{"darwin", OpenCode, Project, "/p/opencode.json"},
		{"linux", GeminiCLI, User, "/h/.gemini/settings.json"},
		{"windows", GeminiCLI, Project, "/p/.gemini/settings.json"},
		{"linux", Zed, User, "/h/.config/zed/settings.json"},
		{"darwin", Zed, User, "/h/.config/zed/settings.json"},
		{"windows", Zed, User, j(appData, "Zed", "settings.json")},
		{"linux", Windsurf, User, "/h/.codeium/windsurf/mcp_config.json"},
		{"windows", Windsurf, User, "/h/.codeium/windsurf/mcp_config.json"},
	} {
		env.GOOS = tc.goos
		got, err := ConfigPath(env, tc.t, tc.s)
		if err != nil || got != tc.want {
			t.Errorf("%s %s %s = %q, %v; want %q", tc.goos, tc.t, tc.s, got, err, tc.want)
		}
	}
	// XDG_CONFIG_HOME moves Linux configs (and OpenCode's everywhere), not
	// macOS Zed; a relative one is ignored; CODEX_HOME moves Codex's.
	xenv := Env{GOOS: "linux", Home: "/h", CWD: "/p", XDGConfigHome: "/x", CodexHome: "/c"}
	for tc, want := range map[TargetScope]string{
		{VSCode, User}: "/x/Code/User/mcp.json", {Zed, User}: "/x/zed/settings.json",
		{OpenCode, User}: "/x/opencode/opencode.json", {Codex, User}: "/c/config.toml",
		{ClaudeDesktop, User}: "/x/Claude/claude_desktop_config.json",
	} {
		if got, _ := ConfigPath(xenv, tc.Target, tc.Scope); got != want {
			t.Errorf("XDG %v = %q, want %q", tc, got, want)
		}
	}
	xenv.GOOS = "darwin"
	if got, _ := ConfigPath(xenv, Zed, User); got != "/h/.config/zed/settings.json" {
		t.Errorf("darwin zed with XDG = %q", got)
	}
	xenv.GOOS, xenv.XDGConfigHome = "linux", "rel/dir"
	if got, _ := ConfigPath(xenv, Zed, User); got != "/h/.config/zed/settings.json" {
		t.Errorf("relative XDG = %q", got)
	}
	for _, bad := range []TargetScope{{ClaudeDesktop, Project}, {Zed, Project}, {Windsurf, Project}, {"nope", User}, {Codex, "team"}} {
		if _, err := ConfigPath(env, bad.Target, bad.Scope); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
			t.Errorf("%v: want INVALID_INPUT, got %v", bad, err)
		}
	}
}

func TestEveryTargetHasGolden(t *testing.T) {
	for _, c := range clients {
		if golden[c.target] == "" {
			t.Errorf("target %s has no golden format in testdata/golden", c.target)
		}
	}
}

// TestInstallEveryLayout runs install, status, re-install, uninstall and
// dry runs for every target, scope and OS layout, on an absent config and
// on a config holding other servers, comments and odd formatting, which
// must come back byte for byte.
func TestInstallEveryLayout(t *testing.T) {
	for _, goos := range gooses {
		for _, ts := range Targets {
			name := goos + "/" + string(ts.Target) + "/" + string(ts.Scope)
			t.Run(name, func(t *testing.T) {
				env := testEnv(t, goos)
				path, err := ConfigPath(env, ts.Target, ts.Scope)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(path, filepath.Dir(env.Home)) {
					t.Fatalf("config %s outside the temp folders", path)
				}
				o := testOpts(ts.Target, ts.Scope)

				// Absent config: a dry run writes nothing; install creates it.
				o.DryRun = true
				if res, err := Install(env, o); err != nil || res.Action != "installed" || !res.DryRun {
					t.Fatalf("dry run = %+v, %v", res, err)
				}
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Fatalf("dry run created %s", path)
				}
				o.DryRun = false
				if res, err := Install(env, o); err != nil || res.Action != "installed" || res.Backup != "" {
					t.Fatalf("install = %+v, %v", res, err)
				}
				checkStatus(t, env, ts, true)
				if res, _ := Uninstall(env, ts.Target, ts.Scope, false); res.Action != "uninstalled" {
					t.Fatalf("uninstall = %+v", res)
				}
				checkStatus(t, env, ts, false)

				// A config with other servers.
				g := golden[ts.Target]
				before := readFile(t, filepath.Join("testdata", "golden", g+".before"))
				writeFile(t, path, before)
				o.DryRun = true
				if res, err := Install(env, o); err != nil || res.Action != "installed" {
					t.Fatalf("dry run = %+v, %v", res, err)
				}
				if readFile(t, path) != before {
					t.Fatal("dry run changed the config")
				}
				o.DryRun = false
				res, err := Install(env, o)
				if err != nil || res.Action != "installed" || res.Backup == "" {
					t.Fatalf("install = %+v, %v", res, err)
				}
				if readFile(t, res.Backup) != before {
					t.Error("backup is not the old file")
				}
				after := readFile(t, path)
				goldenAfter := filepath.Join("testdata", "golden", g+".after")
				if *update && goos == "linux" {
					writeFile(t, goldenAfter, after)
				}
				if want := readFile(t, goldenAfter); after != want {
					t.Fatalf("after install:\n%s\nwant:\n%s", after, want)
				}
				checkStatus(t, env, ts, true)
				if res, err := Install(env, o); err != nil || res.Action != "unchanged" {
					t.Fatalf("reinstall = %+v, %v", res, err)
				}
				if readFile(t, path) != after {
					t.Fatal("reinstall changed the config")
				}
				if res, err := Uninstall(env, ts.Target, ts.Scope, true); err != nil || res.Action != "uninstalled" || readFile(t, path) != after {
					t.Fatalf("dry-run uninstall = %+v, %v", res, err)
				}
				if res, err := Uninstall(env, ts.Target, ts.Scope, false); err != nil || res.Action != "uninstalled" {
					t.Fatalf("uninstall = %+v, %v", res, err)
				}
				if got := readFile(t, path); got != before {
					t.Fatalf("uninstall did not give back the config byte for byte:\n%s\nwant:\n%s", got, before)
				}
				if res, _ := Uninstall(env, ts.Target, ts.Scope, false); res.Action != "not-installed" {
					t.Fatalf("second uninstall = %+v", res)
				}
			})
		}
	}
}

func checkStatus(t *testing.T, env Env, ts TargetScope, configured bool) {
	t.Helper()
	st, err := Status(env, string(ts.Target), string(ts.Scope))
	if err != nil || len(st) != 1 || st[0].Configured != configured || st[0].Error != "" {
		t.Fatalf("status = %+v, %v", st, err)
	}
	if configured && st[0].Entry.Describe() != "/opt/gno/bin/gno mcp --index work" {
		t.Fatalf("status entry = %q", st[0].Entry.Describe())
	}
}

func TestForceReplace(t *testing.T) {
	for _, ts := range []TargetScope{{ClaudeCode, User}, {Codex, User}, {OpenCode, Project}, {Zed, User}} {
		env := testEnv(t, "linux")
		path, _ := ConfigPath(env, ts.Target, ts.Scope)
		before := readFile(t, filepath.Join("testdata", "golden", golden[ts.Target]+".before"))
		writeFile(t, path, before)
		o := testOpts(ts.Target, ts.Scope)
		if _, err := Install(env, o); err != nil {
			t.Fatal(err)
		}
		installed := readFile(t, path)
		o.Args = []string{"mcp", "--enable-write"}
		if _, err := Install(env, o); gnoerr.CodeOf(err) != gnoerr.Duplicate {
			t.Errorf("%v: install over a different entry: %v", ts, err)
		}
		if readFile(t, path) != installed {
			t.Errorf("%v: refused install wrote", ts)
		}
		o.Force = true
		res, err := Install(env, o)
		if err != nil || res.Action != "updated" {
			t.Fatalf("%v: forced = %+v, %v", ts, res, err)
		}
		st, _ := Status(env, string(ts.Target), string(ts.Scope))
		if st[0].Entry.Describe() != "/opt/gno/bin/gno mcp --enable-write" {
			t.Errorf("%v: after force: %+v", ts, st[0].Entry)
		}
		// Only gno's lines changed.
		want := strings.Replace(installed, `"--index", "work"`, `"--enable-write"`, 1)
		if ts.Target == OpenCode {
			want = strings.Replace(installed, `"mcp", "--index", "work"`, `"mcp", "--enable-write"`, 1)
		}
		if got := readFile(t, path); got != want {
			t.Errorf("%v: forced update changed more than gno:\n%s\nwant\n%s", ts, got, want)
		}
		if _, err := Uninstall(env, ts.Target, ts.Scope, false); err != nil || readFile(t, path) != before {
			t.Errorf("%v: uninstall after update: %v\n%s", ts, err, readFile(t, path))
		}
	}
}

// TestMalformedRefused: a config gno cannot read is named with the
// position of the fault, and nothing is written, not even a backup.
func TestMalformedRefused(t *testing.T) {
	for _, tc := range []struct {
		ts   TargetScope
		data string
		want string
	}{
		{TargetScope{ClaudeDesktop, User}, "{\n  \"mcpServers\": {\n    \"a\": 1,\n", "line 4"},
		{TargetScope{ClaudeDesktop, User}, `[1, 2]`, "not a JSON object"},
		{TargetScope{ClaudeCode, User}, "{\n  // comment\n  \"a\": 1\n}\n", "comment or trailing comma (line 2, column 3)"},
		{TargetScope{ClaudeCode, Project}, `{"mcpServers": [1]}`, "line 1, column 16"},
		{TargetScope{Cursor, User}, "{\"mcpServers\": {\"x\": 1,, }}", "line 1, column 24"},
		{TargetScope{VSCode, Project}, "{\n\t\"servers\": \"no\"\n}", "line 2"},
		{TargetScope{VSCode, User}, "{\"servers\": {\"gno\": {}, \"gno\": {}}}", "2 \"gno\" entries"},
		{TargetScope{Windsurf, User}, "{\"mcpServers\": {}, \"mcpServers\": {\"a\": {}}}", "2 \"mcpServers\" keys"},
		{TargetScope{Zed, User}, "// settings\n{\n  \"theme\": \"x\"\n  \"ui_font_size\": 3\n}", "line 4"},
		{TargetScope{OpenCode, User}, "{\"mcp\": {}} trailing", "line 1, column 13"},
		{TargetScope{Codex, User}, "model = \"x\"\n[mcp_servers.gno\ncommand = \"y\"\n", "line 2"},
		{TargetScope{Codex, User}, "mcp_servers = 3\n", "not a table"},
		{TargetScope{Codex, Project}, "a = 1\na = 2\n", "line 2"},
	} {
		env := testEnv(t, "linux")
		path, _ := ConfigPath(env, tc.ts.Target, tc.ts.Scope)
		writeFile(t, path, tc.data)
		_, err := Install(env, testOpts(tc.ts.Target, tc.ts.Scope))
		if gnoerr.CodeOf(err) != gnoerr.InvalidInput || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %q: install error %v; want INVALID_INPUT naming %s and %q", tc.ts, tc.data, err, path, tc.want)
		}
		if _, err := Uninstall(env, tc.ts.Target, tc.ts.Scope, false); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
			t.Errorf("%v: uninstall error %v", tc.ts, err)
		}
		if readFile(t, path) != tc.data {
			t.Errorf("%v: refused config was modified", tc.ts)
		}
		if _, err := os.Stat(path + ".bak"); !os.IsNotExist(err) {
			t.Errorf("%v: refused config got a backup", tc.ts)
		}
		st, _ := Status(env, string(tc.ts.Target), string(tc.ts.Scope))
		if len(st) != 1 || st[0].Error == "" {
			t.Errorf("%v: status = %+v", tc.ts, st)
		}
	}
}

func TestJSONLayouts(t *testing.T) {
	env := testEnv(t, "linux")
	o := testOpts(Cursor, Project)
	path, _ := ConfigPath(env, Cursor, Project)
	for _, tc := range []struct{ before, after string }{
		// One line stays one line.
		{`{"mcpServers":{"a":{"command":"x"}}}`,
			`{"mcpServers":{"gno": {"command": "/opt/gno/bin/gno", "args": ["mcp", "--index", "work"]},"a":{"command":"x"}}}`},
		// Empty object, empty servers, null servers.
		{"{}", "{\n  \"mcpServers\": {\n    \"gno\": {\n      \"command\": \"/opt/gno/bin/gno\",\n      \"args\": [\"mcp\", \"--index\", \"work\"]\n    }\n  }\n}"},
		{"{\n    \"mcpServers\": {}\n}\n", "{\n    \"mcpServers\": {\n        \"gno\": {\n            \"command\": \"/opt/gno/bin/gno\",\n            \"args\": [\"mcp\", \"--index\", \"work\"]\n        }\n    }\n}\n"},
		{"{\"mcpServers\": null}", "{\"mcpServers\": {\"gno\": {\"command\": \"/opt/gno/bin/gno\", \"args\": [\"mcp\", \"--index\", \"work\"]}}}"},
		// Tabs.
		{"{\n\t\"a\": 1\n}", "{\n\t\"mcpServers\": {\n\t\t\"gno\": {\n\t\t\t\"command\": \"/opt/gno/bin/gno\",\n\t\t\t\"args\": [\"mcp\", \"--index\", \"work\"]\n\t\t}\n\t},\n\t\"a\": 1\n}"},
	} {
		writeFile(t, path, tc.before)
		if _, err := Install(env, o); err != nil {
			t.Fatalf("%s: %v", tc.before, err)
		}
		if got := readFile(t, path); got != tc.after {
			t.Errorf("install into %s:\n%s\nwant\n%s", tc.before, got, tc.after)
		}
		Uninstall(env, Cursor, Project, false)
	}
	// Removing the last member keeps the file's choice of trailing comma.
	for _, tc := range []struct{ before, after string }{
		{"{\"mcpServers\": {\"a\": 1 /* c */ , \"gno\": {}}}", "{\"mcpServers\": {\"a\": 1 /* c */ }}"},
		{"{\"mcpServers\": {\"a\": 1, \"gno\": {},}}", "{\"mcpServers\": {\"a\": 1,}}"},
		{"{\"mcpServers\": {\"gno\": {}, \"a\": 1}}", "{\"mcpServers\": { \"a\": 1}}"},
		{"{\"mcpServers\": {\"gno\": {} /* only */}}", "{\"mcpServers\": { /* only */}}"},
	} {
		writeFile(t, path, tc.before)
		if _, err := Uninstall(env, Cursor, Project, false); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, path); got != tc.after {
			t.Errorf("uninstall from %s = %s, want %s", tc.before, got, tc.after)
		}
	}
}

func TestSymlinkedConfig(t *testing.T) {
	env := testEnv(t, "linux")
	path, _ := ConfigPath(env, GeminiCLI, User)
	real := filepath.Join(filepath.Dir(env.Home), "dotfiles", "gemini.json")
	writeFile(t, real, "{\"theme\": \"x\"}\n")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.Symlink(real, path); err != nil {
		t.Skip(err)
	}
	if _, err := Install(env, testOpts(GeminiCLI, User)); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(path); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if !strings.Contains(readFile(t, real), `"gno"`) {
		t.Error("the link's target was not updated")
	}
}

func TestTOMLForms(t *testing.T) {
	env := testEnv(t, "linux")
	path, _ := ConfigPath(env, Codex, User)
	o := testOpts(Codex, User)
	o.Force = true
	block := "[mcp_servers.gno]\ncommand = \"/opt/gno/bin/gno\"\nargs = [\"mcp\", \"--index\", \"work\"]\n"
	for _, tc := range []struct{ name, before, after string }{
		{"empty", "", block},
		{"no final newline", "model = \"x\"", "model = \"x\"\n\n" + block},
		{"sub-table elsewhere",
			"[mcp_servers.gno]\ncommand = \"old\"\n\n[other]\nx = 1\n\n[mcp_servers.gno.env]\nA = \"1\"\n",
			block + "\n[other]\nx = 1\n"},
		{"dotted keys in the servers table",
			"[mcp_servers]\ngno.command = \"old\"\ngno.args = [\"a\"]\nother.command = \"x\"\n",
			"[mcp_servers]\nother.command = \"x\"\n\n" + block},
		{"quoted key", "[mcp_servers.\"gno\"] # mine\ncommand = 'old'\n# next\n[x]\n", block + "# next\n[x]\n"},
	} {
		writeFile(t, path, tc.before)
		if _, err := Install(env, o); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := readFile(t, path); got != tc.after {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, tc.after)
		}
	}
	// An inline table gno cannot edit line by line: refused, with the
	// block to add by hand.
	inline := "mcp_servers = { gno = { command = \"old\" }, other = { command = \"x\" } }\n"
	writeFile(t, path, inline)
	if _, err := Install(env, o); gnoerr.CodeOf(err) != gnoerr.InvalidInput || !strings.Contains(err.Error(), "[mcp_servers.gno]") {
		t.Errorf("inline install: %v", err)
	}
	if _, err := Uninstall(env, Codex, User, false); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Errorf("inline uninstall: %v", err)
	}
	if readFile(t, path) != inline {
		t.Error("refused inline config was modified")
	}
}
