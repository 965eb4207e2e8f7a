package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval"
)

func TestCapture(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, true))
	sc := c.toolOK("gno_capture", map[string]any{"collection": "Notes", "title": "Meeting: Q3 plan!", "content": "# Q3\n\nWe plan zebras.\n"})
	if sc["relPath"] != "meeting-q3-plan.md" || sc["created"] != true || sc["indexed"] != true || sc["docid"] == "" {
		t.Fatalf("capture = %v", sc)
	}
	if b, err := os.ReadFile(filepath.Join(f.notes, "meeting-q3-plan.md")); err != nil || string(b) != "# Q3\n\nWe plan zebras.\n" {
		t.Fatalf("file = %q, %v", b, err)
	}
	if rs := c.toolOK("gno_search", map[string]any{"query": "zebras"})["results"].([]any); len(rs) != 1 {
		t.Fatalf("captured document not searchable: %v", rs)
	}
	// Same title again: a new name, never a silent overwrite.
	sc = c.toolOK("gno_capture", map[string]any{"collection": "notes", "title": "Meeting: Q3 plan!", "content": "other"})
	if sc["relPath"] != "meeting-q3-plan-2.md" {
		t.Errorf("second capture = %v", sc)
	}
	// Name from the first heading.
	sc = c.toolOK("gno_capture", map[string]any{"collection": "notes", "content": "intro\n## Über Füchse\ntext"})
	if sc["relPath"] != "über-füchse.md" {
		t.Errorf("heading name = %v", sc["relPath"])
	}
	// Explicit paths.
	sc = c.toolOK("gno_capture", map[string]any{"collection": "notes", "path": "inbox/today", "content": "# Today\n"})
	if sc["relPath"] != "inbox/today.md" || sc["uri"] != "gno://notes/inbox/today.md" {
		t.Errorf("path capture = %v", sc)
	}
	c.toolErr("gno_capture", map[string]any{"collection": "notes", "path": "inbox/today.md", "content": "x"}, "CONFLICT")
	sc = c.toolOK("gno_capture", map[string]any{"collection": "notes", "path": "inbox/today.md", "content": "# New\n", "overwrite": true})
	if sc["overwritten"] != true || sc["created"] != false {
		t.Errorf("overwrite = %v", sc)
	}
	for _, p := range []string{"../escape.md", "/etc/x.md", "a/../../x.md", ".ssh/keys.md", "a/.git/config.md", "node_modules/x.md",
		"x\x00.md", "a/.env", `..\x.md`, "C:/x.md", "notes.txt"} {
		c.toolErr("gno_capture", map[string]any{"collection": "notes", "path": p, "content": "x"}, "INVALID_PATH")
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(f.notes, "link")); err != nil {
		t.Fatal(err)
	}
	c.toolErr("gno_capture", map[string]any{"collection": "notes", "path": "link/x.md", "content": "x"}, "INVALID_PATH")
	c.toolErr("gno_capture", map[string]any{"collection": "nope", "content": "x"}, "NOT_FOUND")
	c.toolErr("gno_capture", map[string]any{"collection": "notes"}, "INVALID_INPUT")
}

