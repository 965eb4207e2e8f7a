package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/models"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

func TestEmbedLine(t *testing.T) {
	p := retrieval.EmbedProgress{Done: 1234, Total: 100000, ChunksPerSec: 24.6}
	if got := embedLine(p, 0); got != "embedding 1234/100000 chunks (1.2%) · 25 chunks/s · estimating time left" {
		t.Errorf("no ETA yet: %q", got)
	}
	for d, want := range map[time.Duration]string{
		45 * time.Second:                "45s",
		90 * time.Minute:                "90m",
		3*time.Hour + 25*time.Minute:    "3h25m",
		119*time.Second + time.Second/2: "120s",
	} {
		if got := roundETA(d); got != want {
			t.Errorf("roundETA(%v) = %q, want %q", d, got, want)
		}
	}
	if percent(5, 0) != "100%" || percent(50, 100) != "50%" || percent(99, 100) != "99%" {
		t.Errorf("percent")
	}
	var b bytes.Buffer
	m := &embedMeter{w: &b}
	m.update(retrieval.EmbedProgress{Done: 32, Total: 64})
	m.update(retrieval.EmbedProgress{Done: 64, Total: 64, ETA: time.Second}) // the last is always drawn
	m.finish()
	if s := b.String(); strings.Count(s, "\r\033[K") != 3 || !strings.Contains(s, "64/64") {
		t.Errorf("meter wrote %q", s)
	}
}

// TestEmbedQuietOffATerminal: `gno embed` with stderr a pipe, or with
// --json, writes no progress line.
func TestEmbedQuietOffATerminal(t *testing.T) {
	dir, err := models.DefaultDir()
	if err != nil {
		t.Skip(err)
	}
	if _, err := (models.Cache{Dir: dir}).Installed(models.DefaultEmbedder); err != nil {
		t.Skipf("%s not installed (run `make models`): %v", models.DefaultEmbedder, err)
	}
	home, notes, st := t.TempDir(), t.TempDir(), pgtest.Store(t)
	for _, n := range []string{"a", "b", "c"} {
		if err := os.WriteFile(filepath.Join(notes, n+".md"), []byte("# "+n+"\n\nsome text about "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, string) {
		cmd := exec.Command(gnoBin, args...)
		cmd.Env = append(append(os.Environ(), pgtest.Env(home, st)...), "GNO_MODELS_DIR="+dir)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("gno %v: %v: %s", args, err, e.String())
		}
		return o.String(), e.String()
	}
	run("collection", "add", notes, "--name", "notes")
	run("update")
	out, errOut := run("embed", "--force")
	if strings.Contains(errOut, "chunks/s") || !strings.Contains(out, "embedded 3 chunks") {
		t.Fatalf("off a terminal: stdout %q stderr %q", out, errOut)
	}
	out, errOut = run("embed", "--force", "--json")
	if errOut != "" || !strings.Contains(out, `"embedded": 3`) {
		t.Fatalf("--json: stdout %q stderr %q", out, errOut)
	}
}
