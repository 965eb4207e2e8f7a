package skill

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server"
	"github.com/gnosearch/gno/server/install"
	"gopkg.in/yaml.v3"
)

// testInput is the real tool registry with a small command tree (the
// real tree is checked by cmd/gno's drift test).
func testInput(version string) Input {
	var cmds []Command
	for name := range commandGuide {
		cmds = append(cmds, Command{Path: "gno " + name, Use: name + " [flags]", Short: "Does " + name,
			Flags: []Flag{{Name: "limit", Shorthand: "n", Type: "int", Default: "10", Usage: "number of results"}}})
	}
	for _, sub := range []string{"collection add", "collection remove", "note update", "note rm", "note mv", "packages search", "packages describe", "packages diff", "reconcile mark", "reconcile clear"} {
		cmds = append(cmds, Command{Path: "gno " + sub, Use: strings.Fields(sub)[1], Short: "sub"})
	}
	return Input{Version: version, Commands: cmds, Tools: registry(),
		GlobalFlags: []Flag{{Name: "json", Type: "bool", Usage: "JSON output"}}}
}

func TestGuideCoversRegistry(t *testing.T) {
	if m := Missing(testInput("t")); len(m) > 0 {
		t.Fatalf("guidance out of step with the registry:\n%s", strings.Join(m, "\n"))
	}
	// A new tool without a line is reported.
	in := testInput("t")
	in.Tools = append(in.Tools, Tool{Name: "gno_new_tool", Description: "New."})
	in.Commands = append(in.Commands, Command{Path: "gno brand-new", Use: "brand-new"})
	m := strings.Join(Missing(in), "\n")
	if !strings.Contains(m, "gno_new_tool") || !strings.Contains(m, "gno brand-new") {
		t.Errorf("Missing = %s", m)
	}
}

func TestGenerate(t *testing.T) {
	in := testInput("1.2.3")
	files := Generate(in)
	byPath := map[string]string{}
	for _, f := range files {
		byPath[f.Path] = string(f.Content)
		if !sealed(f.Content) {
			t.Errorf("%s: marker hash does not verify", f.Path)
		}
	}
	skill := byPath["SKILL.md"]
	// Front matter first, as every client requires.
	m := regexp.MustCompile(`(?s)^---\n(.*?)\n---\n`).FindStringSubmatch(skill)
	if m == nil {
		t.Fatalf("no front matter:\n%s", skill[:200])
	}
	var fm struct{ Name, Description string }
	if err := yaml.Unmarshal([]byte(m[1]), &fm); err != nil {
		t.Fatal(err)
	}
	if fm.Name != Name || !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(fm.Name) {
		t.Errorf("name = %q", fm.Name)
	}
	if n := len([]rune(fm.Description)); n == 0 || n > 1024 || strings.Contains(description, "\n") || strings.ContainsAny(description[:1], "\"'&*!|>%@`[{") ||
		strings.Contains(description, ": ") || strings.Contains(description, " #") {
		t.Errorf("description (%d chars) = %q", n, fm.Description)
	}
	if markerVersion([]byte(skill)) != "1.2.3" {
		t.Errorf("marker version = %q", markerVersion([]byte(skill)))
	}
	for _, want := range []string{"thorough: true", "Rephrase", "rephrase", "## Recipes", "Find a note", "Answer with citations",
		"Follow links", "Edit safely", "Check what changed", "references/mcp-tools.md", "references/cli.md"} {
		if !strings.Contains(skill, want) && !strings.Contains(strings.ToLower(skill), strings.ToLower(want)) {
			t.Errorf("SKILL.md lacks %q", want)
		}
	}
	tools := byPath["references/mcp-tools.md"]
	for _, ti := range server.Tools() {
		if !strings.Contains(skill, "`"+ti.Name+"`") {
			t.Errorf("SKILL.md does not name %s", ti.Name)
		}
		if !strings.Contains(tools, "## "+ti.Name) || !strings.Contains(tools, ti.Description) {
			t.Errorf("mcp-tools.md lacks %s or its description", ti.Name)
		}
		var s struct{ Properties map[string]any }
		json.Unmarshal(ti.InputSchema, &s)
		for p := range s.Properties {
			if !strings.Contains(tools, "`"+p+"`") {
				t.Errorf("mcp-tools.md lacks %s.%s", ti.Name, p)
			}
		}
	}
	cli := byPath["references/cli.md"]
	for _, c := range in.Commands {
		if !strings.Contains(cli, c.Short) || !strings.Contains(cli, "`"+usage(c)+"`") {
			t.Errorf("cli.md lacks %s", c.Path)
		}
	}
	if !strings.Contains(cli, "`-n, --limit int`: number of results (default `10`)") || !strings.Contains(cli, "`--json`") {
		t.Error("cli.md flags")
	}
	// Same input, same bytes: status can compare.
	if again := Generate(in); !bytes.Equal(again[0].Content, files[0].Content) {
		t.Error("generation is not deterministic")
	}
}

