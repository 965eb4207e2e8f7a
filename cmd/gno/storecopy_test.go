package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCLIStoreCopy(t *testing.T) {
	c := newCLI(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.md"), []byte("# Alpha\n\nThe quick brown fox.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.md"), []byte("# Beta\n\nLazy dogs sleep.\n"), 0o644)
	c.ok("init")
	c.ok("collection", "add", root, "--name", "docs")
	c.ok("update")
	dst := filepath.Join(t.TempDir(), "index.sqlite")
	// This index: its own SQLite file, or its database on Postgres.
	self := "sqlite"
	if c.store != "" {
		self = c.store
	}
	var res struct {
		Documents, Written, Chunks int
		Searches                   int      `json:"searches_checked"`
		NotCopied                  []string `json:"not_copied"`
	}
	out := c.ok("store", "copy", "--from", self, "--to", dst, "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if res.Documents != 2 || res.Written != 2 || res.Chunks != 2 || res.Searches != 2 || len(res.NotCopied) == 0 {
		t.Fatalf("copy: %s", out)
	}
	// Not a terminal: no progress on stderr.
	out, errOut, code := c.run("store", "copy", "--from", self, "--to", dst)
	if code != 0 || errOut != "" || !strings.Contains(out, "2 already there") {
		t.Fatalf("second copy: exit %d\n%s%s", code, out, errOut)
	}
	// The copy back into this index's own (non-empty) store is refused.
	if _, errOut, code := c.run("store", "copy", "--from", dst, "--to", self); code == 0 || !strings.Contains(errOut, "not empty") {
		t.Fatalf("copy into a non-empty index: exit %d: %s", code, errOut)
	}
	if _, errOut, code := c.run("store", "copy", "--to", dst); code == 0 || !strings.Contains(errOut, "--from SRC --to DST") {
		t.Fatalf("no --from: exit %d: %s", code, errOut)
	}
}
