package web

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// decode parses a JSON body or fails the test.
func decode(t *testing.T, body string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, body)
	}
	return m
}

// TestWorkspaceReads: the workspace's read endpoints, their status codes
// and JSON shapes.
func TestWorkspaceReads(t *testing.T) {
	v := newEnv(t, Options{EnableWrite: true}, nil)
	for _, tc := range []struct {
		path string
		code int
		keys []string
	}{
		{"/api/note?ref=notes/animals/foxes.md", 200, []string{"hash", "body", "frontMatter", "props", "editable", "uri", "docid"}},
		{"/api/note?ref=notes/nope.md", 404, []string{"error"}},
		{"/api/note?ref=" + url.QueryEscape("../secret.md"), 404, []string{"error"}},
		{"/api/complete?text=fox", 200, []string{"completions"}},
		{"/api/complete?text=Foxes%23fox&from=notes/index.md", 200, []string{"completions"}},
		{"/api/complete?text=x&collection=nope", 404, []string{"error"}},
		{"/api/palette?q=fox", 200, []string{"notes", "hits", "took"}},
		{"/api/palette?q=", 200, []string{"notes", "hits"}},
		{"/api/tree", 200, []string{"folders"}},
		{"/api/tree?collection=notes&dir=animals&depth=0", 200, []string{"folders"}},
		{"/api/tree?collection=notes&dir=nope", 404, []string{"error"}},
		{"/api/tree?depth=-1", 400, []string{"error"}},
		{"/api/templates?collection=notes", 200, []string{"templates"}},
		{"/api/templates", 400, []string{"error"}},
		{"/api/note/rename-plan?ref=notes/animals/foxes.md&newPath=animals/vulpes.md", 200, []string{"from", "to", "files", "linksUpdated"}},
		{"/api/note/rename-plan?ref=notes/animals/foxes.md&newPath=" + url.QueryEscape("../outside.md"), 400, []string{"error"}},
		{"/api/note/rename-plan?ref=notes/animals/foxes.md&newPath=tea.md", 409, []string{"error"}},
	} {
		code, body := v.get(t, tc.path)
		if code != tc.code {
			t.Errorf("%s: %d, want %d: %s", tc.path, code, tc.code, body)
			continue
		}
		m := decode(t, body)
		for _, k := range tc.keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: no %q in %s", tc.path, k, body)
			}
		}
	}
	_, body := v.get(t, "/api/complete?text=fox")
	if c := decode(t, body)["completions"].([]any); len(c) == 0 || c[0].(map[string]any)["insert"] != "foxes" {
		t.Errorf("complete fox: %s", body)
	}
	_, body = v.get(t, "/api/complete?text=Foxes%23fox&from=notes/index.md")
	if c := decode(t, body)["completions"].([]any); len(c) != 1 || c[0].(map[string]any)["insert"] != "Foxes#Foxes" {
		t.Errorf("complete a heading: %s", body)
	}
	_, body = v.get(t, "/api/palette?q=dens")
	hits := decode(t, body)["hits"].([]any)
	if len(hits) == 0 {
		t.Fatalf("palette dens: %s", body)
	}
	marked := false
	for _, s := range hits[0].(map[string]any)["snippet"].([]any) {
		seg := s.(map[string]any)
		if seg["m"] == true && strings.EqualFold(seg["t"].(string), "dens") {
			marked = true
		}
	}
	if !marked {
		t.Errorf("palette snippet has no marked match: %s", body)
	}
	_, body = v.get(t, "/api/note/rename-plan?ref=notes/animals/foxes.md&newPath=animals/vulpes.md")
	if !strings.Contains(body, `"before":"[Foxes](animals/foxes.md)","after":"[Foxes](animals/vulpes.md)"`) {
		t.Errorf("rename plan: %s", body)
	}
	code, body := v.post(t, "/api/note/preview", `{"ref":"gno://notes/x.md","body":"# Hi <script>x</script>\n[a](javascript:alert(1))"}`)
	if code != 200 || !strings.Contains(body, "<h1") || strings.Contains(body, "<script>") || strings.Contains(body, "javascript:") {
		t.Errorf("preview: %d %s", code, body)
	}
	if code, _ := v.post(t, "/api/note/preview", `not json`); code != 400 {
		t.Errorf("preview of a bad body: %d", code)
	}
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/browse", 200, `id="tree"`},
		{"/browse?c=notes", 200, `id="files"`},
		{"/browse?c=notes&dir=animals", 200, "Foxes"},
		{"/browse?c=notes&dir=nope", 404, "no folder"},
		{"/tags", 200, `id="tagtree"`},
		{"/?tags=animals", 200, "Foxes"},
		{"/?q=fox&fragment=1", 200, `id="results"`},
		{"/edit?ref=notes/animals/foxes.md", 200, `id="ed-body"`},
		{"/edit?ref=notes/nope.md", 404, "not found"},
		{"/file?ref=notes/tea.md", 400, "is a note"},
		{"/file?ref=notes/nope.pdf", 404, "not found"},
	} {
		code, body := v.get(t, tc.path)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want %d with %q", tc.path, code, tc.code, tc.want)
		}
	}
	if _, body := v.get(t, "/?q=fox&fragment=1"); strings.Contains(body, "<html") {
		t.Error("a fragment holds a whole page")
	}
	// The document view shows front matter as properties, not YAML.
	if _, body := v.get(t, "/doc?ref=notes/animals/foxes.md"); !strings.Contains(body, `<dl class="blk props" id="L1"`) || strings.Contains(body, "tags: [animals") {
		t.Errorf("front matter not shown as properties")
	}
	off := newEnv(t, Options{}, nil)
	if code, body := off.get(t, "/edit?ref=notes/tea.md"); code != 400 || !strings.Contains(body, "--enable-write") {
		t.Errorf("editor without --enable-write: %d", code)
	}
}