func testEnv(t *testing.T, goos string) install.Env {
	d := t.TempDir()
	return install.Env{GOOS: goos, Home: filepath.Join(d, "home"), CWD: filepath.Join(d, "proj"),
		AppData: filepath.Join(d, "appdata"), XDGConfigHome: filepath.Join(d, "xdg")}
}

func TestDirs(t *testing.T) {
	env := install.Env{GOOS: "linux", Home: "/h", CWD: "/p"}
	for tc, want := range map[[2]string]string{
		{"claude", "user"}: "/h/.claude/skills/gno", {"claude", "project"}: "/p/.claude/skills/gno",
		{"codex", "user"}: "/h/.agents/skills/gno", {"codex", "project"}: "/p/.agents/skills/gno",
		{"opencode", "user"}: "/h/.config/opencode/skills/gno", {"opencode", "project"}: "/p/.opencode/skills/gno",
	} {
		if got, err := Dir(env, Target(tc[0]), install.Scope(tc[1])); err != nil || got != want {
			t.Errorf("%v = %q, %v; want %q", tc, got, err, want)
		}
	}
	if _, err := Dir(env, "cursor", install.User); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Errorf("unknown target: %v", err)
	}
	if _, err := Expand("claude", "team"); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Errorf("unknown scope: %v", err)
	}
	if ts, _ := Expand("all", install.User); len(ts) != len(targets) {
		t.Errorf("all = %v", ts)
	}
}

func TestInstallEveryTarget(t *testing.T) {
	for _, scope := range []install.Scope{install.User, install.Project} {
		for _, tgt := range TargetNames() {
			t.Run(tgt+"/"+string(scope), func(t *testing.T) {
				testInstallCycle(t, testEnv(t, "linux"), Target(tgt), scope)
			})
			// Folders do not depend on the OS; a short cycle on the others.
			for _, goos := range []string{"darwin", "windows"} {
				env := testEnv(t, goos)
				in := testInput("1")
				o := Options{Target: Target(tgt), Scope: scope}
				if res, err := Install(env, in, o); err != nil || res.Action != "installed" {
					t.Fatalf("%s: install = %+v, %v", goos, res, err)
				}
				if st, _ := Status(env, in, tgt, string(scope)); st[0].State != "current" {
					t.Fatalf("%s: status = %+v", goos, st)
				}
				if res, err := Uninstall(env, in, o); err != nil || res.Action != "uninstalled" {
					t.Fatalf("%s: uninstall = %+v, %v", goos, res, err)
				}
			}
		}
	}
}

