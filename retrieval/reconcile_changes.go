package retrieval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// ChangedFile is one file of a change set.
type ChangedFile struct {
	URI string `json:"uri"`
	// Status is added, modified or deleted (a rename is the old path
	// deleted and the new one added).
	Status string `json:"status"`

	collection, rel string
	// untracked is a file git does not track yet (added in the work
	// tree only).
	untracked bool
}

// changeSet is what changed: on the current branch of each collection's
// git work tree against a base branch, or in the index since a
// generation.
type changeSet struct {
	base  string
	since int64
	files []ChangedFile
	// mergeBase is, per collection, the commit where the current branch
	// left base: the work tree is compared with it.
	mergeBase map[string]string
}

// changed computes the change set of a request: base (a git branch) or
// since (a generation), over one collection or all. With base it runs git
// and reads nothing of the index, so callers run it outside their read
// snapshot (a git diff may take seconds); with since it reads the index
// (in the caller's snapshot).
func (n *Notes) changed(ctx context.Context, base string, since *int64, collection string) (*changeSet, error) {
	switch {
	case base != "" && since != nil:
		return nil, gnoerr.New(gnoerr.InvalidInput, "give a base branch or a generation (since), not both")
	case base != "":
		cols, err := n.collections(collection)
		if err != nil {
			return nil, err
		}
		return gitChanges(ctx, base, cols, collection != "")
	case since != nil:
		if *since < 0 {
			return nil, gnoerr.New(gnoerr.InvalidInput, "since must be a generation (0 or more), not %d", *since)
		}
		if _, err := n.collections(collection); err != nil {
			return nil, err
		}
		return n.indexChanges(ctx, *since, collection)
	}
	return nil, gnoerr.New(gnoerr.InvalidInput, "give a base branch (--base, base) or a generation (--since, since)")
}

// collections is the named collection, or all of them.
func (n *Notes) collections(name string) ([]*config.Collection, error) {
	cfg := n.e.Config()
	if name != "" {
		c, ok := cfg.Collection(name)
		if !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", name)
		}
		return []*config.Collection{c}, nil
	}
	var cols []*config.Collection
	for i := range cfg.Collections {
		cols = append(cols, &cfg.Collections[i])
	}
	return cols, nil
}

// indexChanges is the change set of the index since a generation. A file
// deleted and created again after it is modified.
func (n *Notes) indexChanges(ctx context.Context, since int64, collection string) (*changeSet, error) {
	st, err := n.e.store(ctx)
	if err != nil {
		return nil, err
	}
	changed, err := st.ChangedSince(ctx, collection, since)
	if err != nil {
		return nil, err
	}
	removed, err := st.RemovedSince(ctx, collection, since)
	if err != nil {
		return nil, err
	}
	gone := map[[2]string]bool{}
	for _, r := range removed {
		gone[[2]string{r.Collection, r.RelPath}] = true
	}
	cs := &changeSet{since: since}
	for _, d := range changed {
		status := "modified"
		k := [2]string{d.Collection, d.RelPath}
		if d.AddedGen > since && !gone[k] {
			status = "added"
		}
		delete(gone, k)
		cs.files = append(cs.files, ChangedFile{URI: ref.URI(d.Collection, d.RelPath), Status: status, collection: d.Collection, rel: d.RelPath})
	}
	for _, r := range removed {
		k := [2]string{r.Collection, r.RelPath}
		if gone[k] {
			delete(gone, k)
			cs.files = append(cs.files, ChangedFile{URI: ref.URI(r.Collection, r.RelPath), Status: "deleted", collection: r.Collection, rel: r.RelPath})
		}
	}
	sortChanged(cs.files)
	return cs, nil
}

func sortChanged(files []ChangedFile) {
	sort.Slice(files, func(i, j int) bool { return files[i].URI < files[j].URI })
}

// maxGitOutput bounds what gno reads of one git command's output: past
// it the command is stopped and an error says so, so a huge change set
// cannot exhaust memory.
const maxGitOutput = 64 << 20

