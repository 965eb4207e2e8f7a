package ingest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/convert"
	"github.com/gnosearch/gno/retrieval/store"
)

// Options tune a sync.
type Options struct {
	// MaxFileBytes skips larger text files (default 10 MiB).
	MaxFileBytes int64
	// MaxDocumentBytes skips larger converted documents (default 64 MiB).
	MaxDocumentBytes int64
	// Chunk sets chunk size and overlap.
	Chunk chunk.Options
	// RunUpdateCmd runs the collection's update command first.
	RunUpdateCmd bool
	// GitPull runs `git pull --ff-only` in the collection root first.
	GitPull bool
	// BatchSize is the number of changed files per transaction.
	BatchSize int
	// Progress, when set, is called as files are processed.
	Progress func(Progress)
	// Limits bound the conversion of one file (PDF, office, mail...).
	Limits convert.Limits
	// SkipLinks leaves links out (to measure what extracting them costs).
	SkipLinks bool
	// Only, when set, limits the sync to these paths (slash-separated,
	// relative to the root): each is added, updated or removed as a full
	// sync would, and no other file is looked at. Note edits use it to
	// re-index what they touched without walking the whole collection.
	Only []string
}

// Progress reports a running sync.
type Progress struct {
	Collection string
	Done       int
	Total      int
}

// Result summarises the sync of one collection.
type Result struct {
	Collection   string         `json:"collection"`
	Added        int            `json:"added"`
	Updated      int            `json:"updated"`
	Unchanged    int            `json:"unchanged"`
	Removed      int            `json:"removed"`
	Skipped      map[string]int `json:"skipped,omitempty"`
	InvalidBytes int            `json:"invalidBytes,omitempty"`
	Errors       []string       `json:"errors,omitempty"`
}

// Changed reports whether the sync changed the index.
func (r *Result) Changed() bool { return r.Added+r.Updated+r.Removed > 0 }

func (r *Result) skip(reason string) {
	if r.Skipped == nil {
		r.Skipped = map[string]int{}
	}
	r.Skipped[reason]++
}

// Skip reasons, as reported in Result.Skipped.
const (
	SkipTooLarge   = "too large"
	SkipBinary     = "binary"
	SkipUnreadable = "unreadable"
	SkipSymlink    = "symlink outside root"
	SkipVanished   = "vanished during scan"
	// SkipUnsupported is a file whose type gno does not convert.
	SkipUnsupported = "unsupported type"
)

// bulkThreshold is the number of files to (re)index from which a sync
// merges the word index once at the end instead of as it goes.
const bulkThreshold = 1000

// segMergeThreshold is the sync size from which the segmented index is
// merged into one segment afterwards (store.MergeSegmented).
const segMergeThreshold = 100

type candidate struct {
	rel     string
	size    int64
	mtimeNS int64
}

// path is the candidate's file: joined when it is read, not for every
// file a walk finds (a million strings that an unchanged sync never used).
func (c candidate) path(col config.Collection) string {
	return filepath.Join(col.Path, filepath.FromSlash(c.rel))
}