func testInstallCycle(t *testing.T, env install.Env, tgt Target, scope install.Scope) {
	in := testInput("1.0.0")
	o := Options{Target: tgt, Scope: scope}
	dir, _ := Dir(env, tgt, scope)
	if !strings.HasPrefix(dir, filepath.Dir(env.Home)) {
		t.Fatalf("skill dir %s outside the temp folders", dir)
	}
	status := func() StatusEntry {
		t.Helper()
		st, err := Status(env, in, string(tgt), string(scope))
		if err != nil || len(st) != 1 {
			t.Fatalf("status = %v, %v", st, err)
		}
		return st[0]
	}
	if s := status(); s.State != "not-installed" {
		t.Fatalf("status before = %+v", s)
	}
	// Dry run writes nothing.
	o.DryRun = true
	if res, err := Install(env, in, o); err != nil || res.Action != "installed" || len(res.Files) != 3 {
		t.Fatalf("dry run = %+v, %v", res, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("dry run created the folder")
	}
	o.DryRun = false
	res, err := Install(env, in, o)
	if err != nil || res.Action != "installed" {
		t.Fatalf("install = %+v, %v", res, err)
	}
	skillPath := filepath.Join(dir, "SKILL.md")
	if b, err := os.ReadFile(skillPath); err != nil || !bytes.HasPrefix(b, []byte("---\nname: gno\n")) {
		t.Fatalf("SKILL.md: %v", err)
	}
	if s := status(); s.State != "current" || s.Version != "1.0.0" {
		t.Fatalf("status = %+v", s)
	}
	if res, _ := Install(env, in, o); res.Action != "unchanged" {
		t.Fatalf("reinstall = %+v", res)
	}
	// A newer gno: stale, then updated in place.
	in2 := testInput("1.1.0")
	if s, _ := Status(env, in2, string(tgt), string(scope)); s[0].State != "stale" {
		t.Fatalf("status for a newer gno = %+v", s)
	}
	if res, err := Install(env, in2, o); err != nil || res.Action != "updated" {
		t.Fatalf("update = %+v, %v", res, err)
	}
	in = in2
	// The user edits SKILL.md: status says so, install and uninstall refuse.
	edited := []byte(strings.Replace(string(readBytes(t, skillPath)), "## Recipes", "## Recipes\n\nMy own note.", 1))
	os.WriteFile(skillPath, edited, 0o644)
	if s := status(); s.State != "modified" {
		t.Fatalf("status after edit = %+v", s)
	}
	if _, err := Install(env, in, o); gnoerr.CodeOf(err) != gnoerr.Conflict || !strings.Contains(err.Error(), skillPath) {
		t.Fatalf("install over an edit: %v", err)
	}
	if _, err := Uninstall(env, in, o); gnoerr.CodeOf(err) != gnoerr.Conflict {
		t.Fatalf("uninstall over an edit: %v", err)
	}
	if !bytes.Equal(readBytes(t, skillPath), edited) {
		t.Fatal("a refused install touched the edited file")
	}
	// --force keeps the edit as SKILL.md.bak.
	o.Force = true
	if res, err := Install(env, in, o); err != nil || res.Action != "updated" || res.Files[0].Backup != skillPath+".bak" {
		t.Fatalf("forced install = %+v, %v", res, err)
	}
	if !bytes.Equal(readBytes(t, skillPath+".bak"), edited) {
		t.Fatal("backup lost the user's edit")
	}
	if s := status(); s.State != "current" {
		t.Fatalf("status after force = %+v", s)
	}
	o.Force = false
	os.Remove(skillPath + ".bak")
	// A file the user added stays on uninstall, and so does the folder.
	mine := filepath.Join(dir, "references", "mine.md")
	os.WriteFile(mine, []byte("mine"), 0o644)
	o.DryRun = true
	if res, err := Uninstall(env, in, o); err != nil || res.Action != "uninstalled" {
		t.Fatalf("dry-run uninstall = %+v, %v", res, err)
	}
	if _, err := os.Stat(skillPath); err != nil {
		t.Fatal("dry-run uninstall removed files")
	}
	o.DryRun = false
	res, err = Uninstall(env, in, o)
	if err != nil || res.Action != "uninstalled" || len(res.Left) != 1 || res.Left[0] != mine {
		t.Fatalf("uninstall = %+v, %v", res, err)
	}
	if _, err := os.Stat(skillPath); !os.IsNotExist(err) {
		t.Fatal("SKILL.md left")
	}
	os.Remove(mine)
	if res, err := Uninstall(env, in, o); err != nil || res.Action != "not-installed" {
		t.Fatalf("second uninstall = %+v, %v", res, err)
	}
	os.RemoveAll(dir)
	// Install then uninstall leaves no folder behind.
	Install(env, in, o)
	Uninstall(env, in, o)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("uninstall left the folder")
	}
}

func readBytes(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMarker: any edit, anywhere, breaks the seal; the marker survives
// only where gno put it.
func TestMarker(t *testing.T) {
	f := Generate(testInput("v"))[0].Content
	if !sealed(f) {
		t.Fatal("fresh file not sealed")
	}
	for _, edit := range []func([]byte) []byte{
		func(b []byte) []byte { return append(b, '\n') },
		func(b []byte) []byte { return bytes.Replace(b, []byte("gno_query"), []byte("gno_qvery"), 1) },
		func(b []byte) []byte { return bytes.Replace(b, []byte("sha256:"), []byte("sha256: "), 1) },
		func(b []byte) []byte { return markerRE.ReplaceAll(b, nil) },
	} {
		if sealed(edit(append([]byte{}, f...))) {
			t.Error("an edited file still verifies")
		}
	}
}

// registry is the real tool registry as cmd/gno hands it over.
func registry() []Tool {
	var out []Tool
	for _, ti := range server.Tools() {
		out = append(out, Tool(ti))
	}
	return out
}