// treeHash fingerprints every file under dir (names and bytes).
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[p] = b
		names = append(names, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n + "\x00"))
		h.Write(files[n])
	}
	return string(h.Sum(nil))
}

// writeBodies are valid bodies of every workspace write endpoint.
var writeBodies = map[string]string{
	"POST /api/note/save":          `{"ref":"notes/tea.md","force":true,"body":"# Tea\n\nchanged\n"}`,
	"POST /api/note/rename":        `{"ref":"notes/tea.md","newPath":"drinks/tea.md"}`,
	"POST /api/note/delete":        `{"ref":"notes/tea.md"}`,
	"POST /api/capture":            `{"collection":"notes","title":"Captured"}`,
	"POST /api/collections":        `{"path":"/tmp","name":"tmp"}`,
	"POST /api/collections/remove": `{"collection":"notes"}`,
}

// TestWorkspaceWritesGuarded: every write endpoint of the workspace is
// refused without --enable-write, without or with a wrong CSRF token,
// from a foreign Origin or a cross-site fetch; nothing is written.
func TestWorkspaceWritesGuarded(t *testing.T) {
	off := newEnv(t, Options{}, nil)
	v := newEnv(t, Options{EnableWrite: true}, nil)
	routes := workspaceWrites(v.app)
	if len(routes) != len(writeBodies) {
		t.Fatalf("%d write routes, %d bodies: test every one", len(routes), len(writeBodies))
	}
	before, offBefore := treeHash(t, filepath.Dir(v.notes)), treeHash(t, off.notes)
	tok := v.app.CSRFToken()
	for route := range routes {
		p := strings.TrimPrefix(route, "POST ")
		body, ok := writeBodies[route]
		if !ok {
			t.Fatalf("no body for %s", route)
		}
		if code, resp := off.post(t, p, body, CSRFHeader, off.app.CSRFToken()); code != 403 || !strings.Contains(resp, "--enable-write") {
			t.Errorf("%s without --enable-write: %d %s", p, code, resp)
		}
		for _, hdr := range [][]string{
			nil,
			{CSRFHeader, "wrong"},
			{CSRFHeader, tok, "Origin", "http://evil.example"},
			{CSRFHeader, tok, "Origin", "null"},
			{CSRFHeader, tok, "Sec-Fetch-Site", "cross-site"},
			{CSRFHeader, tok, "Sec-Fetch-Site", "same-site"},
		} {
			if code, resp := v.post(t, p, body, hdr...); code != 403 {
				t.Errorf("%s with %v: %d, want 403 (%s)", p, hdr, code, resp)
			}
		}
	}
	if treeHash(t, filepath.Dir(v.notes)) != before || treeHash(t, off.notes) != offBefore {
		t.Error("a refused write changed files")
	}
}