// runGit runs git in dir and returns its standard output; a failure says
// what git said. File names come unquoted (core.quotePath=false) so
// non-ASCII names read as they are.
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return runGitLimit(ctx, maxGitOutput, dir, args...)
}

func runGitLimit(ctx context.Context, limit int64, dir string, args ...string) ([]byte, error) {
	return gitExec(ctx, limit, dir, false, args)
}

// gitExec runs git; differ accepts exit status 1, which `git diff
// --no-index` uses to say the files differ.
func gitExec(ctx context.Context, limit int64, dir string, differ bool, args []string) ([]byte, error) {
	if h := gitHook.Load(); h != nil {
		(*h)(ctx, args)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, gnoerr.New(gnoerr.Unavailable, "git is not installed: --base needs the git command; use --since instead")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.quotePath=false", "-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_PAGER=cat")
	stderr := &capWriter{max: 4 << 10}
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("run git %s: %w", args[0], err)
	}
	if err := cmd.Start(); err != nil {
		return nil, gnoerr.New(gnoerr.Runtime, "git %s in %s: %v", args[0], dir, err)
	}
	out, rerr := io.ReadAll(io.LimitReader(pipe, limit+1))
	over := int64(len(out)) > limit
	if over {
		cancel() // stop git rather than read the rest
	}
	err = cmd.Wait()
	switch {
	case over:
		return nil, gnoerr.New(gnoerr.Runtime, "git %s in %s: its output is larger than %d MiB: narrow the change (exclude, or a closer base)", args[0], dir, limit>>20)
	case rerr != nil && err == nil:
		err = rerr
	}
	var exit *exec.ExitError
	if differ && errors.As(err, &exit) && exit.ExitCode() == 1 && ctx.Err() == nil {
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.buf.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, gnoerr.New(gnoerr.Runtime, "git %s in %s: %s", args[0], dir, msg)
	}
	return out, nil
}