// Sync brings the index of col up to date with its folder. gen is the
// generation recorded on every document it changes.
func Sync(ctx context.Context, st store.Backend, col config.Collection, gen int64, opt Options) (*Result, error) {
	res := &Result{Collection: col.Name}
	if opt.MaxFileBytes <= 0 {
		opt.MaxFileBytes = config.DefaultMaxFileBytes
	}
	if opt.MaxDocumentBytes <= 0 {
		opt.MaxDocumentBytes = config.DefaultMaxDocumentBytes
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = 500
	}
	fi, err := os.Stat(col.Path)
	if err != nil || !fi.IsDir() {
		// Never treat a vanished root as "every file was deleted".
		return nil, fmt.Errorf("collection %s: root %s is not available (%v); index left unchanged", col.Name, col.Path, err)
	}
	if opt.GitPull {
		if _, err := os.Stat(filepath.Join(col.Path, ".git")); err == nil {
			if err := runCmd(ctx, col.Path, "git", "pull", "--ff-only"); err != nil {
				res.Errors = append(res.Errors, "git pull: "+err.Error())
			}
		}
	}
	if opt.RunUpdateCmd && col.UpdateCmd != "" {
		if err := runCmd(ctx, col.Path, "sh", "-c", col.UpdateCmd); err != nil {
			res.Errors = append(res.Errors, "update command: "+err.Error())
		}
	}
	// The index's view of the collection is read while the folder is
	// walked: the two are independent, and on an unchanged collection they
	// are the whole sync.
	var (
		states      map[string]store.DocState
		list        *store.StateList
		skips       map[string]store.SkipState
		stateErr    error
		statesReady = make(chan struct{})
	)
	go func() {
		defer close(statesReady)
		if opt.Only != nil {
			// Only the named files are looked at: their rows are enough.
			states, stateErr = st.DocStatesOf(ctx, col.Name, cleanPaths(opt.Only))
		} else {
			// Every row, in the walk's order: merged below.
			list, stateErr = st.DocStateList(ctx, col.Name)
		}
		if stateErr == nil {
			skips, stateErr = st.SkipStates(ctx, col.Name)
		}
	}()
	var cands []candidate
	var unreadable []string // folders the walk, or files Only, could not read
	if opt.Only != nil {
		cands, unreadable = only(col, opt, res)
	} else {
		cands, unreadable, err = walk(ctx, col, opt, res)
	}
	<-statesReady
	if err != nil {
		return nil, err
	}
	if stateErr != nil {
		return nil, stateErr
	}
	if opt.Only != nil {
		// Files outside Only are neither gone nor failed: leave them be.
		keep := map[string]bool{}
		for _, rel := range opt.Only {
			keep[path.Clean(rel)] = true
		}
		for _, rel := range unreadable {
			delete(keep, rel) // unknown, not gone: left as it is
		}
		for rel := range states {
			if !keep[rel] {
				delete(states, rel)
			}
		}
		for rel := range skips {
			if !keep[rel] {
				delete(skips, rel)
			}
		}
	}
	w := &writer{st: st, gen: gen, batchSize: opt.BatchSize, kept: map[string]bool{}, col: col.Name, skips: skips, skipped: map[string]bool{}}
	defer w.rollback()

	// Files whose size and mtime match the index are unchanged without
	// being read; documents no file matches are gone.
	var todo, unnamable []candidate
	var gone []goneDoc
	var indexed []string // of todo, the files that have a document
	triage := func(c candidate, s store.DocState, ok bool) {
		if st.PathProblem(c.rel) != "" {
			unnamable = append(unnamable, c)
			return
		}
		if ok && s.Size == c.size && s.MtimeNS == c.mtimeNS {
			res.Unchanged++
			return
		}
		// A file that failed to convert is not tried again until it
		// changes; it is counted under its reason every sync.
		if s, ok := skips[c.rel]; ok && s.Size == c.size && s.MtimeNS == c.mtimeNS {
			res.skip(s.Reason)
			w.skipped[c.rel] = true
			return
		}
		todo = append(todo, c)
		if ok {
			indexed = append(indexed, c.rel)
		}
	}
	if opt.Only != nil {
		for _, c := range cands {
			s, ok := states[c.rel]
			triage(c, s, ok)
		}
		found := make(map[string]bool, len(cands))
		for _, c := range cands {
			found[c.rel] = true
		}
		for rel, s := range states {
			if !found[rel] {
				gone = append(gone, goneDoc{rel, s.ID})
			}
		}
	} else {
		// The walk and the list are both in byte order of the path: one
		// merge finds the unchanged, the changed and the gone, with no
		// map of every path (bench/RESULTS.md, issue 30).
		// Documents under a folder the walk could not read stay as
		// they are (the folder is reported unreadable), and so do their
		// recorded conversion failures.
		gone = mergeStates(cands, unreadable, list, triage)
		for rel := range skips {
			if under(rel, unreadable) {
				w.skipped[rel] = true
			}
		}
		// The list has no hashes; the changed files that have a document
		// need theirs (an edit that changed nothing is recognised by it).
		states = map[string]store.DocState{}
		if len(indexed) > 0 {
			if states, err = st.DocStatesOf(ctx, col.Name, indexed); err != nil {
				return nil, err
			}
		}
	}
	if len(todo) >= bulkThreshold {
		if err := st.BeginBulk(ctx); err != nil {
			return nil, err
		}
		// Whatever happens, merging comes back on.
		defer st.EndBulk(context.WithoutCancel(ctx))
	}
	if len(todo) >= segMergeThreshold && len(todo) < bulkThreshold {
		// A bulk sync merges at its end; a mid-sized one would leave the
		// segmented index in several segments that every CJK gram seeks.
		// Like EndBulk, it runs once the sync's writes are committed.
		defer st.MergeSegmented(context.WithoutCancel(ctx))
	}
	if err := w.process(ctx, col, todo, states, opt, res); err != nil {
		return nil, err
	}
	if err := w.unnamable(ctx, unnamable, res); err != nil {
		return nil, err
	}
	slices.SortFunc(gone, func(a, b goneDoc) int { return strings.Compare(a.rel, b.rel) })
	for _, g := range gone {
		if err := w.remove(ctx, g.id); err != nil {
			return nil, err
		}
		res.Removed++
	}
	// Forget failures of files that are gone or converted now.
	for rel := range skips {
		if !w.skipped[rel] {
			if err := w.begin(ctx); err != nil {
				return nil, err
			}
			if err := w.batch.DeleteSkip(ctx, col.Name, rel); err != nil {
				return nil, err
			}
		}
	}
	if err := w.commit(); err != nil {
		return nil, err
	}
	return res, nil
}

