package retrieval

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// gitNoIndex is `git diff --no-index /dev/null name` in dir (exit status
// 1 means the files differ).
func gitNoIndex(t *testing.T, dir, name string) string {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "diff", "--no-index", "--", os.DevNull, name)
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("git diff --no-index %s: %v", name, err)
	}
	return string(out)
}

// workTreeRepo is a branch with one committed change and, on top of it,
// changes not committed: a governed file edited, one deleted, one new
// (untracked), one new but ignored, and the governing note itself edited.
func workTreeRepo(t *testing.T) (*Engine, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed:", err)
	}
	pgtest.Home(t, t.TempDir())
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	gitRun(t, root, "init", "-q", "-b", "main")
	for name, body := range map[string]string{
		"notes/auth.md":     "---\ngoverns: [src/auth/**]\n---\n# Auth\n\nLogin.\n",
		"src/auth/login.go": "package auth\n\nfunc Login() {}\n",
		"src/auth/token.go": "package auth\n\nfunc Token() {}\n",
		"src/auth/gone.go":  "package auth\n\nfunc Gone() {}\n",
		".gitignore":        "*.gen.go\n",
	} {
		write(t, root, name, body)
	}
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-q", "-m", "base")
	gitRun(t, root, "checkout", "-q", "-b", "feature")
	write(t, root, "src/auth/login.go", "package auth\n\nfunc Login() error { return nil }\n")
	gitRun(t, root, "commit", "-q", "-am", "committed")
	// Not committed:
	write(t, root, "src/auth/token.go", "package auth\n\nfunc Token() string { return \"t\" }\n")
	if err := os.Remove(filepath.Join(root, "src/auth/gone.go")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "src/auth/fresh.go", "package auth\n\nfunc Fresh() {}\n")
	write(t, root, "src/auth/skip.gen.go", "package auth\n")
	write(t, root, "src/auth/blob.go", "\x00\x01\x02")
	write(t, root, "notes/auth.md", "---\ngoverns: [src/auth/**]\n---\n# Auth\n\nLogin and fresh tokens.\n")
	return codeEngine(t, root), root
}

