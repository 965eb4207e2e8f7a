package apidoc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// writePkg writes files (slash paths) under a new folder.
func writePkg(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return dir
}

func writeFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

func warned(d *Docs, file, substr string) bool {
	for _, w := range d.Warnings {
		if (file == "" || w.File == file) && strings.Contains(w.Msg, substr) {
			return true
		}
	}
	return false
}

func TestBinaryReadme(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
	dir := writePkg(t, map[string]string{
		"package.json":        `{"name":"bin","version":"1.0.0","types":"index.d.ts","description":"A package."}`,
		"README.md":           png,
		"index.d.ts":          "/** Adds. */\nexport declare function add(a: number, b: number): number;\n",
		"docs/pic.md":         png,
		"examples/basic.ts":   "import { add } from 'bin';\nconsole.log(add(1, 2));\n",
		"examples/README.md":  "# Examples\n\nRun them with node.\n",
		"examples/logo.png":   png,
		"docs/guide/intro.md": "# Intro\n\nHow to add.\n",
	})
	d := extract(t, NPM, "bin", "1.0.0", dir)
	if !warned(d, "README.md", "binary") || !warned(d, "docs/pic.md", "binary") {
		t.Errorf("warnings = %v", d.Warnings)
	}
	if hasUnit(d, func(u Unit) bool {
		return u.Kind == KindReadme || u.Path == "docs/pic.md" || u.Path == "examples/logo.png"
	}) {
		t.Error("a binary file became a unit")
	}
	unit(t, d, "api/add")
	if e := unit(t, d, "examples/basic.ts"); e.Kind != KindExample || !strings.Contains(e.Text, "```ts\nimport { add } from 'bin';") {
		t.Errorf("example file: %+v", e)
	}
	if e := unit(t, d, "examples/README.md"); e.Kind != KindExample || e.Title != "Examples" {
		t.Errorf("example prose: %+v", e)
	}
	if g := unit(t, d, "docs/guide/intro.md"); g.Kind != KindDoc || g.Title != "Intro" {
		t.Errorf("doc: %+v", g)
	}
	if d.Meta.Summary != "A package." {
		t.Errorf("summary = %q", d.Meta.Summary)
	}
}

// hugeDTS is a generated declaration file of about n bytes, as API
// generators produce.
func hugeDTS(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "/**\n * Operation %d of the generated client.\n * @param input - the request\n */\nexport declare function op%d(input: { id: string; tags?: Array<Record<string, number>> }): Promise<Result%d>;\nexport interface Result%d {\n    id: string;\n    /** When it ran. */\n    at: Date;\n}\n", i, i, i, i)
	}
	return b.String()
}

func TestHugeDTS(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"package.json": `{"name":"gen","version":"1.0.0","types":"index.d.ts"}`,
		"index.d.ts":   hugeDTS(10 << 20),
	})
	d := extract(t, NPM, "gen", "1.0.0", dir)
	if !warned(d, "index.d.ts", "only the first") {
		t.Errorf("no truncation warning: %v", d.Warnings)
	}
	if !warned(d, "", "unit limit") {
		t.Errorf("no unit limit warning: %v", d.Warnings)
	}
	if n := len(d.Units); n != 10000 {
		t.Errorf("%d units, want the 10000 limit", n)
	}
	checkSource(t, dir, unit(t, d, "api/op7"), "export declare function op7(input: { id: string; tags?: Array<Record<string, number>> }): Promise<Result7>",
		"Operation 7 of the generated client.\n@param input - the request", " * Operation 7 of the generated client.")
	// raised limits: the whole file
	d2, err := Extract(context.Background(), Package{Ecosystem: NPM, Name: "gen", Dir: dir}, Limits{MaxFileBytes: 16 << 20, MaxUnits: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(d2.Warnings) != 0 || len(d2.Units) < 100000 {
		t.Errorf("%d units, warnings %v", len(d2.Units), d2.Warnings)
	}
}

func TestInvalidUTF8(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"mypkg/__init__.py": "\"\"\"Caf\xe9 tools.\"\"\"\n\ndef brew(kind: str = \"espresso\") -> str:\n    \"\"\"Brews a caf\xe9.\"\"\"\n",
		"README.md":         "# mypkg\n\nLatin-1 caf\xe9 text here, long enough to be a summary.\n",
	})
	d := extract(t, Python, "mypkg", "1.0", dir)
	b := unit(t, d, "api/mypkg.brew")
	if b.Doc != "Brews a caf\uFFFD." || b.Symbol.Signature != `def brew(kind: str = "espresso") -> str` {
		t.Errorf("brew = %q %q", b.Doc, b.Symbol.Signature)
	}
	if !warned(d, "mypkg/__init__.py", "invalid UTF-8") || !warned(d, "README.md", "invalid UTF-8") {
		t.Errorf("warnings = %v", d.Warnings)
	}
	if !utf8.ValidString(d.Meta.Summary) {
		t.Error("invalid summary")
	}
}

