package retrieval

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
)

// benchRepo builds the reconcile benchmark's repository (as
// bench/reconcile/run.sh does): 9,800 Go files in 200 modules, 200
// governing notes (spec NNN governs src/mNNN/**), a branch "feature"
// touching 50 files, 20 of them in module 000; indexed.
func benchRepo(b *testing.B) (*Engine, string) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed:", err)
	}
	b.Setenv("GNO_HOME", b.TempDir())
	root := b.TempDir()
	put := func(rel, body string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for m := range 200 {
		put(fmt.Sprintf("notes/spec%03d.md", m), fmt.Sprintf("---\ngoverns: [src/m%03d/**]\nsystem: \"[[system]]\"\n---\n# Module %03d\n\nWhat it does.\n", m, m))
		for f := range 49 {
			put(fmt.Sprintf("src/m%03d/f%02d.go", m, f), fmt.Sprintf("package m%03d\n\n// F%02d does thing %d.\nfunc F%02d() int { return %d }\n", m, f, f, f, f))
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-qm", "base")
	git("checkout", "-qb", "feature")
	for f := range 20 {
		put(fmt.Sprintf("src/m000/f%02d.go", f), fmt.Sprintf("package m000\n\n// changed %d\n", f))
	}
	for m := 1; m <= 30; m++ {
		put(fmt.Sprintf("src/m%03d/f00.go", m), "package x\n\n// changed\n")
	}
	git("commit", "-qam", "feature")
	ctx := context.Background()
	e, err := Open(ctx, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "repo", Path: root, Code: true, Pattern: "**/*.{go,md}"})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	if _, err := e.Update(ctx, UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	return e, root
}

// BenchmarkReconcile: warm, in one process (the daemon's or an MCP
// server's): affected for the branch, the diff of a note governing 20
// changed files, a mark of 1,000 files.
func BenchmarkReconcile(b *testing.B) {
	e, _ := benchRepo(b)
	ctx := context.Background()
	var files []string
	for m := range 21 {
		for f := range 49 {
			if len(files) < 1000 {
				files = append(files, fmt.Sprintf("repo/src/m%03d/f%02d.go", m, f))
			}
		}
	}
	b.Run("affected", func(b *testing.B) {
		for b.Loop() {
			if res, err := e.Notes().Affected(ctx, AffectedRequest{Base: "main"}); err != nil || len(res.Changed) != 50 {
				b.Fatal(err, len(res.Changed))
			}
		}
	})
	b.Run("diff20", func(b *testing.B) {
		for b.Loop() {
			if res, err := e.Notes().Diff(ctx, DiffRequest{Ref: "repo/notes/spec000.md", Base: "main", MaxTokens: 100000}); err != nil || len(res.Files) != 20 {
				b.Fatal(err, res.Files, res.Omitted)
			}
		}
	})
	b.Run("mark1000", func(b *testing.B) {
		for b.Loop() {
			if res, err := e.Notes().MarkReconciled(ctx, MarkRequest{Files: files, Cursor: "bench"}); err != nil || res.Updated != 1000 {
				b.Fatal(err)
			}
		}
	})
}
