package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// When the block-max postings (impacts.go) are built outside gno cleanup:
// a first gno update, a daemon's idle time.

// BuildPostings builds the word index's block-max postings when they
// were never built or were built in the first encoding (before the delta,
// impactdelta.go), and with behind also when more than half of impactDeltaMax
// rows changed since (a rebuild costs in proportion to the whole index:
// the daemon does it when idle, a one-shot gno update only for a missing
// build). It reports progress (token instances read of all) and whether
// it built. The build reads and encodes in a read snapshot and takes the
// database's writer only for two short transactions (buildImpactsWith): a
// sync can commit meanwhile, and its rows join the delta.
func (s *Store) BuildPostings(ctx context.Context, behind bool, progress func(done, total int)) (bool, error) {
	need, err := s.postingsNeeded(ctx, behind)
	if err != nil || !need {
		return false, err
	}
	if _, err := s.buildImpactsWith(ctx, progress); err != nil {
		if errors.Is(err, errImpactsSuperseded) {
			return false, nil
		}
		// A word index that disagrees with its row lengths is said, not
		// swallowed: searches keep FTS5 meanwhile, and the caller warns
		// (else every idle turn would redo the build in silence).
		if errors.Is(err, errImpactsDisagree) {
			return false, fmt.Errorf("%w; searches use the word index directly (gno doctor checks it)", err)
		}
		return false, err
	}
	return true, nil
}

