package retrieval

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// gitRun runs git in dir for a test, failing it on error.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// gitRepo builds the test repository: a governing note over src/auth/**
// (with a parent), a note linking to an ungoverned file, and a branch
// "feature" that edits, adds, renames and deletes governed and
// ungoverned files, with a binary and a 50 MB governed file, and a file
// the collection does not index.
func gitRepo(t *testing.T) (*Engine, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed:", err)
	}
	pgtest.Home(t, t.TempDir())
	// gno's git and the test's read the same (no) user config, so their
	// diffs can be compared byte for byte.
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	gitRun(t, root, "init", "-q", "-b", "main")
	files := map[string]string{
		"notes/auth.md":      "---\ngoverns: [src/auth/**, ../**, /etc/passwd]\nsystem: \"[[system]]\"\n---\n# Auth\n\nLogin and tokens.\n",
		"notes/system.md":    "---\nsubsystems: [\"[[auth]]\"]\n---\n# System\n\nThe whole.\n",
		"notes/linker.md":    "# Linker\n\nSee [[guide]].\n",
		"docs/guide.md":      "# Guide\n\nHow to.\n",
		"src/auth/login.go":  "package auth\n\nfunc Login() {}\n",
		"src/auth/token.go":  "package auth\n\nfunc Token() {}\n",
		"src/auth/old.go":    "package auth\n\nfunc Old() {}\n\n// a long enough body to be found renamed\n// line\n// line\n",
		"src/auth/gone.go":   "package auth\n\nfunc Gone() {}\n",
		"src/util/helper.go": "package util\n\nfunc Help() {}\n",
	}
	for name, body := range files {
		write(t, root, name, body)
	}
	write(t, root, "src/auth/logo.go", "\x00\x01\x02")
	write(t, root, "src/auth/skip.bin", "\x00\x01\x02")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-q", "-m", "base")
	gitRun(t, root, "checkout", "-q", "-b", "feature")
	write(t, root, "src/auth/login.go", "package auth\n\nfunc Login() error { return nil }\n")
	write(t, root, "src/auth/token.go", "package auth\n\nfunc Token() string { return \"\" }\n")
	write(t, root, "src/auth/new.go", "package auth\n\nfunc New() {}\n")
	gitRun(t, root, "mv", "src/auth/old.go", "src/auth/renamed.go")
	gitRun(t, root, "rm", "-q", "src/auth/gone.go")
	write(t, root, "src/util/helper.go", "package util\n\nfunc Help() int { return 1 }\n")
	write(t, root, "src/util/extra.go", "package util\n")
	write(t, root, "docs/guide.md", "# Guide\n\nHow to, better.\n")
	write(t, root, "src/auth/logo.go", "\x00\x01\x02\x03")
	write(t, root, "src/auth/skip.bin", "\x00\x01\x02\x03")
	big := strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", 50<<20/64)
	write(t, root, "src/auth/big.go", big)
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-q", "-m", "feature")
	return codeEngine(t, root), root
}