func TestSymlinkOutOfPackage(t *testing.T) {
	secret := writePkg(t, map[string]string{"secret.md": "# Secret\n\nTOPSECRET token\n", "lib.rs": "/// TOPSECRET\npub fn leak() {}\n"})
	dir := writePkg(t, map[string]string{
		"Cargo.toml": "[package]\nname = \"linky\"\nversion = \"0.1.0\"\ndescription = \"Links.\"\nlicense = \"MIT\"\n",
		"src/ok.rs":  "/// Fine.\npub fn fine() {}\n",
		"docs/in.md": "# Inside\n\nKept.\n",
	})
	links := map[string]string{
		"README.md":      filepath.Join(secret, "secret.md"),
		"docs/out.md":    filepath.Join(secret, "secret.md"),
		"docs/up.md":     "../../" + filepath.Base(secret) + "/secret.md",
		"examples":       secret,
		"src/lib.rs":     filepath.Join(secret, "lib.rs"),
		"docs/inside.md": "in.md", // a link inside the package is read
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	d := extract(t, Rust, "linky", "0.1.0", dir)
	for _, u := range d.Units {
		if strings.Contains(u.Text, "TOPSECRET") {
			t.Errorf("unit %s read through a link out of the package", u.Path)
		}
	}
	for _, f := range []string{"README.md", "docs/out.md", "docs/up.md", "examples", "src/lib.rs"} {
		if !hasWarningFor(d, f) {
			t.Errorf("no warning for %s: %v", f, d.Warnings)
		}
	}
	unit(t, d, "docs/in.md")
	unit(t, d, "docs/inside.md")
	if d.Meta.Summary != "Links." || d.Meta.License != "MIT" {
		t.Errorf("meta = %+v", d.Meta)
	}
}

func hasWarningFor(d *Docs, file string) bool {
	for _, w := range d.Warnings {
		if w.File == file {
			return true
		}
	}
	return false
}

func TestDeepNesting(t *testing.T) {
	const n = 200000
	open := strings.Repeat("{", n)
	cases := []struct{ eco, name string }{{Rust, "deep"}, {NPM, "deep"}, {Swift, "deep"}, {Python, "deep"}, {Go, "example.com/deep"}}
	files := map[string]string{
		"package.json":      `{"name":"deep","types":"index.d.ts"}`,
		"index.d.ts":        "export type T = " + strings.Repeat("{ a: ", n) + "\n/** After. */\nexport declare function after(): void;\n",
		"src/lib.rs":        "pub fn f() " + open + "\n/// After.\npub fn after() {}\n",
		"Sources/A/A.swift": "public struct S " + open + "\n/// After.\npublic func after() {}\n",
		"deep/__init__.py":  "x = " + strings.Repeat("(", n) + "\ndef after():\n    \"\"\"After.\"\"\"\n",
		"go.mod":            "module example.com/deep\n",
		"deep.go":           "// Package deep nests.\npackage deep\n\nvar X = " + strings.Repeat("[]int{", 20000) + "\n",
		"ok/ok.go":          "// Package ok is fine.\npackage ok\n\n// After is fine.\nfunc After() {}\n",
		"README.md":         strings.Repeat("> ", 5000) + "deep quote\n",
		"docs/list.md":      strings.Repeat("- ", 5000) + "deep list\n",
	}
	dir := writePkg(t, files)
	for _, c := range cases {
		d := extract(t, c.eco, c.name, "1", dir)
		if len(d.Units) == 0 {
			t.Errorf("%s: nothing extracted", c.eco)
		}
	}
	d := extract(t, Go, "example.com/deep", "1", dir)
	if !warned(d, "deep.go", "not parsed") {
		t.Errorf("go: warnings %v", d.Warnings)
	}
	unit(t, d, "api/ok.After")
}

func TestPythonAllAndPrivate(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"pkg/__init__.py": "from .core import *\n__all__ = [\"visible\", 'Kept']\n\ndef visible(a, /, b: int = 1, *, c=None):\n    'Shown.'\n\ndef not_listed():\n    pass\n\nclass Kept:\n    \"\"\"A class.\"\"\"\n    def method(self): ...\n    def _hidden(self): ...\n    @property\n    def size(self) -> int:\n        return 1\n",
		"pkg/core.py":     "def _private(): pass\n\nasync def fetch(url: str) -> bytes:\n    \"\"\"Fetches.\n\n    Long text.\n    \"\"\"\n\nif True:\n    def conditional(): 'In a branch.'\n",
		"pkg/_impl.py":    "def hidden(): pass\n",
		"tests/test_x.py": "def test_it(): pass\n",
		"pkg/stub.pyi":    "def stubbed(x: int) -> str: ...\n",
	})
	d := extract(t, Python, "pkg", "1", dir)
	for _, p := range []string{"api/pkg.visible", "api/pkg.Kept", "api/pkg.Kept.method", "api/pkg.Kept.size", "api/pkg.core.fetch", "api/pkg.core.conditional", "api/pkg.stub.stubbed"} {
		unit(t, d, p)
	}
	for _, p := range []string{"api/pkg.not_listed", "api/pkg.Kept._hidden", "api/pkg.core._private", "api/pkg._impl.hidden", "api/tests.test_x.test_it"} {
		if hasUnit(d, func(u Unit) bool { return u.Path == p }) {
			t.Errorf("%s is listed", p)
		}
	}
	if f := unit(t, d, "api/pkg.core.fetch"); f.Doc != "Fetches.\n\nLong text." || f.Symbol.Signature != "async def fetch(url: str) -> bytes" {
		t.Errorf("fetch = %q %q", f.Doc, f.Symbol.Signature)
	}
	if v := unit(t, d, "api/pkg.visible"); v.Doc != "Shown." || v.Symbol.Signature != "def visible(a, /, b: int = 1, *, c=None)" {
		t.Errorf("visible = %q %q", v.Doc, v.Symbol.Signature)
	}
}