// postingsNeeded says whether BuildPostings has work: an index with rows
// whose postings are missing, out of date, or far behind.
func (s *Store) postingsNeeded(ctx context.Context, behind bool) (bool, error) {
	var built sql.NullString
	var rows, stale int64
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = ?),
		(SELECT count(*) FROM (SELECT 1 FROM chunks LIMIT 1)),
		coalesce((SELECT count(*) FROM pragma_table_list WHERE name = 'impacts_changed'), 0)`, impactsKey).Scan(&built, &rows, &stale)
	if err != nil {
		return false, fmt.Errorf("postings: %w", err)
	}
	if rows == 0 {
		return false, nil
	}
	if !built.Valid {
		return true, nil
	}
	if _, _, ok := parseBuilt(built.String); !ok || stale == 0 {
		// The first encoding, without the delta: rebuilt.
		return true, nil
	}
	if !behind {
		return false, nil
	}
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM impacts_changed").Scan(&stale); err != nil {
		return false, fmt.Errorf("postings: %w", err)
	}
	return stale > impactDeltaMax/2, nil
}

// rebuildImpacts rebuilds the word index's block-max postings from the
// index as it is (buildImpactsWith) and empties the delta of changed rows
// but for the rows changed during the build. It returns the number of
// tokens read.
func (s *Store) rebuildImpacts(ctx context.Context) (int, error) {
	return s.buildImpactsWith(ctx, nil)
}

// impactBuildHook runs in a build at stage "merge" (after each merge
// step), "read" (inside its read snapshot, once it has begun) and
// "install" (after the snapshot, before the install); a test commits a
// sync there, a benchmark times the stages.
var impactBuildHook = func(stage string) {}

// buildImpactsWith is rebuildImpacts reporting progress (token instances
// read of all) when progress is not nil.
//
// A build takes the writer only briefly: the word index is merged into
// one segment in short steps (mergeWords, nothing to do when it is one
// already), a first transaction makes the tables and triggers and counts
// the build epoch up; the word index is then read and the postings encoded in a read
// snapshot (no lock a writer waits for: at 1M about a minute of CPU); a
// second transaction installs them. The rows a sync changes meanwhile are
// those the triggers stamp with this epoch or a later one: the install
// keeps them in the delta (it may also keep a few changed between the
// first transaction and the snapshot, scored from their text like the
// others, which is exact too) and drops the ones before.
func (s *Store) buildImpactsWith(ctx context.Context, progress func(done, total int)) (int, error) {
	if err := s.prepareImpacts(ctx); err != nil {
		return 0, fmt.Errorf("build postings: %w", err)
	}
	b, err := s.readImpacts(ctx, progress)
	if err != nil {
		return 0, fmt.Errorf("build postings: %w", err)
	}
	impactBuildHook("install")
	if err := s.installImpacts(ctx, b); err != nil {
		return 0, fmt.Errorf("build postings: %w", err)
	}
	return b.terms, nil
}

// impactMergeStep is how many pages of the word index one merge step
// writes (about 16 MB), each step its own short transaction.
const impactMergeStep = 4096

// prepareImpacts is a build's first transaction (buildImpactsWith), after
// the word index was merged into one segment in steps (mergeWords). A
// sync committed after the last step leaves a second segment: the merge
// runs again, and after a few tries the transaction merges the rest
// itself (FTS5's optimize).
func (s *Store) prepareImpacts(ctx context.Context) error {
	for try := 0; ; try++ {
		if err := s.mergeWords(ctx); err != nil {
			return err
		}
		done, err := s.prepareTx(ctx, try >= 3)
		if err != nil || done {
			return err
		}
	}
}

// mergeWords merges the word index's segments into one, rows deleted
// from the contentless table dropped, in steps of impactMergeStep pages:
// FTS5's 'merge' with a negative count merges across all levels, as
// optimize does in one go, and goes on from where the last step stopped.
// A sync waits at most for one step (optimize at 1M documents held the
// writer for 1 min 40 s).
func (s *Store) mergeWords(ctx context.Context) error {
	var prev []byte
	// At most 4,096 steps (16M pages, an index far past any seen): a
	// sync after every step could keep the index a segment short for
	// ever, and prepareImpacts then merges the rest itself.
	for range 1 << 12 {
		var structure []byte
		if err := s.db.QueryRowContext(ctx, "SELECT block FROM chunks_fts_data WHERE id = 10").Scan(&structure); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
		if _, _, _, ok := singleSegment(structure); ok || bytes.Equal(structure, prev) {
			// One segment, or a step that changed nothing (an empty index).
			return nil
		}
		prev = structure
		if _, err := s.db.ExecContext(ctx, "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('merge', ?)", -impactMergeStep); err != nil {
			return err
		}
		impactBuildHook("merge")
	}
	return nil
}

// prepareTx makes the tables and triggers and counts the build epoch up,
// in one transaction, when the word index is one segment or with force
// (merging it in the transaction); it reports whether it did.
func (s *Store) prepareTx(ctx context.Context, force bool) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var structure []byte
	if err := tx.QueryRowContext(ctx, "SELECT block FROM chunks_fts_data WHERE id = 10").Scan(&structure); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	var qs []string
	if _, _, _, ok := singleSegment(structure); !ok && structure != nil {
		if !force {
			return false, nil
		}
		// The segments are read as they are, rows deleted from a
		// contentless table included (their tombstones are applied by
		// queries, not by a segment): merging into one segment drops them
		// first, and leaves one segment to read (impactseg.go). Postings
		// in use stay in use: the merge changes no row.
		qs = append(qs, "INSERT INTO chunks_fts(chunks_fts) VALUES('optimize')")
	}
	var built sql.NullString
	if err := tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", impactsKey).Scan(&built); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	if _, _, ok := parseBuilt(built.String); !ok {
		// Postings of an earlier encoding: never read, gone.
		qs = append(qs, "DELETE FROM meta WHERE key = '"+impactsKey+"'")
		qs = append(qs, impactsOld...)
	}
	qs = append(qs, impactsSchema...)
	qs = append(qs, impactsDeltaSchema...)
	qs = append(qs, "INSERT INTO meta(key, value) VALUES('"+impactsEpochKey+"', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")
	for _, q := range qs {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return false, err
		}
	}
	return true, tx.Commit()
}

// errImpactsSuperseded says a build's postings were not installed: a
// build that began after it installs its own.
var errImpactsSuperseded = errors.New("a later build of the postings runs: this one is not installed")

// impactsBuilt is what a build's read snapshot made, for its install.
type impactsBuilt struct {
	epoch  int64
	rs     []buildRow    // every chunk of the snapshot, by id
	stored []storedToken // the tokens keeping postings, by hash
	terms  int           // tokens read
	value  string        // the meta record (impactsDeltaTag)
}

// storedToken is one row of impact_postings.
type storedToken struct {
	h    int64
	data []byte
}

// readImpacts reads the word index in one read snapshot and encodes the
// postings of its tokens with at least impactStoreMin rows.
func (s *Store) readImpacts(ctx context.Context, progress func(done, total int)) (*impactsBuilt, error) {
	tx, err := s.db.snaps.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	b := &impactsBuilt{}
	var epoch sql.NullInt64
	if err := tx.QueryRowContext(ctx, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", impactsEpochKey).Scan(&epoch); err != nil {
		return nil, err
	}
	b.epoch = epoch.Int64
	impactBuildHook("read")
	// Every chunk's row id (ascending) and length, for the blocks'
	// smallest lengths and the guard below.
	var total int64
	rows, err := tx.QueryContext(ctx, "SELECT id, sz FROM chunks_fts_docsize ORDER BY id")
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var sz sql.RawBytes
		if err := rows.Scan(&id, &sz); err != nil {
			rows.Close()
			return nil, err
		}
		b.rs = append(b.rs, buildRow{id: id, d: rowLength(sz)})
		total += b.rs[len(b.rs)-1].d
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	rs := b.rs
	var (
		cur  string
		ps   []impactPosting
		ds   []int64 // the length of ps[i]'s row
		at   = -1    // the index in rs of the last row added
		done int
		// byHash is each stored token's index in b.stored, -1 for a hash
		// two tokens share (neither is stored).
		byHash = map[int64]int{}
	)
	find := rowFinder(rs)
	flush := func() {
		if len(ps) == 0 {
			return
		}
		b.terms++
		if len(ps) >= impactStoreMin {
			h := termHash([]byte(cur))
			switch i, seen := byHash[h]; {
			case !seen:
				byHash[h] = len(b.stored)
				b.stored = append(b.stored, storedToken{h, storedPostings([]byte(cur), encodeImpacts(ps, func(i int) int64 { return ds[i] }))})
			case i >= 0:
				b.stored[i].data = nil
				byHash[h] = -1
			}
		}
		ps, ds = ps[:0], ds[:0]
	}
	// add adds n instances of term in row weighing f2: the terms come in
	// order, and a term's rows ascending.
	add := func(term []byte, row int64, f2 uint64, n int64) error {
		if done += int(n); progress != nil && done>>20 != (done-int(n))>>20 {
			progress(done, int(total))
		}
		if string(term) != cur {
			flush()
			cur = string(term)
			at = -1
		}
		if at < 0 || rs[at].id != row {
			i := find(row)
			if i < 0 {
				// Not in the table (a deleted row the merge left): no posting.
				return nil
			}
			at = i
			ps = append(ps, impactPosting{row, f2})
			ds = append(ds, rs[at].d)
		} else {
			ps[len(ps)-1].f2 += f2
		}
		rs[at].seen += n
		return nil
	}
	err = segmentPostings(ctx, tx, func(term []byte, row int64, cnt *[3]int64) error {
		return add(term, row, uint64(cnt[0])*colWeights2[0]+uint64(cnt[1])*colWeights2[1]+uint64(cnt[2])*colWeights2[2], cnt[0]+cnt[1]+cnt[2])
	})
	if errors.Is(err, errSegmentUnread) && b.terms == 0 && len(ps) == 0 {
		err = instancePostings(ctx, tx, add)
	}
	if err != nil {
		return nil, err
	}
	flush()
	// Every row's instances must add up to its length, as bm25() sees
	// them: a guard against segments that still list a row twice after
	// the merge (FTS5 answers queries from the newest copy; postings
	// summing both would not score as it does). Not seen so far.
	for _, r := range rs {
		if r.seen != r.d {
			return nil, fmt.Errorf("%w (chunk %d: %d tokens, %d listed)", errImpactsDisagree, r.id, r.d, r.seen)
		}
	}
	ver, avg, err := s.impactsVersion(ctx, tx)
	if err != nil {
		return nil, err
	}
	nRow, _, ok := averages(avg)
	if !ok {
		// No averages record: an empty word index.
		nRow = 0
	}
	b.value = fmt.Sprintf("%s%d %s", impactsDeltaTag, nRow, ver)
	kept := b.stored[:0]
	for _, t := range b.stored {
		if t.data != nil {
			kept = append(kept, t)
		}
	}
	b.stored = kept
	slices.SortFunc(b.stored, func(x, y storedToken) int { return cmp.Compare(x.h, y.h) })
	return b, nil
}

// installImpacts is a build's second transaction: the postings replace
// the table's, the rows changed before the build's snapshot leave the
// delta, and those since are marked as held by the build or not.
func (s *Store) installImpacts(ctx context.Context, b *impactsBuilt) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// A build prepared after this one (another process's: a caller need
	// not hold gno's writer lock) installs its own, later postings; this
	// one's would miss the rows that build's install drops from the delta.
	var epoch sql.NullInt64
	if err := tx.QueryRowContext(ctx, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", impactsEpochKey).Scan(&epoch); err != nil {
		return err
	}
	if epoch.Int64 != b.epoch {
		return errImpactsSuperseded
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM impact_postings"); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, "INSERT INTO impact_postings(h, data) VALUES(?, ?)")
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, t := range b.stored {
		if _, err := ins.ExecContext(ctx, t.h, t.data); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM impacts_changed WHERE epoch < ?", b.epoch); err != nil {
		return err
	}
	// The rows changed since the snapshot: held by the build when the
	// snapshot had them, whatever their first change was.
	type change struct {
		row   int64
		built bool
	}
	var fix []change
	rows, err := tx.QueryContext(ctx, "SELECT row, built FROM impacts_changed")
	if err != nil {
		return err
	}
	find := rowFinder(b.rs)
	for rows.Next() {
		var c change
		if err := rows.Scan(&c.row, &c.built); err != nil {
			rows.Close()
			return err
		}
		if held := find(c.row) >= 0; held != c.built {
			fix = append(fix, change{c.row, held})
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, c := range fix {
		if _, err := tx.ExecContext(ctx, "UPDATE impacts_changed SET built = ? WHERE row = ?", c.built, c.row); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", impactsKey, b.value); err != nil {
		return err
	}
	return tx.Commit()
}
