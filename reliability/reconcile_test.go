package reliability

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// TestCrashMark kills `gno reconcile mark` at random points: the reconcile
// cache then holds all of that mark or none of it (one transaction), the
// index stays whole, and no user file changes (marking reads them only).
//
// Short: 3 kills. Full (-full): 30.
func TestCrashMark(t *testing.T) {
	docs := corpus(7, 12)
	docs["spec.md"] = "---\ngoverns: [\"**/*.md\"]\n---\n# Spec\n"
	e := newEnv(t, docs)
	e.mustGno("update", "--no-update-cmd")
	var files []string
	for rel := range docs {
		if rel != "spec.md" {
			files = append(files, filepath.Join(e.notes, filepath.FromSlash(rel)))
		}
	}
	sort.Strings(files)
	before := treeDigest(t, e.notes)
	rng := rand.New(rand.NewPCG(7, 29))
	k := &killer{est: map[string]time.Duration{}}
	kills := 0
	for round := 0; kills < pick(3, 30) && round < pick(20, 200); round++ {
		e.mustGno("reconcile", "clear", "--cursor", "c")
		killed, took := killAt(t, e, k.delay(rng, "mark"), append([]string{"reconcile", "mark", "--cursor", "c"}, files...)...)
		if killed {
			kills++
		} else {
			k.finished("mark", took)
		}
		checkWhole(t, e)
		r := e.mustGno("--json", "diff", "notes/spec.md", "--since", "0", "--cursor", "c", "--max-tokens", "100000")
		var d struct{ Skipped, Files []string }
		if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
			t.Fatalf("diff JSON: %v %s", err, r)
		}
		if n := len(d.Skipped); n != 0 && n != len(files) {
			t.Fatalf("round %d (killed %v after %s): %d of %d files marked: a half-written mark", round, killed, took, n, len(files))
		}
		if !killed && len(d.Skipped) != len(files) {
			t.Fatalf("round %d: a finished mark left %d of %d files marked", round, len(d.Skipped), len(files))
		}
	}
	if msg := sameTree(before, treeDigest(t, e.notes)); msg != "" {
		t.Fatalf("marking changed a user file: %s", msg)
	}
	t.Logf("crash mark: %d kills", kills)
}
