package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gnosearch/gno/retrieval/links"
)

// The link index follows a sync by its changes (linkoverlay.go) instead
// of being rebuilt: at a million documents the rebuild read every row and
// link again and held ~1.5 GB beside the daemon's 0.6 GB for a one-file
// sync (bench/RESULTS.md). To know what changed, each write batch of this
// process logs the documents it put or removed under the value of the
// meta "writes" counter it commits; a reader whose cached index is of
// writes W and whose snapshot is of W' applies the batches W+1…W' when
// every one of them is logged. A batch of another process (or a write
// that does not list its documents: a cleanup, a schema upgrade, a
// package's collection replaced) leaves a value unlogged, so the reader
// rebuilds as before: the log can only make the index cheaper, never
// stale.

// linkLogMax bounds the documents the log holds: past it, it forgets
// everything, and the next reader rebuilds.
const linkLogMax = 1 << 17

// linkLog maps a committed writes value to the documents its batch
// changed. A batch that does not list them has no entry: a gap, which
// since reports like another process's batch.
type linkLog struct {
	mu      sync.Mutex
	entries map[int64][]int64
	ids     int
}

func (l *linkLog) put(w int64, ids []int64, all bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.entries == nil || l.ids+len(ids) > linkLogMax || len(l.entries) > linkLogMax/16 {
		l.entries, l.ids = map[int64][]int64{}, 0
	}
	if all {
		return
	}
	l.entries[w] = ids
	l.ids += len(ids)
}

// since returns the documents changed by the batches from+1…to, false
// when one of them is not logged.
func (l *linkLog) since(from, to int64) ([]int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if to <= from || to-from > int64(len(l.entries)) {
		return nil, false
	}
	var ids []int64
	for w := from + 1; w <= to; w++ {
		e, ok := l.entries[w]
		if !ok {
			return nil, false
		}
		ids = append(ids, e...)
	}
	slices.Sort(ids)
	return slices.Compact(ids), true
}

// follows reports whether the batches after idx's writes value up to
// writes are all logged and few enough for idx to follow by an overlay.
func (l *linkLog) follows(idx *LinkIndex, writes string) bool {
	f, err1 := strconv.ParseInt(idx.writes, 10, 64)
	t, err2 := strconv.ParseInt(writes, 10, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	ids, ok := l.since(f, t)
	return ok && idx.canTake(len(ids))
}

// trim forgets the batches up to writes value w: the cache is past them.
func (l *linkLog) trim(w int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, e := range l.entries {
		if k <= w {
			l.ids -= len(e)
			delete(l.entries, k)
		}
	}
}

// batchChanges is what one write batch logs.
type batchChanges struct {
	log    *linkLog
	writes int64
	ids    []int64
	all    bool
}

// begin reads the writes value the batch will commit (bumpWrites ran).
func (c *batchChanges) begin(ctx context.Context, tx *sql.Tx, log *linkLog) error {
	var v string
	if err := tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'writes'").Scan(&v); err != nil {
		return err
	}
	w, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil // not a counter this log can follow: readers rebuild
	}
	c.log, c.writes = log, w
	return nil
}

// touch notes that document id was put or removed.
func (c *batchChanges) touch(id int64) {
	if c.all {
		return
	}
	if len(c.ids) >= linkLogMax {
		c.untrack()
		return
	}
	c.ids = append(c.ids, id)
}

// untrack marks the batch as changing documents it does not list.
func (c *batchChanges) untrack() { c.all, c.ids = true, nil }

// record logs the batch, once it committed.
func (c *batchChanges) record() {
	if c.log != nil {
		c.log.put(c.writes, c.ids, c.all)
	}
}

// changedDoc is a document's row as the link index reads it.
type changedDoc struct {
	meta    DocMeta
	aliases *string
	links   []links.Link
}

