package gno_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/note"
	"github.com/gnosearch/gno/server"
	"github.com/gnosearch/gno/server/web"
)

// secret is the text of a file outside the collection that hostile paths
// aim at; no answer may ever contain it.
const secret = "TOP-SECRET-OUTSIDE-THE-COLLECTION"

// hostilePaths are paths no write may follow: out of the root, absolute,
// through a symlink out, into hidden or sensitive folders, with characters
// file systems refuse.
var hostilePaths = []string{
	"../escape.md", "a/../../escape.md", "../../outside/secret.md", "/etc/passwd", "/tmp/x.md",
	`..\escape.md`, `a\b.md`, "C:/x.md", "x\x00.md", "x\x01.md", "a:b.md",
	".ssh/keys.md", "a/.git/config.md", ".env.md", "node_modules/x.md", "__pycache__/x.md",
	"link/secret.md", "link/new.md", strings.Repeat("a", 256) + ".md",
}

// vault is a collection root with two notes, a symlink leading out to a
// folder holding the secret, and the engine over it.
type vault struct {
	e       *retrieval.Engine
	root    string
	outside string
}

func newVault(t *testing.T, col config.Collection, files map[string]string) *vault {
	t.Helper()
	t.Setenv("GNO_HOME", t.TempDir())
	dir := t.TempDir()
	v := &vault{root: filepath.Join(dir, "notes"), outside: filepath.Join(dir, "outside")}
	if files == nil {
		files = map[string]string{"a.md": "# A\n\nLinks to [[B]].\n", "b.md": "# B\n\nAbout otters.\n"}
	}
	for rel, body := range files {
		p := filepath.Join(v.root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(v.outside, 0o755)
	os.WriteFile(filepath.Join(v.outside, "secret.md"), []byte(secret+"\n"), 0o644)
	os.MkdirAll(v.root, 0o755)
	if err := os.Symlink(v.outside, filepath.Join(v.root, "link")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	col.Name, col.Path = "notes", v.root
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(col)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Update(ctx, retrieval.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	v.e = e
	return v
}

// untouched fails when anything outside the root changed.
func (v *vault) untouched(t *testing.T) {
	t.Helper()
	entries, _ := os.ReadDir(v.outside)
	if len(entries) != 1 {
		t.Fatalf("the folder outside the collection changed: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(v.outside, "secret.md")); string(b) != secret+"\n" {
		t.Fatalf("the file outside the collection changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(v.root), "escape.md")); err == nil {
		t.Fatal("a file was written outside the collection")
	}
}

// TestOnePathRule: note.Path is the one answer to "is this path safe
// inside this root". Every hostile path is refused by it in every mode,
// and by every note write of the engine (capture, rename, update by
// reference) with the same INVALID_PATH (or, for a reference, NOT_FOUND:
// references name indexed documents, never files); a safe path passes
// them all.
func TestOnePathRule(t *testing.T) {
	v := newVault(t, config.Collection{}, nil)
	ctx := context.Background()
	notes := v.e.Notes()
	for _, p := range hostilePaths {
		for _, mode := range []note.Mode{note.Existing, note.Absent, note.Either} {
			if _, err := note.Path(v.root, p, mode); gnoerr.CodeOf(err) != gnoerr.InvalidPath {
				t.Errorf("note.Path(%q, %v) = %v, want INVALID_PATH", p, mode, err)
			}
		}
		if _, err := notes.Capture(ctx, retrieval.CaptureRequest{Collection: "notes", Path: p, Content: "x", Overwrite: true}); gnoerr.CodeOf(err) != gnoerr.InvalidPath {
			t.Errorf("capture to %q: %v, want INVALID_PATH", p, err)
		}
		if _, err := notes.Rename(ctx, retrieval.RenameNoteRequest{Ref: "notes/b.md", NewPath: p, UpdateLinks: true}); gnoerr.CodeOf(err) != gnoerr.InvalidPath {
			t.Errorf("rename to %q: %v, want INVALID_PATH", p, err)
		}
		body := "changed"
		if _, err := notes.Update(ctx, retrieval.UpdateNoteRequest{Ref: "notes/" + p, Content: &body}); !refused(err) {
			t.Errorf("update of %q: %v, want INVALID_PATH or NOT_FOUND", p, err)
		}
		if res, err := notes.Delete(ctx, retrieval.DeleteNoteRequest{Ref: "notes/" + p}); err == nil && res.Deleted != nil && *res.Deleted {
			t.Errorf("delete of %q deleted %s", p, res.AbsPath)
		}
	}
	v.untouched(t)
	// A safe path passes the same rule everywhere.
	if _, err := note.Path(v.root, "inbox/ok.md", note.Absent); err != nil {
		t.Fatal(err)
	}
	if _, err := notes.Capture(ctx, retrieval.CaptureRequest{Collection: "notes", Path: "inbox/ok.md", Content: "# OK\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := notes.Rename(ctx, retrieval.RenameNoteRequest{Ref: "notes/b.md", NewPath: "moved/b.md", UpdateLinks: true}); err != nil {
		t.Fatal(err)
	}
}

func refused(err error) bool {
	c := gnoerr.CodeOf(err)
	return err != nil && (c == gnoerr.InvalidPath || c == gnoerr.NotFound)
}

// TestHostilePathsRefusedAlike: the front ends refuse the hostile paths
// as the engine does: the MCP write tools with INVALID_PATH, reads by
// reference (MCP, REST, the web app's document page) with INVALID_PATH or
// NOT_FOUND, and no answer ever carries the file outside the collection.
func TestHostilePathsRefusedAlike(t *testing.T) {
	v := newVault(t, config.Collection{}, nil)
	srv := server.New(server.Options{Open: func(context.Context) (*retrieval.Engine, error) { return v.e, nil }, EnableWrite: true})
	defer srv.Close()
	app, err := web.New(web.Options{Backend: srv, EnableWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(app)
	defer ts.Close()
	ctx := context.Background()
	get := func(path string) (int, string) {
		res, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, p := range hostilePaths {
		for _, tc := range []struct {
			tool string
			args map[string]any
		}{
			{"gno_capture", map[string]any{"collection": "notes", "path": p, "content": "x", "overwrite": true}},
			{"gno_rename", map[string]any{"ref": "notes/b.md", "newPath": p, "updateLinks": true}},
		} {
			if _, _, err := srv.Call(ctx, tc.tool, tc.args); gnoerr.CodeOf(err) != gnoerr.InvalidPath {
				t.Errorf("%s to %q: %v, want INVALID_PATH", tc.tool, p, err)
			}
		}
		ref := "notes/" + p
		for _, tool := range []string{"gno_update", "gno_get", "gno_links"} {
			args := map[string]any{"ref": ref}
			if tool == "gno_update" {
				args["content"] = "changed"
			}
			out, text, err := srv.Call(ctx, tool, args)
			if !refused(err) {
				t.Errorf("%s of %q: %v %v, want INVALID_PATH or NOT_FOUND", tool, ref, out, err)
			}
			if strings.Contains(text, secret) {
				t.Errorf("%s of %q answered with the secret", tool, ref)
			}
		}
		for _, path := range []string{"/api/get?ref=" + url.QueryEscape(ref), "/doc?ref=" + url.QueryEscape(ref)} {
			code, body := get(path)
			if code != http.StatusBadRequest && code != http.StatusNotFound {
				t.Errorf("GET %s: status %d, want 400 or 404", path, code)
			}
			if strings.Contains(body, secret) {
				t.Errorf("GET %s answered with the secret", path)
			}
		}
	}
	v.untouched(t)
}

// TestOneIndexRule: ingest.Indexes is the one answer to "does this
// collection index this path". What a sync indexes is exactly the files it
// says yes to, and a capture or a rename to a path it says no to is
// refused (the note would drop out of the index).
func TestOneIndexRule(t *testing.T) {
	files := map[string]string{
		"a.md": "# a\n", "sub/c.md": "# c\n", "drafts/b.md": "# b\n", "sub/drafts/g.md": "# g\n",
		"x.tmp.md": "# x\n", "node_modules/d.md": "# d\n", ".git/e.md": "# e\n", "f.txt": "f\n",
		"deep/er/h.md": "# h\n", "img.png": "png",
	}
	col := config.Collection{Include: []string{"**/*.md"}, Exclude: []string{"drafts/**", "**/*.tmp.md"}}
	v := newVault(t, col, files)
	ctx := context.Background()
	c, _ := v.e.Config().Collection("notes")
	var want []string
	for rel := range files {
		if ingest.Indexes(*c, rel) {
			want = append(want, rel)
		}
	}
	sort.Strings(want)
	entries, err := v.e.List(ctx, "notes", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, en := range entries {
		got = append(got, en.RelPath)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("sync indexed %v; Indexes says %v", got, want)
	}
	if strings.Join(want, " ") != "a.md deep/er/h.md sub/c.md sub/drafts/g.md" {
		t.Errorf("Indexes = %v", want)
	}
	// Writes ask the same rule: a path it refuses is refused, one it
	// takes is written and indexed.
	notes := v.e.Notes()
	for _, rel := range []string{"drafts/new.md", "drafts/deeper/new.md", "sub/new.tmp.md", "new.txt"} {
		if ingest.Indexes(*c, rel) {
			t.Fatalf("Indexes(%q) = true", rel)
		}
		if _, err := notes.Capture(ctx, retrieval.CaptureRequest{Collection: "notes", Path: rel, Content: "# n\n"}); gnoerr.CodeOf(err) != gnoerr.InvalidPath {
			t.Errorf("capture to %q: %v, want INVALID_PATH", rel, err)
		}
		if _, err := notes.Rename(ctx, retrieval.RenameNoteRequest{Ref: "notes/a.md", NewPath: rel, UpdateLinks: true}); gnoerr.CodeOf(err) != gnoerr.InvalidPath {
			t.Errorf("rename to %q: %v, want INVALID_PATH", rel, err)
		}
	}
	res, err := notes.Capture(ctx, retrieval.CaptureRequest{Collection: "notes", Path: "sub/new.md", Content: "# n\n"})
	if err != nil || !res.Indexed || !ingest.Indexes(*c, "sub/new.md") {
		t.Fatalf("capture to an indexed path: %+v %v", res, err)
	}
}
