package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The postings after syncs: a built segment plus a delta.
//
// The postings are built at one point (rebuildImpacts, its read
// snapshot); every sync
// after it rewrites chunks. Rather than drop the postings until the next
// build (a rebuild costs ~4 s of CPU at 100k documents, ~50 s at 1M,
// so a daemon whose watcher syncs would search on FTS5 for minutes after
// every change), the build also installs two triggers on chunks that
// record, in the sync's own transaction, every chunk row inserted or
// deleted since (impacts_changed; a document rewritten under the same ids
// is a delete and an insert). A search then:
//
//   - masks the stale rows in the built postings (they may be gone or
//     hold other words now);
//   - scores the stale rows that exist now from their current text,
//     tokenized as FTS5 does (wordtok, the store's tokenizer), with
//     their current lengths from chunks_fts_docsize;
//   - takes idf from each token's current row count (the built count,
//     less the stale rows of the build it held, plus the stale rows now
//     holding it) and avgdl from FTS5's current averages record.
//
// The stored block bounds (largest frequency, smallest length) bound the
// rows left in a block whatever idf and avgdl are, so MaxScore stays
// exact, and the scores are bm25()'s to the bit as before
// (TestImpactsDeltaExact). The delta is cached per word index state (the
// structure record, rewritten by every write of the word index), so a
// daemon tokenizes the changed rows once per sync, a one-shot search once.
// Past impactDeltaMax stale rows FTS5 answers until the postings are
// rebuilt (gno cleanup, or the daemon when idle). Damaged or inconsistent
// state (a stale row whose tokens do not add up to its length, a row
// count that the stale rows do not explain) falls back to FTS5 too.

// impactDeltaMax is how many chunk rows may change after a build before
// searches go back to FTS5: tokenizing them costs a one-shot search
// about 0.1 ms a row.
const impactDeltaMax = 4096

// impactsDeltaTag starts the meta value of postings built with the delta
// triggers, the posting encoding of appendPosting and the table of
// impactstore.go: "d2 ROWS VERSION", ROWS the word index's row count at
// the build. A value without it (postings of an earlier encoding: "d1 "
// keyed by the token's text, or the first one, built before the delta) is
// not read: searches use FTS5 until the next build, which the next gno
// update or the daemon's idle time does by itself (postingsNeeded).
const impactsDeltaTag = "d2 "

// impactsEpochKey is the meta key of the build epoch: each build counts
// it up before its read snapshot (impactbuild.go), and the triggers stamp
// every changed row with the epoch of its last change, so the build's
// install keeps exactly the rows changed since its snapshot.
const impactsEpochKey = "impacts_epoch"

// impactsDeltaSchema makes the table of changed rows and its triggers;
// built is 1 for a row the build held (its first change was a delete;
// the install sets it from the build's own rows), epoch the build epoch of
// its last change.
var impactsDeltaSchema = []string{
	"CREATE TABLE IF NOT EXISTS impacts_changed(row INTEGER PRIMARY KEY, built INTEGER NOT NULL, epoch INTEGER NOT NULL DEFAULT 0)",
	`CREATE TRIGGER IF NOT EXISTS impacts_ci AFTER INSERT ON chunks BEGIN
	INSERT INTO impacts_changed(row, built, epoch) VALUES(new.id, 0, coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '` + impactsEpochKey + `'), 0))
		ON CONFLICT(row) DO UPDATE SET epoch = excluded.epoch;
END`,
	`CREATE TRIGGER IF NOT EXISTS impacts_cd AFTER DELETE ON chunks BEGIN
	INSERT INTO impacts_changed(row, built, epoch) VALUES(old.id, 1, coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '` + impactsEpochKey + `'), 0))
		ON CONFLICT(row) DO UPDATE SET epoch = excluded.epoch;
END`,
}

// impactDelta is what changed since the build, for one word index state.
type impactDelta struct {
	key    string
	masked map[int64]bool             // every stale row
	built  []int64                    // stale rows the build held, ascending
	post   map[string][]impactPosting // current stale rows by token

	mu   sync.Mutex
	gone map[string]int64 // token → rows of built it held (cached)
}

// deltaCache holds the delta of the last word index state searched.
type deltaCache struct {
	mu sync.Mutex
	d  *impactDelta
}

// parseBuilt splits a delta build's meta value into its row count and
// version; ok is false for postings built before the delta.
func parseBuilt(v string) (rows int64, ver string, ok bool) {
	rest, found := strings.CutPrefix(v, impactsDeltaTag)
	if !found {
		return 0, "", false
	}
	n, ver, found := strings.Cut(rest, " ")
	if !found {
		return 0, "", false
	}
	rows, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return 0, "", false
	}
	return rows, ver, true
}

