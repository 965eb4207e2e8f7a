package pkgdocs

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
	"github.com/gnosearch/gno/pkgdocs/pkgtest"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// needClient skips a test when its ecosystem's client cannot run here,
// or under -short (it fetches over the network).
func needClient(t *testing.T, client string) {
	t.Helper()
	if testing.Short() {
		t.Skip("fetches packages over the network; skipped with -short")
	}
	if err := pkgtest.Usable(client); err != nil {
		t.Skipf("%v: this test fetches real packages with it", err)
	}
}

func names(cs []APIChange) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// sourceHas reports whether any file under dir with one of exts holds s.
func sourceHas(t *testing.T, dir, s string, exts ...string) bool {
	t.Helper()
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || found || d.IsDir() || !slices.Contains(exts, filepath.Ext(p)) {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), s) {
			found = true
		}
		return nil
	})
	return found
}

// TestDiffEcosystems: per ecosystem, a project installs one version of a
// real package through its client; the diff against another version
// (fetched by the diff through the same client) lists an item known to
// be added between them, checked in the two versions' sources.
func TestDiffEcosystems(t *testing.T) {
	modcache := filepath.Join(shared, "modcache")
	cases := []struct {
		eco, client, pkg, to string
		proj                 pkgtest.Project
		added                string                    // an item added in to
		old, new             func(t *testing.T) string // the versions' folders
		decl                 string                    // how the added item is declared in source
		exts                 []string
		changelog            bool
		// deprecated is an item newly deprecated between depFrom and the
		// installed version, depMark how its source says so.
		deprecated, depFrom string
		depMark             *regexp.Regexp
		depDir              func(t *testing.T) string
	}{
		{eco: "go", client: "go", pkg: "cobra", to: "v1.8.0", proj: pkgtest.Project{Go: []string{"github.com/spf13/cobra@v1.7.0"}},
			added: "Command.SetErrPrefix", decl: "func (c *Command) SetErrPrefix(", exts: []string{".go"},
			old: func(*testing.T) string { return filepath.Join(modcache, "github.com/spf13/cobra@v1.7.0") },
			new: func(*testing.T) string { return filepath.Join(modcache, "github.com/spf13/cobra@v1.8.0") }},
		{eco: "npm", client: "npm", pkg: "commander", to: "14.0.0", proj: pkgtest.Project{NPM: []string{"commander@13.1.0"}},
			added: "Command.optionsGroup", decl: "optionsGroup(", exts: []string{".ts"},
			old: func(*testing.T) string { return filepath.Join(shared, "fetched", "npm", "commander@13.1.0") },
			new: func(*testing.T) string { return filepath.Join(shared, "fetched", "npm", "commander@14.0.0") }},
		// uuid ships its CHANGELOG.md, and 9.0.1 no declarations (its API
		// is read from the JavaScript).
		{eco: "npm-js", client: "npm", pkg: "uuid", to: "10.0.0", proj: pkgtest.Project{NPM: []string{"uuid@9.0.1"}},
			added: "v7", decl: "default as v7", exts: []string{".js"}, changelog: true,
			old: func(*testing.T) string { return filepath.Join(shared, "fetched", "npm", "uuid@9.0.1") },
			new: func(*testing.T) string { return filepath.Join(shared, "fetched", "npm", "uuid@10.0.0") }},
		{eco: "python", client: "pip3", pkg: "more-itertools", to: "10.3.0", proj: pkgtest.Project{Python: []string{"more-itertools==10.2.0"}},
			added: "powerset_of_sets", decl: "def powerset_of_sets(", exts: []string{".py"},
			old: func(*testing.T) string { return filepath.Join(shared, "fetched", "pypi", "more-itertools-10.2.0") },
			new: func(*testing.T) string { return filepath.Join(shared, "fetched", "pypi", "more-itertools-10.3.0") }},
		{eco: "rust", client: "cargo", pkg: "itertools", to: "0.14.0", proj: pkgtest.Project{Rust: []string{"itertools@0.13.0"}},
			added: "collect_array", decl: "fn collect_array<", exts: []string{".rs"}, changelog: true,
			deprecated: "Itertools::group_by", depFrom: "0.12.1", depMark: regexp.MustCompile(`#\[deprecated[^\]]*\]\s*(#\[[^\]]*\]\s*)*fn group_by`),
			depDir: func(*testing.T) string { return cargoSrc(t, "itertools-0.12.1") },
			old:    func(*testing.T) string { return cargoSrc(t, "itertools-0.13.0") },
			new:    func(*testing.T) string { return cargoSrc(t, "itertools-0.14.0") }},
	}
	for _, c := range cases {
		t.Run(c.eco, func(t *testing.T) {
			needClient(t, c.client)
			ctx := context.Background()
			x := newIndex(t)
			dir := project(t, c.proj)
			add(t, x, dir, AddOptions{})
			d, err := x.Diff(ctx, DiffRequest{Package: c.pkg, To: c.to, Projects: []string{dir}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s", d.Text())
			if !d.From.Installed || d.To.Version != normVersion(d.Ecosystem, c.to) || !d.To.Fetched {
				t.Errorf("versions: from %+v to %+v", d.From, d.To)
			}
			if !slices.ContainsFunc(names(d.Added), func(n string) bool {
				return n == c.added || strings.HasSuffix(n, "."+c.added) || strings.HasSuffix(n, "::"+c.added)
			}) {
				t.Errorf("%s not among the added: %v", c.added, names(d.Added))
			}
			if !sourceHas(t, c.new(t), c.decl, c.exts...) || sourceHas(t, c.old(t), c.decl, c.exts...) {
				t.Errorf("the sources disagree: %q should be in %s only", c.decl, c.new(t))
			}
			if c.changelog && (d.Changelog == nil || !d.Changelog.Known || len(d.Changelog.Entries) == 0) {
				t.Errorf("changelog: %+v", d.Changelog)
			}
			if c.deprecated != "" {
				dd, err := x.Diff(ctx, DiffRequest{Package: c.pkg, From: c.depFrom, Projects: []string{dir}})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(names(dd.Deprecated), c.deprecated) {
					t.Errorf("%s not newly deprecated since %s: %v", c.deprecated, c.depFrom, names(dd.Deprecated))
				}
				if !sourceMatches(c.old(t), c.depMark) || sourceMatches(c.depDir(t), c.depMark) {
					t.Errorf("the sources disagree on %s's deprecation", c.deprecated)
				}
			}
			// The fetched version is stored: the same diff again fetches
			// nothing, and the default compares the two stored versions.
			n := x.Extracted()
			d2, err := x.Diff(ctx, DiffRequest{Package: c.pkg, Projects: []string{dir}})
			if err != nil || d2.To.Version != d.To.Version || d2.From.Version != d.From.Version || x.Extracted() != n {
				t.Fatalf("default diff: %+v %v (extracted %d → %d)", d2, err, n, x.Extracted())
			}
			// A version that does not exist: a clear message naming the
			// versions that do.
			_, err = x.Diff(ctx, DiffRequest{Package: c.pkg, To: "99.99.99", Projects: []string{dir}})
			if !gnoerr.Is(err, gnoerr.NotFound) || !strings.Contains(err.Error(), "99.99.99") || !strings.Contains(err.Error(), "versions available:") ||
				!strings.Contains(err.Error(), strings.TrimPrefix(c.to, "v")) {
				t.Errorf("missing version: %v", err)
			}
		})
	}
}

// TestDiffBadInput: a package the project does not use, the same version
// twice, and a budget too small for the whole answer.
func TestDiffBadInput(t *testing.T) {
	needClient(t, "go")
	ctx := context.Background()
	x := newIndex(t)
	dir := project(t, pkgtest.Project{Go: []string{"github.com/spf13/cobra@v1.7.0"}})
	add(t, x, dir, AddOptions{})
	if _, err := x.Diff(ctx, DiffRequest{Package: "left-pad", Projects: []string{dir}}); !gnoerr.Is(err, gnoerr.NotFound) || !strings.Contains(err.Error(), "left-pad") {
		t.Errorf("not a dependency: %v", err)
	}
	if _, err := x.Diff(ctx, DiffRequest{Package: "cobra", Projects: []string{dir}}); !gnoerr.Is(err, gnoerr.NotFound) || !strings.Contains(err.Error(), "--to") {
		t.Errorf("only one version stored: %v", err)
	}
	if _, err := x.Diff(ctx, DiffRequest{Package: "cobra", From: "v1.7.0", To: "v1.7.0", Projects: []string{dir}}); !gnoerr.Is(err, gnoerr.InvalidInput) {
		t.Errorf("same version: %v", err)
	}
	if _, err := x.Diff(ctx, DiffRequest{Package: "cobra", To: "v1.7.0", Projects: []string{dir}}); !gnoerr.Is(err, gnoerr.InvalidInput) {
		t.Errorf("to the installed version: %v", err)
	}
	// "latest" is the newest release the client lists.
	latest, err := x.Diff(ctx, DiffRequest{Package: "cobra", To: "latest", Projects: []string{dir}})
	if err != nil || apidoc.CompareVersions(latest.To.Version, "v1.8.1") < 0 || !strings.HasPrefix(latest.To.Version, "v1.") {
		t.Fatalf("latest: %+v %v", latest, err)
	}
	full, err := x.Diff(ctx, DiffRequest{Package: "cobra", From: "v1.2.1", Projects: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	small, err := x.Diff(ctx, DiffRequest{Package: "cobra", From: "v1.2.1", Projects: []string{dir}, MaxTokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	if !small.Truncated || len(small.Cut) == 0 || tokensOf(small) > 300 || small.From.Version != "v1.2.1" || small.To.Version != "v1.7.0" {
		t.Errorf("budget: truncated %v, cut %v, %d tokens", small.Truncated, small.Cut, tokensOf(small))
	}
	// ExactValidArgs was deprecated in between (a Go "Deprecated:"
	// paragraph), as the two sources say.
	if !slices.Contains(names(full.Deprecated), "ExactValidArgs") {
		t.Errorf("newly deprecated: %v", names(full.Deprecated))
	}
	mod := filepath.Join(shared, "modcache", "github.com", "spf13")
	if mark := "// Deprecated: use MatchAll(ExactArgs(n), OnlyValidArgs) instead"; !sourceHas(t, filepath.Join(mod, "cobra@v1.7.0"), mark, ".go") ||
		sourceHas(t, filepath.Join(mod, "cobra@v1.2.1"), mark, ".go") {
		t.Errorf("the sources disagree on ExactValidArgs's deprecation")
	}
	// Added items go before removed ones.
	if len(full.Removed) > 0 && len(small.Added) > 0 && len(small.Removed) < len(full.Removed) {
		t.Errorf("removed cut while added kept: %v", small.Cut)
	}
	if small.Counts != full.Counts {
		t.Errorf("counts changed by the cut: %+v vs %+v", small.Counts, full.Counts)
	}
	// The versions fetched for the diffs are used by no project: cleanup
	// drops them (v1.2.1 and the latest) and keeps the installed one.
	if n, err := x.Cleanup(ctx); err != nil || n != 2 {
		t.Errorf("cleanup dropped %d (%v), want the 2 fetched versions", n, err)
	}
	if d, err := x.Describe(ctx, DescribeRequest{Package: "cobra", Projects: []string{dir}}); err != nil || d.Package.Version != "v1.7.0" {
		t.Errorf("installed version after cleanup: %+v %v", d, err)
	}
}

// sourceMatches reports whether a .rs file under dir matches re.
func sourceMatches(dir string, re *regexp.Regexp) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !found && !d.IsDir() && filepath.Ext(p) == ".rs" {
			if b, err := os.ReadFile(p); err == nil && re.Match(b) {
				found = true
			}
		}
		return nil
	})
	return found
}

// cargoSrc is a crate's folder in the run's CARGO_HOME.
func cargoSrc(t *testing.T, dir string) string {
	m, _ := filepath.Glob(filepath.Join(shared, "cargo", "registry", "src", "*", dir))
	if len(m) == 0 {
		t.Fatalf("%s not in CARGO_HOME", dir)
	}
	return m[0]
}

// TestSigLines: comments, whitespace and a re-wrapped union are no
// change; a parameter's type is.
func TestSigLines(t *testing.T) {
	a := sigLines("type T struct {\n\t// Use is the usage.\n\tUse string // the \"use\" line\n\tURL string `json:\"u//x\"`\n}")
	b := sigLines("type T struct {\n\t// Use is the one-line usage.\n\tUse    string\n\tURL string `json:\"u//x\"`\n}")
	if !slices.Equal(a, b) {
		t.Errorf("comments and spacing count: %q vs %q", a, b)
	}
	c := sigLines("def f(\n    hooks: None\n    | Mapping = None,\n) -> int")
	d := sigLines("def f(\n    hooks: None | Mapping = None,\n) -> int")
	if !slices.Equal(c, d) {
		t.Errorf("re-wrap counts: %q vs %q", c, d)
	}
	if got := delta(sigLines("def f(\n  x: int,\n)"), sigLines("def f(\n  x: str,\n)")); strings.Join(got, ";") != "- x: int,;+ x: str," {
		t.Errorf("delta %q", got)
	}
}

// TestDeprecatedDoc: each ecosystem's way of saying an item is
// deprecated, and prose that only mentions the word.
func TestDeprecatedDoc(t *testing.T) {
	for _, s := range []string{
		"ExactValidArgs returns an error.\n\nDeprecated: use MatchAll(ExactArgs(n), OnlyValidArgs) instead",
		"Parse a string.\n@deprecated Use parse() instead.",
		"```ts\n@deprecated\nfoo(): void\n```",
		"Old API.\n\n.. deprecated:: 2.0\n   Use new_api.",
		"```python\n@typing_extensions.deprecated(\"use g\")\ndef f(): ...\n```",
		"Groups items.\n\nDeprecated since 0.13.0: Use .chunk_by() instead",
		"**Deprecated**: use y",
	} {
		if !isDeprecated(s) {
			t.Errorf("not seen as deprecated: %q", s)
		}
	}
	for _, s := range []string{
		"Deprecated defines, if this command is deprecated and should print this string when used.",
		"cmd := &Command{\n\tDeprecated: \"use other\",\n}",
		"Returns true unless the flag is deprecated.",
		"```ts\nexport declare function custom<T>(check?: (d: any) => any,\n/**\n * @deprecated\n * Pass fatal in params.\n */\nfatal?: boolean): ZodType<T>\n```\n\nCustom schema.",
	} {
		if isDeprecated(s) {
			t.Errorf("seen as deprecated: %q", s)
		}
	}
	// A README section attached to an undocumented item (readmedoc.go)
	// is the README's wording, not the item's doc; the item's own doc
	// around it still counts.
	readme := func(body string) string {
		return "# get\n\nfunction\n\n```py\ndef get(url)\n```\n\nFrom README.md § `requests.get(url)`:\n\n" + body + "\n<!-- /README -->\n\n## Examples\n\n```py\nget(u)\n```\n"
	}
	for _, body := range []string{
		"Raises a DeprecationWarning when verify is a string.",
		"Options:\n\nDeprecated: the old `verify` form.",
		"- `stream` [deprecated]: use iter_content.",
		"```js\n@deprecated\nfunction old() {}\n```",
	} {
		if s := readme(body); isDeprecated(s) {
			t.Errorf("README wording seen as the item's deprecation: %q", s)
		}
	}
	if s := "Deprecated: use fetch.\n\n" + readme("Gets a URL."); !isDeprecated(s) {
		t.Errorf("the item's own deprecation lost beside a README section: %q", s)
	}
}
