package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

func testEnv(t *testing.T, goos string) Env {
	d := t.TempDir()
	return Env{GOOS: goos, Home: filepath.Join(d, "home"), CWD: filepath.Join(d, "proj"), AppData: filepath.Join(d, "appdata")}
}

func TestConfigPaths(t *testing.T) {
	env := Env{Home: "/h", CWD: "/p", AppData: `C:\Users\u\AppData\Roaming`}
	for _, tc := range []struct {
		goos  string
		t     Target
		s     Scope
		want  string
		fails bool
	}{
		{"darwin", ClaudeDesktop, User, "/h/Library/Application Support/Claude/claude_desktop_config.json", false},
		{"linux", ClaudeDesktop, User, "/h/.config/Claude/claude_desktop_config.json", false},
		{"windows", ClaudeDesktop, User, filepath.Join(`C:\Users\u\AppData\Roaming`, "Claude", "claude_desktop_config.json"), false},
		{"linux", ClaudeCode, User, "/h/.claude.json", false},
		{"linux", ClaudeCode, Project, "/p/.mcp.json", false},
		{"linux", Codex, User, "/h/.codex.json", false},
		{"linux", Codex, Project, "/p/.codex/.mcp.json", false},
		{"linux", ClaudeDesktop, Project, "", true},
		{"linux", "vscode", User, "", true},
		{"linux", Codex, "team", "", true},
	} {
		env.GOOS = tc.goos
		got, err := ConfigPath(env, tc.t, tc.s)
		if tc.fails {
			if gnoerr.CodeOf(err) != gnoerr.InvalidInput {
				t.Errorf("%s %s %s: want INVALID_INPUT, got %v %v", tc.goos, tc.t, tc.s, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %s %s = %q, %v; want %q", tc.goos, tc.t, tc.s, got, err, tc.want)
		}
	}
}

func TestInstallPreservesOtherKeys(t *testing.T) {
	env := testEnv(t, "linux")
	path, _ := ConfigPath(env, ClaudeCode, User)
	os.MkdirAll(filepath.Dir(path), 0o755)
	orig := `{"zeta": 1, "mcpServers": {"other": {"command": "x", "args": []}}, "alpha": {"nested": [1, 2, {"k": "v"}]}, "projects": {}}`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Options{Target: ClaudeCode, Scope: User, Command: "/usr/bin/gno", Args: []string{"mcp"}}
	// Dry run changes nothing.
	res, err := Install(env, Options{Target: o.Target, Scope: o.Scope, Command: o.Command, Args: o.Args, DryRun: true})
	if err != nil || res.Action != "installed" {
		t.Fatalf("dry run = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatal("dry run wrote the file")
	}
	res, err = Install(env, o)
	if err != nil || res.Action != "installed" || res.Backup != path+".bak" {
		t.Fatalf("install = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(res.Backup); string(b) != orig {
		t.Errorf("backup = %q", b)
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	if strings.Index(got, `"zeta"`) > strings.Index(got, `"mcpServers"`) || strings.Index(got, `"mcpServers"`) > strings.Index(got, `"alpha"`) {
		t.Errorf("key order changed:\n%s", got)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["zeta"] != 1.0 || m["alpha"].(map[string]any)["nested"].([]any)[2].(map[string]any)["k"] != "v" {
		t.Errorf("other keys changed: %v", m)
	}
	servers := m["mcpServers"].(map[string]any)
	if servers["other"] == nil {
		t.Error("other server lost")
	}
	gno := servers["gno"].(map[string]any)
	if gno["command"] != "/usr/bin/gno" || gno["args"].([]any)[0] != "mcp" || gno["type"] != "stdio" {
		t.Errorf("gno entry = %v", gno)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", fi.Mode())
	}
	// Same again: unchanged. Different without --force: DUPLICATE.
	if res, err := Install(env, o); err != nil || res.Action != "unchanged" {
		t.Errorf("reinstall = %+v, %v", res, err)
	}
	o.Args = []string{"mcp", "--enable-write"}
	if _, err := Install(env, o); gnoerr.CodeOf(err) != gnoerr.Duplicate {
		t.Errorf("install over a different entry: %v", err)
	}
	o.Force = true
	if res, err := Install(env, o); err != nil || res.Action != "updated" {
		t.Errorf("forced = %+v, %v", res, err)
	}
	st, err := Status(env, "claude-code", "all")
	if err != nil || len(st) != 2 || !st[0].Configured || st[0].Entry.Describe() != "/usr/bin/gno mcp --enable-write" || st[1].Configured {
		t.Errorf("status = %+v, %v", st, err)
	}
	res, err = Uninstall(env, ClaudeCode, User, false)
	if err != nil || res.Action != "uninstalled" {
		t.Fatalf("uninstall = %+v, %v", res, err)
	}
	b, _ = os.ReadFile(path)
	json.Unmarshal(b, &m)
	if m["mcpServers"].(map[string]any)["gno"] != nil || m["mcpServers"].(map[string]any)["other"] == nil || m["zeta"] != 1.0 {
		t.Errorf("after uninstall: %s", b)
	}
	if res, _ := Uninstall(env, ClaudeCode, User, false); res.Action != "not-installed" {
		t.Errorf("second uninstall = %+v", res)
	}
}

func TestInstallNewFileAndBadFile(t *testing.T) {
	env := testEnv(t, "darwin")
	res, err := Install(env, Options{Target: ClaudeDesktop, Scope: User, Command: "/bin/gno", Args: []string{"mcp"}})
	if err != nil || res.Action != "installed" || res.Backup != "" {
		t.Fatalf("install = %+v, %v", res, err)
	}
	b, _ := os.ReadFile(res.ConfigPath)
	if !strings.Contains(string(b), `"mcpServers": {`) || strings.Contains(string(b), `"type"`) {
		t.Errorf("new config = %s", b)
	}
	path, _ := ConfigPath(env, Codex, Project)
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`[1, 2]`), 0o644)
	if _, err := Install(env, Options{Target: Codex, Scope: Project, Command: "/bin/gno", Args: []string{"mcp"}}); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Errorf("non-object config: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `[1, 2]` {
		t.Errorf("bad config was modified: %s", b)
	}
	st, _ := Status(env, "all", "")
	if len(st) != 5 || !st[0].Configured || st[4].Error == "" {
		t.Errorf("status = %+v", st)
	}
	if _, err := Status(env, "nope", ""); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Errorf("bad target: %v", err)
	}
}
