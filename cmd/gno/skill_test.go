package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/server"
	"github.com/gnosearch/gno/server/install"
	"github.com/gnosearch/gno/server/skill"
)

// TestSkillDrift: the skill generated from the real command tree and tool
// registry names every tool and every top-level command, and the
// hand-written guidance covers each of them. Adding a tool or a command
// without a line in server/skill/guide.go fails here.
func TestSkillDrift(t *testing.T) {
	root := newRootCmd(&app{stdout: io.Discard, stderr: io.Discard})
	in := skillInput(root)
	if m := skill.Missing(in); len(m) > 0 {
		t.Fatalf("add these to server/skill/guide.go:\n%s", strings.Join(m, "\n"))
	}
	files := map[string]string{}
	for _, f := range skill.Generate(in) {
		files[f.Path] = string(f.Content)
	}
	for _, ti := range server.Tools() {
		if !strings.Contains(files["SKILL.md"], "`"+ti.Name+"`") || !strings.Contains(files["references/mcp-tools.md"], "## "+ti.Name) {
			t.Errorf("skill does not name tool %s", ti.Name)
		}
	}
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		if !strings.Contains(files["SKILL.md"], "`gno "+c.Name()+"`") && !strings.Contains(files["SKILL.md"], "`gno "+c.Name()+" ") {
			t.Errorf("SKILL.md does not name gno %s", c.Name())
		}
		if !strings.Contains(files["references/cli.md"], "`gno "+c.Use) {
			t.Errorf("cli.md does not document gno %s", c.Name())
		}
	}
}

// TestAgentInstallSmoke installs gno into client configs with the real
// binary, then starts the MCP server exactly as each config says and
// checks it answers initialize and tools/list over stdio; and installs
// the skill for every client.
func TestAgentInstallSmoke(t *testing.T) {
	dir := t.TempDir()
	home, proj, gnoHome := filepath.Join(dir, "home"), filepath.Join(dir, "proj"), filepath.Join(dir, "gnohome")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(proj, 0o755)
	envv := append(os.Environ(), "HOME="+home, "USERPROFILE="+home, "XDG_CONFIG_HOME=", "CODEX_HOME=", "APPDATA="+filepath.Join(home, "AppData"),
		"GNO_HOME="+gnoHome, "GNO_MODELS_DIR="+filepath.Join(dir, "no-models"))
	gno := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gnoBin, args...)
		cmd.Dir, cmd.Env = proj, envv
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("gno %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	env := install.Env{GOOS: runtime.GOOS, Home: home, CWD: proj, AppData: filepath.Join(home, "AppData")}
	var want []string
	for _, ti := range server.Tools() {
		if !ti.NeedsWrite {
			want = append(want, ti.Name)
		}
	}
	sort.Strings(want)
	for _, ts := range []install.TargetScope{{Target: install.ClaudeCode, Scope: install.Project}, {Target: install.Codex, Scope: install.User},
		{Target: install.VSCode, Scope: install.Project}, {Target: install.OpenCode, Scope: install.User}, {Target: install.Zed, Scope: install.User}} {
		out := gno("--index", "smoke", "mcp", "install", "-t", string(ts.Target), "-s", string(ts.Scope))
		if !strings.Contains(out, "installed gno for") {
			t.Fatalf("install %v: %s", ts, out)
		}
		st, err := install.Status(env, string(ts.Target), string(ts.Scope))
		if err != nil || !st[0].Configured {
			t.Fatalf("status %v = %+v, %v", ts, st, err)
		}
		got := mcpToolsList(t, st[0].Entry, envv)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%v: tools/list = %v, want %v", ts, got, want)
		}
	}
	var mst struct{ Targets []install.StatusEntry }
	json.Unmarshal([]byte(gno("--json", "mcp", "status")), &mst)
	if n := countConfigured(mst.Targets); n != 5 {
		t.Errorf("mcp status: %d configured: %+v", n, mst.Targets)
	}

	out := gno("skill", "install", "-t", "all", "-s", "project")
	for _, d := range []string{".claude/skills/gno", ".agents/skills/gno", ".opencode/skills/gno"} {
		b, err := os.ReadFile(filepath.Join(proj, d, "SKILL.md"))
		if err != nil || !strings.HasPrefix(string(b), "---\nname: gno\n") {
			t.Errorf("%s: %v\n%s", d, err, out)
		}
		if _, err := os.Stat(filepath.Join(proj, d, "references", "mcp-tools.md")); err != nil {
			t.Error(err)
		}
	}
	var sst struct{ Targets []skill.StatusEntry }
	json.Unmarshal([]byte(gno("--json", "skill", "status", "-s", "project")), &sst)
	for _, s := range sst.Targets {
		if s.State != "current" {
			t.Errorf("skill status %+v", s)
		}
	}
	gno("skill", "uninstall", "-t", "all", "-s", "project")
	if _, err := os.Stat(filepath.Join(proj, ".claude", "skills", "gno")); !os.IsNotExist(err) {
		t.Error("skill uninstall left the folder")
	}
}

func countConfigured(st []install.StatusEntry) int {
	n := 0
	for _, s := range st {
		if s.Configured {
			n++
		}
	}
	return n
}

// mcpToolsList runs a client's entry and returns the tool names the
// server lists; stdout must carry nothing but JSON-RPC.
func mcpToolsList(t *testing.T, e *install.Entry, envv []string) []string {
	t.Helper()
	cmd := exec.Command(e.Command, e.Args...)
	cmd.Env = envv
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"1"}}}`+"\n")
	r := bufio.NewReader(stdout)
	recv := func() map[string]any {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: read: %v (stderr: %s)", e.Describe(), err, stderr.String())
		}
		var m map[string]any
		if json.Unmarshal(line, &m) != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout carried a non-protocol line: %q", line)
		}
		return m
	}
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	m := recv()
	res, _ := m["result"].(map[string]any)
	tools, _ := res["tools"].([]any)
	var names []string
	for _, x := range tools {
		names = append(names, x.(map[string]any)["name"].(string))
	}
	sort.Strings(names)
	return names
}