// TestWorkspaceWrites: save (with its conflict), rename, delete, capture
// from a template, and collections, through the REST API.
func TestWorkspaceWrites(t *testing.T) {
	v := newEnv(t, Options{EnableWrite: true}, nil)
	tok := v.app.CSRFToken()
	post := func(p, body string) (int, map[string]any) {
		t.Helper()
		code, resp := v.post(t, p, body, CSRFHeader, tok, "Origin", v.ts.URL)
		return code, decode(t, resp)
	}
	_, body := v.get(t, "/api/note?ref=notes/animals/foxes.md")
	n := decode(t, body)
	hash := n["hash"].(string)
	save := func(h, text string) (int, map[string]any) {
		b, _ := json.Marshal(map[string]any{"ref": "notes/animals/foxes.md", "baseHash": h, "body": text,
			"props": []map[string]any{{"key": "title", "kind": "text", "value": "Vulpes"}}})
		return post("/api/note/save", string(b))
	}
	code, res := save(hash, "# Foxes\n\nFoxes nap in meadows of clover.\n")
	if code != 200 || res["changed"] != true || res["indexed"] != true || res["hash"] == hash {
		t.Fatalf("save: %d %v", code, res)
	}
	raw, _ := os.ReadFile(filepath.Join(v.notes, "animals/foxes.md"))
	if string(raw) != "---\ntags: [animals, wild]\ntitle: Vulpes\n---\n# Foxes\n\nFoxes nap in meadows of clover.\n" {
		t.Errorf("file after save: %q", raw)
	}
	if _, body := v.get(t, "/api/search?q=clover"); !strings.Contains(body, "foxes.md") {
		t.Errorf("saved text not searchable: %s", body)
	}
	// The file changes on disk; a save on the old hash is refused with a diff.
	disk := "---\ntags: [animals, wild]\ntitle: Vulpes\n---\n# Foxes\n\nSomeone else wrote this.\n"
	if err := os.WriteFile(filepath.Join(v.notes, "animals/foxes.md"), []byte(disk), 0o644); err != nil {
		t.Fatal(err)
	}
	code, res = save(res["hash"].(string), "# Foxes\n\nMy version.\n")
	if code != 409 || res["error"].(map[string]any)["code"] != "CONFLICT" || res["current"].(map[string]any)["body"] != "# Foxes\n\nSomeone else wrote this.\n" {
		t.Fatalf("stale save: %d %v", code, res)
	}
	diff, _ := json.Marshal(res["diff"])
	if !strings.Contains(string(diff), `{"op":"-","text":"Someone else wrote this."}`) || !strings.Contains(string(diff), `{"op":"+","text":"My version."}`) {
		t.Errorf("conflict diff: %s", diff)
	}
	if raw, _ := os.ReadFile(filepath.Join(v.notes, "animals/foxes.md")); string(raw) != disk {
		t.Error("a refused save changed the file")
	}
	if code, res = post("/api/note/save", `{"ref":"notes/animals/foxes.md","body":"x"}`); code != 400 {
		t.Errorf("save without baseHash: %d %v", code, res)
	}
	// Rename with the links rewritten; a path out of the root is refused.
	if code, res = post("/api/note/rename", `{"ref":"notes/animals/foxes.md","newPath":"../outside.md"}`); code != 400 || res["error"].(map[string]any)["code"] != "INVALID_PATH" {
		t.Errorf("rename out of the root: %d %v", code, res)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(v.notes), "outside.md")); err == nil {
		t.Fatal("a file was written outside the root")
	}
	code, res = post("/api/note/rename", `{"ref":"notes/animals/foxes.md","newPath":"animals/vulpes.md"}`)
	if code != 200 || res["uri"] != "gno://notes/animals/vulpes.md" || res["linksUpdated"] != 1.0 {
		t.Fatalf("rename: %d %v", code, res)
	}
	if raw, _ := os.ReadFile(filepath.Join(v.notes, "index.md")); !strings.Contains(string(raw), "[Foxes](animals/vulpes.md)") {
		t.Errorf("index.md after rename: %s", raw)
	}
	// Capture, from a template in templates/.
	if err := os.MkdirAll(filepath.Join(v.notes, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v.notes, "templates/Daily.md"), []byte("# {{title}}\n\nDay {{date}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, res = post("/api/sync", `{"collection":"notes"}`); code != 200 {
		t.Fatalf("sync: %d %v", code, res)
	}
	waitJobs(t, v)
	_, body = v.get(t, "/api/templates?collection=notes")
	if !strings.Contains(body, `"name":"Daily","uri":"gno://notes/templates/Daily.md"`) {
		t.Fatalf("templates: %s", body)
	}
	code, res = post("/api/capture", `{"collection":"notes","title":"Otters","template":"gno://notes/templates/Daily.md"}`)
	if code != 200 || res["uri"] != "gno://notes/otters.md" {
		t.Fatalf("capture: %d %v", code, res)
	}
	if raw, _ := os.ReadFile(filepath.Join(v.notes, "otters.md")); !strings.HasPrefix(string(raw), "# Otters\n\nDay 20") {
		t.Errorf("captured from the template: %q", raw)
	}
	if code, res = post("/api/capture", `{"collection":"notes","title":"x","template":"gno://notes/tea.md"}`); code != 400 {
		t.Errorf("a template outside templates/: %d %v", code, res)
	}
	if code, res = post("/api/capture", `{"collection":"notes","title":"Otters"}`); code != 200 || res["uri"] != "gno://notes/otters-2.md" {
		t.Errorf("a second capture of a title: %d %v", code, res)
	}
	// Delete.
	code, res = post("/api/note/delete", `{"ref":"notes/otters-2.md"}`)
	if code != 200 || res["deleted"] != true {
		t.Fatalf("delete: %d %v", code, res)
	}
	if _, err := os.Stat(filepath.Join(v.notes, "otters-2.md")); err == nil {
		t.Error("deleted note still on disk")
	}
	// Collections: add one (a job indexes it), remove it.
	extra := filepath.Join(t.TempDir(), "extra")
	if err := os.MkdirAll(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(extra, "okapi.md"), []byte("# Okapi\n\nAn okapi was seen.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{"path": extra, "name": "extra"})
	code, res = post("/api/collections", string(b))
	if code != 200 || res["jobId"] == "" || res["collection"].(map[string]any)["name"] != "extra" {
		t.Fatalf("add collection: %d %v", code, res)
	}
	waitJobs(t, v)
	if _, body := v.get(t, "/api/search?q=okapi"); !strings.Contains(body, "gno://extra/okapi.md") {
		t.Errorf("the new collection's note is not found: %s", body)
	}
	if code, res = post("/api/collections/remove", `{"collection":"extra"}`); code != 200 {
		t.Errorf("remove collection: %d %v", code, res)
	}
	if code, res = post("/api/collections", `{"path":"/"}`); code != 400 {
		t.Errorf("adding / as a collection: %d %v", code, res)
	}
}

// waitJobs waits until no job runs. The deadline only ends a hung job's
// test: on busy cores (CI runs every package at once) a job's time has
// no useful bound, and 600 polls of 100 ms were one.
func waitJobs(t *testing.T, v *env) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); sleep() {
		if active, _, err := v.srv.Jobs(context.Background(), 1); err == nil && len(active) == 0 {
			return
		}
	}
	t.Fatal("job still running after 5 minutes")
}