// impactDeltaFor returns the delta for the word index state ver (read in
// the caller's snapshot), or ok=false when FTS5 must answer: too many
// changed rows, or a state the stale rows do not explain.
func (s *Store) impactDeltaFor(ctx context.Context, built, ver string, builtRows, nRow int64) (*impactDelta, bool, error) {
	key := built + "|" + ver
	s.delta.mu.Lock()
	d := s.delta.d
	s.delta.mu.Unlock()
	if d != nil && d.key == key {
		return d, true, nil
	}
	var n int64
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM impacts_changed").Scan(&n); err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	if n > impactDeltaMax {
		return nil, false, nil
	}
	d = &impactDelta{key: key, masked: map[int64]bool{}, gone: map[string]int64{}}
	rows, err := s.db.QueryContext(ctx, "SELECT row, built FROM impacts_changed ORDER BY row")
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	for rows.Next() {
		var row int64
		var b bool
		if err := rows.Scan(&row, &b); err != nil {
			rows.Close()
			return nil, false, fmt.Errorf("search: %w", err)
		}
		d.masked[row] = true
		if b {
			d.built = append(d.built, row)
		}
	}
	if err := rows.Close(); err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	// The stale rows as they are now: their text and their lengths.
	var texts []rowText
	var spans []sliceRef
	rows, err = s.db.QueryContext(ctx, "SELECT c.id, c.doc_id, c.title, c.headings, c.body, c.start_byte, c.end_byte FROM chunks c WHERE c.id IN (SELECT row FROM impacts_changed) ORDER BY c.id")
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	for rows.Next() {
		var r rowText
		var sp sliceRef
		if err := rows.Scan(&r.id, &sp.doc, &r.title, &r.headings, &r.body, &sp.start, &sp.end); err != nil {
			rows.Close()
			return nil, false, fmt.Errorf("search: %w", err)
		}
		texts = append(texts, r)
		spans = append(spans, sp)
	}
	if err := rows.Close(); err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	// A row kept as a range of its document's content (text.go).
	var refs []sliceRef
	for i, sp := range spans {
		if ref, ok := refFor(sp.doc, texts[i].body, sp.start, sp.end, &texts[i].body); ok {
			refs = append(refs, ref)
		}
	}
	if len(refs) > 0 {
		if err := s.chunkBodies(ctx, refs); err != nil {
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			// A changed row whose document's text cannot be read (a
			// damaged document): FTS5 answers, as it would without the
			// postings, so the damage fails only searches that reach it.
			return nil, false, nil
		}
	}
	lengths := map[int64]int64{}
	rows, err = s.db.QueryContext(ctx, "SELECT id, sz FROM chunks_fts_docsize WHERE id IN (SELECT row FROM impacts_changed)")
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	for rows.Next() {
		var id int64
		var sz []byte
		if err := rows.Scan(&id, &sz); err != nil {
			rows.Close()
			return nil, false, fmt.Errorf("search: %w", err)
		}
		lengths[id] = rowLength(sz)
	}
	if err := rows.Close(); err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	// Every row is the build's, less the stale ones it held, plus the
	// stale ones now present: else the word index changed some other way.
	if builtRows-int64(len(d.built))+int64(len(lengths)) != nRow || len(lengths) != len(texts) {
		return nil, false, nil
	}
	post, counts, err := s.tok.rowPostings(ctx, texts)
	if err != nil {
		// The tokenizer's own in-memory database failed: FTS5 answers.
		return nil, false, nil
	}
	for _, r := range texts {
		if l, ok := lengths[r.id]; !ok || counts[r.id] != l {
			return nil, false, nil
		}
	}
	d.post = post
	s.delta.mu.Lock()
	s.delta.d = d
	s.delta.mu.Unlock()
	return d, true, nil
}

// goneFrom returns how many rows of the build that changed since were in
// a token's built postings (decoding only the blocks that may hold them).
func (d *impactDelta) goneFrom(tok string, data []byte, hdrs []impactBlockHdr) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n, ok := d.gone[tok]; ok {
		return n, nil
	}
	var n int64
	var ps []impactPosting
	bi, dec := 0, -1
	for _, row := range d.built {
		for bi < len(hdrs) && hdrs[bi].last < row {
			bi++
		}
		if bi == len(hdrs) {
			break
		}
		if hdrs[bi].first >= row {
			continue
		}
		if dec != bi {
			var err error
			if ps, err = decodeBlock(data, hdrs[bi], ps[:0]); err != nil {
				return 0, err
			}
			dec = bi
		}
		i := sort.Search(len(ps), func(i int) bool { return ps[i].row >= row })
		if i < len(ps) && ps[i].row == row {
			n++
		}
	}
	d.gone[tok] = n
	return n, nil
}

// candidates returns the changed rows holding any of the tokens and none
// of the excluded ones, each with its frequencies in tokens' order.
func (d *impactDelta) candidates(tokens []*impactToken, excludes [][]string) []impactCand {
	skip := map[int64]bool{}
	for _, t := range excludes {
		for _, p := range d.post[t[0]] {
			skip[p.row] = true
		}
	}
	byRow := map[int64][]uint64{}
	for i, t := range tokens {
		for _, p := range d.post[t.tok] {
			if skip[p.row] {
				continue
			}
			f := byRow[p.row]
			if f == nil {
				f = make([]uint64, len(tokens))
				byRow[p.row] = f
			}
			f[i] = p.f2
		}
	}
	out := make([]impactCand, 0, len(byRow))
	for row, f := range byRow {
		out = append(out, impactCand{row, f})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].row < out[b].row })
	return out
}