// updateLinks returns old (the cached index of an earlier writes value)
// brought to writes by the logged batches between them, reading only the
// rows they changed; nil when they are not all logged or too many
// changed (the caller then rebuilds). Run it in the snapshot of writes.
func (s *Store) updateLinks(ctx context.Context, old *LinkIndex, writes string) (*LinkIndex, error) {
	from, err1 := strconv.ParseInt(old.writes, 10, 64)
	to, err2 := strconv.ParseInt(writes, 10, 64)
	if err1 != nil || err2 != nil {
		return nil, nil
	}
	ids, ok := s.linkLog.since(from, to)
	if !ok || !old.canTake(len(ids)) {
		return nil, nil
	}
	var rows []changedDoc
	err := inChunks(ids, 500, func(in string, args []any) error {
		r, err := s.readChanged(ctx, "WHERE d.id IN ("+in+")", args)
		rows = append(rows, r...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return old.withChanges(writes, ids, rows), nil
}

// readChanged reads the documents where selects, with their links.
func (s *Store) readChanged(ctx context.Context, where string, args []any) ([]changedDoc, error) {
	q := `SELECT d.id, d.collection, d.rel_path, d.hash, d.title, l.aliases, l.links
		FROM documents d LEFT JOIN doc_links l ON l.doc_id = d.id ` + where
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	defer rows.Close()
	var out []changedDoc
	for rows.Next() {
		var c changedDoc
		var data []byte
		if err := rows.Scan(&c.meta.ID, &c.meta.Collection, &c.meta.RelPath, &c.meta.Hash, &c.meta.Title, &c.aliases, &data); err != nil {
			return nil, fmt.Errorf("read links: %w", err)
		}
		if c.aliases != nil {
			ls, err := decodeLinks(data)
			if err != nil {
				return nil, fmt.Errorf("read links of %s/%s: %w (run `gno update --rebuild`)", c.meta.Collection, c.meta.RelPath, err)
			}
			c.links = ls
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	return out, nil
}

// keyOf is links.Key lowered for an alias (as the index keys aliases).
func aliasKey(a string) string { return strings.ToLower(a) }

// Get returns the cached index when it is of writes, else the one load
// builds (under the cache's lock, so concurrent readers build it once).
func (c *LinkCache) Get(writes string, load func() (*LinkIndex, error)) (*LinkIndex, error) {
	return c.get(writes, nil, load)
}

// get is Get that first asks update for the index of writes made from
// the cached one when that is older (nil: it cannot, load builds it).
func (c *LinkCache) get(writes string, update func(old *LinkIndex) (*LinkIndex, error), load func() (*LinkIndex, error)) (*LinkIndex, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if idx := c.idx; idx != nil && idx.writes == writes {
		return idx, nil
	}
	if cur := c.idx; cur != nil && update != nil && olderWrites(cur.writes, writes) {
		idx, err := update(cur)
		if err != nil {
			return nil, err
		}
		if idx != nil {
			c.idx = idx
			return idx, nil
		}
	}
	if cur := c.idx; cur != nil && !olderWrites(writes, cur.writes) {
		// The cached index is stale for every later reader: let it go
		// before the new one is built, so a daemon's re-warm after a sync
		// does not hold both (at 1M documents each is ~0.6 GB); readers
		// that have it keep it alive only until they return.
		c.idx = nil
	}
	idx, err := load()
	if err != nil {
		return nil, err
	}
	// A reader whose snapshot began before a sync committed builds the
	// older index; it keeps it for itself rather than replace the newer
	// one every later reader would then build again.
	if cur := c.idx; cur == nil || !olderWrites(idx.writes, cur.writes) {
		c.idx = idx
	}
	return idx, nil
}

// olderWrites reports whether writes value a comes before b. The counter
// is a decimal integer that every write batch increments (empty before the
// first); a value that is not one is never called older.
func olderWrites(a, b string) bool {
	if a == "" {
		return b != ""
	}
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	return errA == nil && errB == nil && x < y
}