func sleep() { time.Sleep(100 * time.Millisecond) }

// TestWikiLinks: [[links]] render as links that /go resolves, their text
// shown as written, code left alone, line anchors kept.
func TestWikiLinks(t *testing.T) {
	out, err := renderMarkdown("# T\n\nSee [[Foxes]] and [[tea|<b>hot</b> *drink*]].\n\n`[[code]]`\n\nlast\n", "notes", "index.md", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	html := string(out.HTML)
	for _, want := range []string{`href="/go?from=notes%2Findex.md&amp;to=Foxes">Foxes</a>`, `&lt;b&gt;hot&lt;/b&gt; *drink*</a>`, `<code>[[code]]</code>`, `id="L7"`} {
		if !strings.Contains(html, want) {
			t.Errorf("rendered lacks %q:\n%s", want, html)
		}
	}
	v := newEnv(t, Options{}, nil)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(v.ts.URL + "/go?from=notes%2Findex.md&to=foxes")
	if err != nil || res.StatusCode != 302 || res.Header.Get("Location") != "/doc?ref=gno%3A%2F%2Fnotes%2Fanimals%2Ffoxes.md" {
		t.Errorf("/go: %v %v", err, res)
	}
	if code, body := v.get(t, "/go?from=notes%2Findex.md&to=nowhere"); code != 404 || !strings.Contains(body, "no note is named") {
		t.Errorf("/go to nothing: %d", code)
	}
}