// cleanPaths cleans the slash-separated paths of Options.Only.
func cleanPaths(rels []string) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = path.Clean(r)
	}
	return out
}

// maxBytes is the size cap of files of format f.
func (o Options) maxBytes(f convert.Format) int64 {
	if f.Kind == convert.KindDocument && o.MaxDocumentBytes > 0 {
		return o.MaxDocumentBytes
	}
	return o.MaxFileBytes
}

func runCmd(ctx context.Context, dir string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 500 {
			msg = msg[len(msg)-500:]
		}
		return fmt.Errorf("%s: %w: %s", name, err, msg)
	}
	return nil
}

// writer applies changes in batches of one transaction each.
type writer struct {
	st        store.Backend
	gen       int64
	batch     store.WriteBatch
	n         int
	batchSize int
	kept      map[string]bool // skipped files whose old entries stay
	col       string
	skips     map[string]store.SkipState // recorded conversion failures
	skipped   map[string]bool            // files still failing this sync
}

func (w *writer) begin(ctx context.Context) error {
	if w.batch != nil {
		return nil
	}
	b, err := w.st.Begin(ctx, w.gen)
	if err != nil {
		return err
	}
	w.batch = b
	return nil
}

func (w *writer) step() error {
	w.n++
	if w.n >= w.batchSize {
		w.n = 0
		return w.commit()
	}
	return nil
}

func (w *writer) commit() error {
	if w.batch == nil {
		return nil
	}
	err := w.batch.Commit()
	w.batch = nil
	if err != nil {
		return fmt.Errorf("commit index batch: %w", err)
	}
	return nil
}

func (w *writer) rollback() {
	if w.batch != nil {
		w.batch.Rollback()
		w.batch = nil
	}
}

func (w *writer) remove(ctx context.Context, id int64) error {
	if err := w.begin(ctx); err != nil {
		return err
	}
	if err := w.batch.Remove(ctx, id); err != nil {
		return err
	}
	return w.step()
}

// process reads, converts and chunks files in parallel and writes them in
// order from one goroutine (SQLite has one writer).
func (w *writer) process(ctx context.Context, col config.Collection, todo []candidate, states map[string]store.DocState, opt Options, res *Result) error {
	// Workers stop with wctx; the write transaction must outlive it, so it
	// uses ctx.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan candidate)
	out := make(chan converted, 64)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				select {
				case out <- convertFile(wctx, col, c, states, w.skips, opt):
				case <-wctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, c := range todo {
			select {
			case jobs <- c:
			case <-wctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()

	done := 0
	for cv := range out {
		done++
		if opt.Progress != nil && (done%64 == 0 || done == len(todo)) {
			opt.Progress(Progress{Collection: col.Name, Done: done, Total: len(todo)})
		}
		old, existed := states[cv.c.rel]
		switch {
		case cv.skip != "":
			res.skip(cv.skip)
			if cv.errMsg != "" && len(res.Errors) < maxErrors {
				res.Errors = append(res.Errors, cv.errMsg)
			}
			if existed && cv.skip == SkipUnreadable {
				w.kept[cv.c.rel] = true
			}
			if cv.failed == nil {
				continue
			}
			w.skipped[cv.c.rel] = true
			if err := w.begin(ctx); err != nil {
				return err
			}
			if err := w.batch.PutSkip(ctx, col.Name, cv.c.rel, *cv.failed); err != nil {
				return err
			}
		case cv.same:
			res.Unchanged++
			if err := w.begin(ctx); err != nil {
				return err
			}
			if err := w.batch.Touch(ctx, old.ID, cv.c.size, cv.c.mtimeNS); err != nil {
				return fmt.Errorf("index %s: %w", cv.c.rel, err)
			}
		default:
			if err := w.begin(ctx); err != nil {
				return err
			}
			if err := w.batch.Put(ctx, cv.doc); err != nil {
				return err
			}
			res.InvalidBytes += cv.doc.InvalidBytes
			if existed {
				res.Updated++
			} else {
				res.Added++
			}
		}
		if err := w.step(); err != nil {
			return err
		}
	}
	return ctx.Err()
}
