//go:build !windows

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// updateOut is what the tests read of `gno update --json`.
type updateOut struct {
	Collections []map[string]any `json:"collections"`
	Generation  int64            `json:"generation"`
	Daemon      *struct {
		Watched []string          `json:"watched"`
		Walked  map[string]string `json:"walked"`
	} `json:"daemon"`
}

func (c *dcli) update(args ...string) updateOut {
	c.t.Helper()
	var u updateOut
	out := c.ok(append([]string{"update", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &u); err != nil {
		c.t.Fatalf("update --json: %v: %s", err, out)
	}
	return u
}

// untilWatched runs `gno update` until the daemon answers it from its
// watcher (every collection watched, none walked), for up to a minute.
// It returns that answer and how many updates it ran.
func (c *dcli) untilWatched() (updateOut, int) {
	c.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for n := 1; ; n++ {
		u := c.update()
		if u.Daemon == nil {
			c.t.Fatalf("update not answered by the daemon: %+v", u)
		}
		if len(u.Daemon.Walked) == 0 {
			return u, n
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the daemon still walks after a minute: %+v", u.Daemon.Walked)
		}
	}
}

// TestDaemonUpdate: with a daemon running, `gno update` is answered from
// the daemon's watcher (no walk), reports what an in-process update would,
// sees a file saved just before it (the watcher's barrier, not the quiet
// time), and walks a collection the watcher cannot vouch for, saying why;
// on either store (a daemon refuses --rebuild on both).
func TestDaemonUpdate(t *testing.T) {
	c := newDCLI(t)
	root := vault(t)
	c.ok("collection", "add", root, "--name", "vault")
	c.ok("update")
	// The daemon's own quiet time is set past the test: every change
	// below reaches the index through the update's barrier, never
	// through a sync of the daemon's own that a loaded machine may let
	// in first (with 150 ms it did: the update then found nothing left).
	c.start("--debounce", "1h")
	c.waitIdle()

	// A rescan while the daemon settles (a hook firing as the models
	// warm up) moves the watch epoch, and the next update walks to
	// trust the folder again: ask until one is answered from the watcher.
	served := c.served()
	u, n := c.untilWatched()
	if c.served() != served+n || !reflect.DeepEqual(u.Daemon.Watched, []string{"vault"}) {
		t.Fatalf("update not answered from the watcher: %+v", u)
	}
	local := c.update("--no-daemon")
	if local.Daemon != nil || !reflect.DeepEqual(local.Collections, u.Collections) || local.Generation != u.Generation {
		t.Fatalf("daemon's update %+v, in-process %+v", u, local)
	}
	// Text output: the same lines but the time.
	text := func(args ...string) string {
		out := c.ok(append([]string{"update"}, args...)...)
		return out[:strings.LastIndex(out, ", ")]
	}
	if d, l := text(), text("--no-daemon"); d != l {
		t.Fatalf("text output differs:\n%s\n%s", d, l)
	}

	// A file saved, then at once gno update: the change is in it.
	f, err := os.OpenFile(filepath.Join(root, "beta.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nMore about wombats.\n")
	f.Close()
	os.Remove(filepath.Join(root, "delta.txt"))
	u = c.update()
	got := u.Collections[0]
	if got["updated"] != 1.0 || got["removed"] != 1.0 || got["unchanged"] != 3.0 || u.Daemon == nil {
		t.Fatalf("after an edit and a removal: %+v", u)
	}
	if again := c.update("--no-daemon"); again.Collections[0]["updated"] != 0.0 || again.Collections[0]["removed"] != 0.0 {
		t.Fatalf("the daemon's update left work for a walk: %+v", again)
	}

	// A new folder: files may have landed before its watch, so the
	// collection is walked, and the result says so.
	if err := os.MkdirAll(filepath.Join(root, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "new", "n.md"), []byte("# New\n\nKoalas sleep.\n"), 0o644)
	u = c.update()
	if u.Daemon == nil || u.Collections[0]["added"] != 1.0 || u.Daemon.Walked["vault"] == "" {
		t.Fatalf("after a new folder: %+v", u)
	}
	if again := c.update("--no-daemon"); again.Collections[0]["added"] != 0.0 {
		t.Fatalf("the new folder's file was left for a walk: %+v", again)
	}
	// --rebuild is refused while the daemon runs: it keeps the database
	// open and would go on with the file moved aside.
	served = c.served()
	if r := c.run("update", "--rebuild"); r.code == 0 || !strings.Contains(r.stderr, "gno daemon stop") {
		t.Fatalf("update --rebuild with a daemon running: %+v", r)
	}
	if c.served() != served {
		t.Fatal("the daemon answered update --rebuild")
	}
}