func TestSharedSitePackagesWithoutDistInfo(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"other-1.0.dist-info/RECORD": "other/__init__.py,,\n",
		"other/__init__.py":          "def not_ours(): pass\n",
	})
	d := extract(t, Python, "mine", "1.0", dir)
	if hasUnit(d, func(u Unit) bool { return u.Kind == KindAPI }) || !warned(d, "", "no mine dist-info") {
		t.Errorf("units %d, warnings %v", len(d.Units), d.Warnings)
	}
}

func TestCorruptManifestAndErrors(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"package.json": `{"name": "broken", "types": `,
		"README.md":    "# broken\n\nStill indexed even though package.json is corrupt.\n",
		"index.d.ts":   "export declare const ok: number;\n",
		"Cargo.toml":   "[package\nname = ",
	})
	d := extract(t, NPM, "broken", "1", dir)
	if !warned(d, "package.json", "not valid JSON") {
		t.Errorf("warnings = %v", d.Warnings)
	}
	unit(t, d, "readme.md")
	unit(t, d, "api/ok") // found as index.d.ts
	if d := extract(t, Rust, "broken", "1", dir); !warned(d, "Cargo.toml", "not parsed") || !warned(d, "", "no src/lib.rs") {
		t.Errorf("rust warnings = %v", d.Warnings)
	}
	if _, err := Extract(context.Background(), Package{Ecosystem: "cobol", Dir: dir}, Limits{}); !errors.Is(err, ErrUnknownEcosystem) {
		t.Errorf("unknown ecosystem: %v", err)
	}
	if _, err := Extract(context.Background(), Package{Ecosystem: Go, Name: "x", Dir: filepath.Join(dir, "missing")}, Limits{}); err == nil {
		t.Error("missing Dir: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Extract(ctx, Package{Ecosystem: NPM, Name: "broken", Dir: dir}, Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

func TestFilterMarkdown(t *testing.T) {
	src := "# tool\n\n[![CI](https://img.shields.io/x.svg)](https://ci) ![cov](https://codecov.io/b.svg)\n\n<p align=\"center\"><img src=\"logo.png\"></p>\n\nTool does things.\n\n## Install\n\n```sh\nnpm i tool\n```\n\n## Contributors ✨\n\nThanks to these people.\n\n### Bots\n\nMore thanks.\n\n## Configuration\n\nSet `TOOL_HOME`.\n\n## History API\n\nhistory.push(x) keeps state.\n\n## Changelog\n\n- 1.0 first\n\n## Code of Conduct\n\nBe nice.\n\n## Licence\n\nMIT\n"
	out := FilterMarkdown(src)
	for _, g := range []string{"img.shields.io", "codecov", "logo.png", "Contributors", "Bots", "More thanks", "Changelog", "1.0 first", "Be nice", "Licence"} {
		if strings.Contains(out, g) {
			t.Errorf("kept %q:\n%s", g, out)
		}
	}
	for _, k := range []string{"# tool", "Tool does things.", "## Install", "npm i tool", "## Configuration", "TOOL_HOME", "## History API", "history.push(x)"} {
		if !strings.Contains(out, k) {
			t.Errorf("lost %q:\n%s", k, out)
		}
	}
	rst := "tool\n====\n\n.. image:: https://img.shields.io/pypi/v/tool.svg\n   :target: https://pypi.org/project/tool\n\n|build| |cov|\n\nTool does things.\n\nUsage\n-----\n\nRun it.\n\nLicense\n-------\n\nBSD\n"
	out = filterRST(rst)
	if strings.Contains(out, "shields") || strings.Contains(out, "BSD") || strings.Contains(out, "|build|") || !strings.Contains(out, "Run it.") {
		t.Errorf("rst:\n%s", out)
	}
}