// codeEngine opens an index (GNO_HOME set by the caller) with one code
// collection "repo" over root (Markdown and Go files) and syncs it.
func codeEngine(t *testing.T, root string) *Engine {
	t.Helper()
	ctx := context.Background()
	e, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "repo", Path: root, Code: true, Include: []string{"**/*.go"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	return e
}

func TestReconcileGit(t *testing.T) {
	e, root := gitRepo(t)
	ctx := context.Background()
	aff, err := e.Notes().Affected(ctx, AffectedRequest{Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, f := range aff.Changed {
		changed = append(changed, strings.TrimPrefix(f.URI, "gno://repo/")+":"+f.Status)
	}
	// skip.bin changed too, but the collection does not index it.
	want := []string{"docs/guide.md:modified", "src/auth/big.go:added", "src/auth/gone.go:deleted", "src/auth/login.go:modified", "src/auth/logo.go:modified", "src/auth/new.go:added",
		"src/auth/old.go:deleted", "src/auth/renamed.go:added", "src/auth/token.go:modified", "src/util/extra.go:added", "src/util/helper.go:modified"}
	if !reflect.DeepEqual(changed, want) {
		t.Fatalf("changed\n got %v\nwant %v", changed, want)
	}
	if len(aff.Notes) != 2 || aff.Notes[0].URI != "gno://repo/notes/auth.md" || len(aff.Notes[0].Why) != 8 || aff.Notes[0].Why[0].By != "governs" || aff.Notes[0].Content == "" ||
		aff.Notes[1].URI != "gno://repo/notes/linker.md" || aff.Notes[1].Why[0] != (AffectedWhy{File: "gno://repo/docs/guide.md", By: "links"}) {
		t.Fatalf("affected notes %+v", aff.Notes)
	}
	// A small budget cuts the changed list and leaves contents out, and
	// says so.
	if small, err := e.Notes().Affected(ctx, AffectedRequest{Base: "main", MaxTokens: 60}); err != nil || small.ChangedOmitted == 0 ||
		len(small.Changed)+small.ChangedOmitted != len(aff.Changed) || small.Notes[0].Content != "" || !small.Notes[0].ContentOmitted {
		t.Fatalf("affected within 60 tokens: %+v %v", small, err)
	}
	if w := strings.Join(aff.Warnings, "\n"); !strings.Contains(w, `"../**" refused`) || !strings.Contains(w, `"/etc/passwd" refused`) {
		t.Fatalf("warnings %v", aff.Warnings)
	}

	diff := func(req DiffRequest) *DiffResult {
		t.Helper()
		req.Ref, req.Base = "repo/notes/auth.md", "main"
		d, err := e.Notes().Diff(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := diff(DiffRequest{})
	files := []string{"src/auth/gone.go", "src/auth/login.go", "src/auth/new.go", "src/auth/old.go", "src/auth/renamed.go", "src/auth/token.go"}
	if gitDiff := gitRun(t, root, append([]string{"diff", "main...", "--"}, files...)...); d.Diff != gitDiff {
		t.Fatalf("diff differs from git diff main...:\n%s\n----\n%s", d.Diff, gitDiff)
	}
	if len(d.Files) != 5 || len(d.Skipped) != 0 || !reflect.DeepEqual(d.NotDiffed, []NotDiffed{{"gno://repo/src/auth/big.go", "larger than 1048576 bytes"}, {"gno://repo/src/auth/logo.go", "binary"}}) {
		t.Fatalf("files %v skipped %v not diffed %v", d.Files, d.Skipped, d.NotDiffed)
	}
	if !strings.Contains(d.Diff, "rename from src/auth/old.go") {
		t.Fatalf("the rename is not git's: %s", d.Diff)
	}
	if d := diff(DiffRequest{Exclude: []string{"token.go", "src/auth/new.*"}}); !reflect.DeepEqual(d.Excluded, []string{"gno://repo/src/auth/new.go", "gno://repo/src/auth/token.go"}) || strings.Contains(d.Diff, "token.go") {
		t.Fatalf("excluded %v", d.Excluded)
	}

	// Mark what was reconciled, then change one file: only it shows.
	var marks []string
	for _, f := range files {
		marks = append(marks, filepath.Join(root, f))
	}
	m, err := e.Notes().MarkReconciled(ctx, MarkRequest{Files: marks})
	if err != nil || m.Updated != 4 || len(m.Missing) != 2 {
		t.Fatalf("mark %+v %v", m, err)
	}
	write(t, root, "src/auth/new.go", "package auth\n\nfunc New() int { return 2 }\n")
	gitRun(t, root, "commit", "-q", "-am", "again")
	d = diff(DiffRequest{})
	if !reflect.DeepEqual(d.Files, []string{"gno://repo/src/auth/new.go"}) || len(d.Skipped) != 5 {
		t.Fatalf("after mark: files %v skipped %v", d.Files, d.Skipped)
	}
	if gitDiff := gitRun(t, root, "diff", "main...", "--", "src/auth/new.go"); d.Diff != gitDiff {
		t.Fatalf("diff differs from git diff main...:\n%s\n----\n%s", d.Diff, gitDiff)
	}
	if d := diff(DiffRequest{BypassCache: true}); len(d.Files) != 5 || len(d.Skipped) != 0 {
		t.Fatalf("bypass: files %v skipped %v", d.Files, d.Skipped)
	}
	if d := diff(DiffRequest{Cursor: "agent2"}); len(d.Files) != 5 {
		t.Fatalf("a second cursor: files %v", d.Files)
	}
	if _, err := e.Notes().MarkReconciled(ctx, MarkRequest{Files: []string{"repo/src/auth/token.go"}, Cursor: "agent2"}); err != nil {
		t.Fatal(err)
	}
	// A restart keeps both cursors.
	e.Close()
	e2, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	e = e2
	if d := diff(DiffRequest{}); len(d.Files) != 1 {
		t.Fatalf("default cursor after a restart: %v", d.Files)
	}
	if d := diff(DiffRequest{Cursor: "agent2"}); len(d.Files) != 4 || !reflect.DeepEqual(d.Skipped, []string{"gno://repo/src/auth/token.go"}) {
		t.Fatalf("agent2 after a restart: %v %v", d.Files, d.Skipped)
	}
	if c, err := e.Notes().ClearReconciled(ctx, ClearRequest{}); err != nil || !c.Cleared || c.Files != 6 {
		t.Fatalf("clear %+v %v", c, err)
	}
	if d := diff(DiffRequest{}); len(d.Files) != 5 {
		t.Fatalf("after clear: %v", d.Files)
	}

	// The governing note's own change: in full, with its parent.
	write(t, root, "notes/auth.md", "---\ngoverns: [src/auth/**]\nsystem: \"[[system]]\"\n---\n# Auth\n\nLogin, tokens and more.\n")
	gitRun(t, root, "commit", "-q", "-am", "spec")
	update(t, e)
	d = diff(DiffRequest{})
	if len(d.SpecChanges) != 1 || d.SpecChanges[0].URI != "gno://repo/notes/auth.md" || !strings.Contains(d.SpecChanges[0].Content, "and more") ||
		d.System == nil || d.System.URI != "gno://repo/notes/system.md" || !strings.Contains(d.System.Content, "The whole") {
		t.Fatalf("spec changes %+v system %+v", d.SpecChanges, d.System)
	}

	// Bad input.
	for _, tc := range []struct {
		req  DiffRequest
		code gnoerr.Code
	}{
		{DiffRequest{Ref: "repo/notes/auth.md", Base: "nope"}, gnoerr.NotFound},
		{DiffRequest{Ref: "repo/notes/auth.md", Base: "--output=x"}, gnoerr.InvalidInput},
		{DiffRequest{Ref: "repo/notes/auth.md", Base: "main", Cursor: "../x"}, gnoerr.InvalidInput},
		{DiffRequest{Ref: "repo/notes/auth.md", Base: "main", Cursor: "a/b"}, gnoerr.InvalidInput},
	} {
		if _, err := e.Notes().Diff(ctx, tc.req); gnoerr.CodeOf(err) != tc.code {
			t.Errorf("%+v: %v, want %s", tc.req, err, tc.code)
		}
	}
	if _, err := e.Notes().MarkReconciled(ctx, MarkRequest{Files: []string{"/etc/passwd"}}); gnoerr.CodeOf(err) != gnoerr.InvalidPath {
		t.Errorf("mark outside the collections: %v", err)
	}
}

// A collection outside git asked for --base says so.
func TestReconcileNotGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed:", err)
	}
	e, _ := newEngine(t, map[string]string{"a.txt": "a\n"})
	_, err := e.Notes().Affected(context.Background(), AffectedRequest{Base: "main", Collection: "notes"})
	if gnoerr.CodeOf(err) != gnoerr.InvalidInput || !strings.Contains(err.Error(), "not inside a git work tree") {
		t.Fatalf("%v", err)
	}
}

// Without git: generations, a document edited twice, one deleted and
// created again; a dropped earlier text says so and gives the whole text.
func TestReconcileSince(t *testing.T) {
	e, root := newEngine(t, map[string]string{
		"spec.md": "---\ngoverns: [\"*.txt\"]\n---\n# Spec\n",
		"a.txt":   "one\n",
		"b.txt":   "b\n",
	})
	ctx := context.Background()
	update(t, e)
	gen := func() int64 {
		st, _ := e.store(ctx)
		g, _ := st.Generation(ctx)
		return g
	}
	g1 := gen()
	write(t, root, "a.txt", "two\n")
	update(t, e)
	g2 := gen()
	write(t, root, "a.txt", "three\n")
	os.Remove(filepath.Join(root, "b.txt"))
	update(t, e)
	write(t, root, "b.txt", "b2\n")
	update(t, e)
	aff, err := e.Notes().Affected(ctx, AffectedRequest{Since: &g1})
	if err != nil || len(aff.Notes) != 1 || len(aff.Notes[0].Why) != 2 {
		t.Fatalf("affected %+v %v", aff, err)
	}
	var st []string
	for _, f := range aff.Changed {
		st = append(st, f.URI+":"+f.Status)
	}
	sort.Strings(st)
	if !reflect.DeepEqual(st, []string{"gno://notes/a.txt:modified", "gno://notes/b.txt:modified"}) {
		t.Fatalf("changed %v", st)
	}
	d, err := e.Notes().Diff(ctx, DiffRequest{Ref: "notes/spec.md", Since: &g1})
	if err != nil {
		t.Fatal(err)
	}
	want := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+three\n" +
		"diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+b2\n"
	if d.Diff != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", d.Diff, want)
	}
	own, err := e.Notes().Diff(ctx, DiffRequest{Ref: "notes/a.txt", Since: &g2})
	if err != nil || own.Diff != "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-two\n+three\n" {
		t.Fatalf("own diff %+v %v", own, err)
	}
	if _, err := e.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	own, err = e.Notes().Diff(ctx, DiffRequest{Ref: "notes/a.txt", Since: &g2})
	if err != nil || own.Diff != "" || len(own.Whole) != 1 || own.Whole[0].Content != "three\n" || !strings.Contains(own.Message, "no longer kept") {
		t.Fatalf("own diff after cleanup %+v %v", own, err)
	}
	// Whole texts and changed specs count against the budget: within a
	// tiny one they are named in Omitted, their contents left out.
	write(t, root, "spec.md", "---\ngoverns: [\"*.txt\"]\n---\n# Spec\n\nMore.\n")
	update(t, e)
	full, err := e.Notes().Diff(ctx, DiffRequest{Ref: "notes/spec.md", Since: &g1, BypassCache: true})
	if err != nil || len(full.Whole) != 2 || full.Whole[0].Content == "" || len(full.SpecChanges) != 1 || full.SpecChanges[0].Content == "" || len(full.Omitted) != 0 {
		t.Fatalf("whole texts within the default budget %+v %v", full, err)
	}
	tiny, err := e.Notes().Diff(ctx, DiffRequest{Ref: "notes/spec.md", Since: &g1, BypassCache: true, MaxTokens: 1})
	for _, w := range tiny.Whole {
		if w.Content != "" {
			t.Fatalf("whole text over the budget given: %+v", tiny)
		}
	}
	if err != nil || len(tiny.SpecChanges) != 1 || tiny.SpecChanges[0].Content != "" || len(tiny.Omitted) != 3 {
		t.Fatalf("whole texts within 1 token %+v %v", tiny, err)
	}
}

// Non-ASCII file names come back as they are (not quoted by git), so
// their URIs are not empty; and git output past the cap is an error.
func TestReconcileGitNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed:", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	gitRun(t, root, "init", "-q", "-b", "main")
	write(t, root, "a.md", "# A\n")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-q", "-m", "base")
	gitRun(t, root, "checkout", "-q", "-b", "feature")
	write(t, root, "café.md", "# Café\n")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-q", "-m", "feature")
	ctx := context.Background()
	cs, err := gitChanges(ctx, "main", []*config.Collection{{Name: "n", Path: root}}, true)
	if err != nil || len(cs.files) != 1 || cs.files[0].rel != "café.md" || cs.files[0].URI != ref.URI("n", "café.md") {
		t.Fatalf("changes %+v %v", cs, err)
	}
	out, err := runGit(ctx, root, "diff", "--no-color", "main...HEAD", "--")
	if err != nil {
		t.Fatal(err)
	}
	if parts := splitGitDiff(string(out), "n"); len(parts) != 1 || parts[0].uri != ref.URI("n", "café.md") {
		t.Fatalf("parts %+v", parts)
	}
	if _, err := runGitLimit(ctx, 8, root, "diff", "--no-color", "main...HEAD", "--"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("over the cap: %v", err)
	}
}

// TestAffectedByAttachmentLink: a note that links to a code file the
// collection indexes (a Markdown link relative to the note, or a wikilink
// by name) is affected when the file changes, by "links"; a note linking
// to another file is not.
func TestAffectedByAttachmentLink(t *testing.T) {
	pgtest.Home(t, t.TempDir())
	root := t.TempDir()
	write(t, root, "notes/rel.md", "# Rel\n\nSee [the code](../src/x.go).\n")
	write(t, root, "notes/wiki.md", "# Wiki\n\nSee [[x.go]].\n")
	write(t, root, "notes/other.md", "# Other\n\nSee [[y.go]].\n")
	write(t, root, "src/x.go", "package src\n\nfunc X() {}\n")
	write(t, root, "src/y.go", "package src\n\nfunc Y() {}\n")
	ctx := context.Background()
	e := codeEngine(t, root)
	st, _ := e.store(ctx)
	g1, _ := st.Generation(ctx)
	write(t, root, "src/x.go", "package src\n\nfunc X() int { return 1 }\n")
	update(t, e)
	aff, err := e.Notes().Affected(ctx, AffectedRequest{Since: &g1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range aff.Notes {
		for _, w := range n.Why {
			got = append(got, n.URI+" "+w.By+" "+w.File)
		}
	}
	sort.Strings(got)
	want := []string{"gno://repo/notes/rel.md links gno://repo/src/x.go", "gno://repo/notes/wiki.md links gno://repo/src/x.go"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("affected notes\n got %q\nwant %q", got, want)
	}
}