// capWriter keeps the first max bytes written to it: git's message is at
// the start of its stderr, and a flood of warnings must not grow memory
// or an error message.
type capWriter struct {
	buf bytes.Buffer
	max int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// gitHook, when set (tests only), runs before every git command with its
// context and arguments.
var gitHook atomic.Pointer[func(ctx context.Context, args []string)]

// checkBase refuses a base that is not a branch or revision name (an
// option, a range, an empty string).
func checkBase(base string) error {
	if strings.HasPrefix(base, "-") || strings.ContainsAny(base, " \t\n\x00") || strings.Contains(base, "..") {
		return gnoerr.New(gnoerr.InvalidInput, "invalid base branch %q", base)
	}
	return nil
}

// inGit reports whether dir is inside a git work tree.
func inGit(ctx context.Context, dir string) bool {
	out, err := runGit(ctx, dir, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// verifyBase checks that base names a commit in dir's repository.
func verifyBase(ctx context.Context, dir, base string) error {
	if _, err := runGit(ctx, dir, "rev-parse", "--verify", "--quiet", base+"^{commit}"); err != nil {
		if gnoerr.Is(err, gnoerr.Unavailable) {
			return err
		}
		return gnoerr.New(gnoerr.NotFound, "base branch %q does not exist in the git repository of %s", base, dir)
	}
	return nil
}

// mergeBase is the commit where HEAD left base in dir's repository, and
// whether dir is inside a git work tree at all. All being well it costs
// one git command; only a failure asks git why (not a repository, no
// such base, no shared history).
func mergeBase(ctx context.Context, dir, base string) (mb string, inRepo bool, err error) {
	out, err := runGit(ctx, dir, "merge-base", base, "HEAD")
	if err == nil {
		return strings.TrimSpace(string(out)), true, nil
	}
	if gnoerr.Is(err, gnoerr.Unavailable) || ctx.Err() != nil {
		return "", false, err
	}
	if !inGit(ctx, dir) {
		return "", false, nil
	}
	if err := verifyBase(ctx, dir, base); err != nil {
		return "", true, err
	}
	return "", true, gnoerr.New(gnoerr.InvalidInput, "base branch %q shares no history with the current branch in %s", base, dir)
}

// gitChanges is the change set of each collection inside a git work tree:
// the work tree (what an agent on a branch sees, committed or not)
// against the commit where the current branch left base, i.e.
// `git diff --merge-base BASE` plus the untracked files `git ls-files
// --others --exclude-standard` lists (git diff leaves them out), limited
// to the collection's folder and to the files it indexes (ingest.Indexes).
// explicit makes a collection outside git an error (it was asked for by
// name); otherwise such collections are left out, and it is an error only
// when none is in git.
func gitChanges(ctx context.Context, base string, cols []*config.Collection, explicit bool) (*changeSet, error) {
	if err := checkBase(base); err != nil {
		return nil, err
	}
	cs := &changeSet{base: base, mergeBase: map[string]string{}}
	found := false
	for _, c := range cols {
		mb, inRepo, err := mergeBase(ctx, c.Path, base)
		if err != nil {
			return nil, err
		}
		if !inRepo {
			if explicit {
				return nil, gnoerr.New(gnoerr.InvalidInput, "collection %s (%s) is not inside a git work tree: --base needs git; use --since GEN", c.Name, c.Path)
			}
			continue
		}
		found = true
		cs.mergeBase[c.Name] = mb
		// The untracked files are listed beside the diff (each walks the
		// work tree; on two cores together they take the time of one).
		var untracked []byte
		var uerr error
		listed := make(chan struct{})
		go func() {
			defer close(listed)
			untracked, uerr = runGit(ctx, c.Path, "ls-files", "--others", "--exclude-standard", "-z", "--", ".")
		}()
		out, err := runGit(ctx, c.Path, "diff", "--no-color", "--name-status", "-z", "--no-renames", "--relative", mb, "--")
		<-listed
		if err == nil {
			err = uerr
		}
		if err != nil {
			return nil, err
		}
		add := func(status, name string, untracked bool) {
			rel, err := ref.CleanRel(name)
			if err != nil || !ingest.Indexes(*c, rel) {
				return // a name gno could not address, or a file the collection does not index
			}
			cs.files = append(cs.files, ChangedFile{URI: ref.URI(c.Name, rel), Status: status, collection: c.Name, rel: rel, untracked: untracked})
		}
		f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		for i := 0; i+1 < len(f); i += 2 {
			status := "modified"
			switch f[i] {
			case "A":
				status = "added"
			case "D":
				status = "deleted"
			}
			add(status, f[i+1], false)
		}
		for _, name := range strings.Split(strings.TrimSuffix(string(untracked), "\x00"), "\x00") {
			if name != "" {
				add("added", name, true)
			}
		}
	}
	if !found {
		return nil, gnoerr.New(gnoerr.InvalidInput, "no collection is inside a git work tree: --base needs git; use --since GEN")
	}
	sortChanged(cs.files)
	return cs, nil
}

// governingNotes reads the declarations of every governing note, and the
// warnings of its refused globs.
func governingNotes(ctx context.Context, st store.Backend) ([]*store.GoverningNote, []string, error) {
	notes, err := st.GoverningNotes(ctx)
	if err != nil {
		return nil, nil, err
	}
	var warn []string
	for _, g := range notes {
		for _, gv := range g.Declares.Governs {
			if gv.Problem != "" {
				warn = append(warn, ref.URI(g.Collection, g.RelPath)+": governs "+quote(globLabel(gv, g.Collection))+" refused: "+gv.Problem)
			}
		}
	}
	return notes, warn, nil
}

// globLabel is a governs glob as its note would write it: with its
// collection only when that is another one.
func globLabel(g links.Govern, own string) string {
	if g.Collection == own {
		g.Collection = ""
	}
	return g.String()
}

func quote(s string) string { return "\"" + s + "\"" }