// TestReconcileWorkTree: --base compares the work tree with the merge
// base, so changes not yet committed count (tracked and untracked, the
// governing note's own), and the diff is git's own byte for byte.
func TestReconcileWorkTree(t *testing.T) {
	e, root := workTreeRepo(t)
	ctx := context.Background()
	aff, err := e.Notes().Affected(ctx, AffectedRequest{Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, f := range aff.Changed {
		changed = append(changed, strings.TrimPrefix(f.URI, "gno://repo/")+":"+f.Status)
	}
	want := []string{"notes/auth.md:modified", "src/auth/blob.go:added", "src/auth/fresh.go:added", "src/auth/gone.go:deleted", "src/auth/login.go:modified", "src/auth/token.go:modified"}
	if !reflect.DeepEqual(changed, want) {
		t.Fatalf("changed\n got %v\nwant %v", changed, want)
	}
	if len(aff.Notes) != 1 || len(aff.Notes[0].Why) != 5 {
		t.Fatalf("affected %+v", aff.Notes)
	}
	d, err := e.Notes().Diff(ctx, DiffRequest{Ref: "repo/notes/auth.md", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	// git's own: tracked files against the merge base, the new file
	// against nothing.
	gitDiff := gitRun(t, root, "diff", "--merge-base", "main", "--", "src/auth/gone.go", "src/auth/login.go", "src/auth/token.go")
	fresh := gitNoIndex(t, root, "src/auth/fresh.go")
	if !strings.Contains(fresh, "+func Fresh() {}") {
		t.Fatalf("git's diff of the new file: %q", fresh)
	}
	// Parts come in path order: fresh.go sorts before gone.go.
	if d.Diff != fresh+gitDiff {
		t.Fatalf("diff differs from git's:\n%s\n----\n%s%s", d.Diff, fresh, gitDiff)
	}
	if !reflect.DeepEqual(d.Files, []string{"gno://repo/src/auth/fresh.go", "gno://repo/src/auth/gone.go", "gno://repo/src/auth/login.go", "gno://repo/src/auth/token.go"}) ||
		!reflect.DeepEqual(d.NotDiffed, []NotDiffed{{"gno://repo/src/auth/blob.go", "binary"}}) {
		t.Fatalf("files %v not diffed %v", d.Files, d.NotDiffed)
	}
	if len(d.SpecChanges) != 1 || !strings.Contains(d.SpecChanges[0].Content, "fresh tokens") {
		t.Fatalf("the governing note's uncommitted edit: %+v", d.SpecChanges)
	}
	// A document's own uncommitted diff.
	own, err := e.Notes().Diff(ctx, DiffRequest{Ref: "repo/src/auth/token.go", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if want := gitRun(t, root, "diff", "--merge-base", "main", "--", "src/auth/token.go"); own.Diff != want {
		t.Fatalf("own diff:\n%s\n----\n%s", own.Diff, want)
	}
}

// TestDiffRunsGitOutsideTheSnapshot: no git command of Diff or Affected
// runs while the index's read snapshot is held, and a sync that commits
// while git diffs leaves the answer one state (the snapshot's).
func TestDiffRunsGitOutsideTheSnapshot(t *testing.T) {
	e, root := workTreeRepo(t)
	ctx := context.Background()
	st, err := e.store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// (git commands may run side by side: ran is atomic.)
	var ran atomic.Int32
	synced := false
	hook := func(ctx context.Context, args []string) {
		ran.Add(1)
		if st.Detach(ctx) != ctx {
			t.Errorf("git %v ran inside a read snapshot", args)
		}
		// The text diff runs after the index was read: a sync then
		// changes the note, and must neither wait nor leak into the
		// answer.
		if !synced && args[0] == "diff" && strings.Contains(strings.Join(args, " "), "--no-ext-diff") {
			synced = true
			write(t, root, "notes/auth.md", "---\ngoverns: [src/auth/**]\n---\n# Auth\n\nRewritten meanwhile.\n")
			update(t, e)
		}
	}
	gitHook.Store(&hook)
	defer gitHook.Store(nil)
	if _, err := e.Notes().Affected(ctx, AffectedRequest{Base: "main"}); err != nil || ran.Load() == 0 {
		t.Fatalf("affected: %v (git ran %d times)", err, ran.Load())
	}
	d, err := e.Notes().Diff(ctx, DiffRequest{Ref: "repo/notes/auth.md", Base: "main"})
	if err != nil || !synced {
		t.Fatalf("diff: %v (synced %v)", err, synced)
	}
	if len(d.SpecChanges) != 1 || !strings.Contains(d.SpecChanges[0].Content, "fresh tokens") {
		t.Fatalf("the answer mixes states: %+v", d.SpecChanges)
	}
	if d, err := e.Notes().Diff(ctx, DiffRequest{Ref: "repo/notes/auth.md", Base: "main"}); err != nil || !strings.Contains(d.SpecChanges[0].Content, "meanwhile") {
		t.Fatalf("the next diff: %+v %v", d, err)
	}
}

// TestChangedArtifacts: without a base or a generation, a governing
// note's diff lists the files it governs whose content differs from the
// cursor's cache (the spec's get_changed_artifacts), without diffs; a
// cold cache lists them all, a marked file drops out until it changes.
func TestChangedArtifacts(t *testing.T) {
	e, root := workTreeRepo(t)
	ctx := context.Background()
	listed := func() []string {
		t.Helper()
		d, err := e.Notes().Diff(ctx, DiffRequest{Ref: "repo/notes/auth.md", Exclude: []string{"*.gen.go"}})
		if err != nil {
			t.Fatal(err)
		}
		if d.Diff != "" || len(d.Files) != 0 || d.Message == "" {
			t.Fatalf("artifacts answer %+v", d)
		}
		var out []string
		for _, n := range d.NotDiffed {
			if n.Reason != ReasonChangedSinceCache {
				t.Fatalf("reason %q", n.Reason)
			}
			out = append(out, strings.TrimPrefix(n.URI, "gno://repo/"))
		}
		return out
	}
	all := listed()
	if !reflect.DeepEqual(all, []string{"src/auth/fresh.go", "src/auth/login.go", "src/auth/token.go"}) {
		t.Fatalf("cold cache: %v", all)
	}
	if _, err := e.Notes().MarkReconciled(ctx, MarkRequest{Files: []string{"repo/src/auth/login.go", "repo/src/auth/fresh.go"}}); err != nil {
		t.Fatal(err)
	}
	if got := listed(); !reflect.DeepEqual(got, []string{"src/auth/token.go"}) {
		t.Fatalf("after marking: %v", got)
	}
	write(t, root, "src/auth/login.go", "package auth\n\nfunc Login() error { return errAgain }\n")
	if got := listed(); !reflect.DeepEqual(got, []string{"src/auth/login.go", "src/auth/token.go"}) {
		t.Fatalf("after a change: %v", got)
	}
}