func TestWriteLock(t *testing.T) {
	f := newFixture(t)
	s := newTestServer(t, f, true)
	c := startClient(t, s)
	// Another writer (another process, or `gno update`) holds the lock:
	// an engine of its own, whichever store the index is in.
	other, err := retrieval.Open(context.Background(), retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.Writer(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	c.toolErr("gno_capture", map[string]any{"collection": "notes", "content": "x"}, "LOCKED")
	c.toolErr("gno_sync", map[string]any{}, "LOCKED")
	c.toolErr("gno_remove_collection", map[string]any{"collection": "notes"}, "LOCKED")
	c.toolErr("gno_add_collection", map[string]any{"path": t.TempDir()}, "LOCKED")
	lock.Close()
	// The failed attempts left the job slot free.
	job := c.toolOK("gno_sync", map[string]any{})
	waitJob(t, c, job["jobId"].(string), "completed")
}

func waitJob(t *testing.T, c *client, id, want string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
		j := c.toolOK("gno_job_status", map[string]any{"jobId": id})
		if j["status"] != "running" {
			if j["status"] != want {
				t.Fatalf("job %s ended %v, want %s: %v", id, j["status"], want, j)
			}
			return j
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %s still running after 2 minutes", id)
	return nil
}

func TestJobs(t *testing.T) {
	f := newFixture(t)
	s := newTestServer(t, f, true)
	c := startClient(t, s)
	// One job at a time per server.
	if err := s.runner.Reserve(); err != nil {
		t.Fatal(err)
	}
	c.toolErr("gno_sync", map[string]any{}, "JOB_CONFLICT")
	c.toolErr("gno_add_collection", map[string]any{"path": t.TempDir()}, "JOB_CONFLICT")
	s.runner.Release()

	c.toolErr("gno_sync", map[string]any{"collection": "nope"}, "NOT_FOUND")
	c.toolErr("gno_job_status", map[string]any{"jobId": "job_missing"}, "NOT_FOUND")

	// Progress notifications come before the result when a token is sent.
	id := c.request("tools/call", map[string]any{"name": "gno_sync", "arguments": map[string]any{"collection": "notes"},
		"_meta": map[string]any{"progressToken": "tok-1"}})
	res, before := c.wait(id)
	sc := res["result"].(map[string]any)["structuredContent"].(map[string]any)
	if sc["status"] != "completed" || sc["job"].(map[string]any)["result"] == nil {
		t.Fatalf("sync with progress token = %v", sc)
	}
	var progress int
	for _, m := range before {
		if m["method"] == "notifications/progress" {
			p := m["params"].(map[string]any)
			if p["progressToken"] != "tok-1" {
				t.Errorf("progress token = %v", p["progressToken"])
			}
			progress++
		}
	}
	if progress == 0 {
		t.Fatalf("no progress notification before the result; got %v", before)
	}
	if last := before[len(before)-1]; last["method"] != "ping" {
		t.Errorf("the server did not ping between progress and result: %v", last)
	}
	// Without a token the call returns at once and the job is polled.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "w.md"), []byte("# W\n\nwombats\n"), 0o644)
	sc = c.toolOK("gno_add_collection", map[string]any{"path": dir, "name": "Wild"})
	if sc["collection"].(map[string]any)["name"] != "wild" || sc["jobId"] == "" {
		t.Fatalf("add_collection = %v", sc)
	}
	j := waitJob(t, c, sc["jobId"].(string), "completed")
	if j["type"] != "add_collection" || j["finishedAt"] == "" {
		t.Errorf("job = %v", j)
	}
	if rs := c.toolOK("gno_search", map[string]any{"query": "wombats", "collection": "wild"})["results"].([]any); len(rs) != 1 {
		t.Errorf("new collection not searchable: %v", rs)
	}
	c.toolErr("gno_add_collection", map[string]any{"path": dir}, "DUPLICATE")
	c.toolErr("gno_add_collection", map[string]any{"path": "/"}, "INVALID_PATH")
	c.toolErr("gno_add_collection", map[string]any{"path": "~"}, "INVALID_PATH")
	c.toolErr("gno_add_collection", map[string]any{"path": filepath.Join(dir, "missing")}, "PATH_NOT_FOUND")
	jobs := c.toolOK("gno_list_jobs", map[string]any{"limit": 10})
	if len(jobs["recent"].([]any)) != 2 || len(jobs["active"].([]any)) != 0 {
		t.Errorf("list_jobs = %v", jobs)
	}
	if jobs := c.toolOK("gno_list_jobs", map[string]any{"limit": 1}); len(jobs["recent"].([]any)) != 1 {
		t.Errorf("list_jobs limit 1 = %v", jobs)
	}

	sc = c.toolOK("gno_remove_collection", map[string]any{"collection": "WILD"})
	if sc["collection"] != "wild" || sc["removed"] != true {
		t.Errorf("remove = %v", sc)
	}
	c.toolErr("gno_remove_collection", map[string]any{"collection": "wild"}, "NOT_FOUND")
}

func TestTag(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, true))
	sc := c.toolOK("gno_tag", map[string]any{"ref": "gno://notes/alpha.md", "tag": "Review"})
	if tags := sc["tags"].([]any); len(tags) != 1 || tags[0] != "review" {
		t.Errorf("tag add = %v", sc)
	}
	if rs := c.toolOK("gno_search", map[string]any{"query": "fox", "tagsAny": []any{"review"}})["results"].([]any); len(rs) != 1 {
		t.Errorf("tag filter after gno_tag = %v", rs)
	}
	c.toolOK("gno_tag", map[string]any{"ref": "gno://notes/alpha.md", "tag": "review", "action": "remove"})
	c.toolErr("gno_tag", map[string]any{"ref": "gno://notes/alpha.md", "tag": "review", "action": "remove"}, "NOT_FOUND")
	c.toolErr("gno_tag", map[string]any{"ref": "gno://notes/alpha.md", "tag": "x", "action": "toggle"}, "INVALID_INPUT")
	c.toolErr("gno_tag", map[string]any{"ref": "gno://notes/nope.md", "tag": "x"}, "NOT_FOUND")
	if !strings.Contains(c.toolErr("gno_tag", map[string]any{"ref": "gno://notes/alpha.md", "tag": ""}, "INVALID_INPUT"), "tag") {
		t.Error("empty tag message")
	}
}
