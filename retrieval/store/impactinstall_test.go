package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestImpactsBuildBesideSync: a build reads in a snapshot and installs in
// a second transaction (buildImpactsWith); syncs committed inside its
// read snapshot and between the read and the install (by the build's
// hook, not by timing) are kept in the delta, so every search after the
// install still equals FTS5's full search and comes from the postings.
func TestImpactsBuildBesideSync(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 600, 1200, 31)
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(41, 42))
	gen := int64(2)
	sync := func(stage string) {
		b, err := st.Begin(ctx, gen)
		if err != nil {
			t.Errorf("%s: %v", stage, err)
			return
		}
		defer b.Rollback()
		gen++
		for i := range 10 {
			if err := b.Put(ctx, deltaDoc(r, words, fmt.Sprintf("d%d.md", 1+r.IntN(600)), 1+r.IntN(3))); err != nil {
				t.Error(err)
				return
			}
			if err := b.Put(ctx, deltaDoc(r, words, fmt.Sprintf("%s-%d-%d.md", stage, gen, i), 1+r.IntN(2))); err != nil {
				t.Error(err)
				return
			}
			if err := b.Remove(ctx, int64(1+r.IntN(600))); err != nil {
				t.Error(err)
				return
			}
		}
		if err := b.Commit(); err != nil {
			t.Errorf("%s: %v", stage, err)
		}
	}
	// A sync before the build too: its rows must leave the delta.
	sync("before")
	var stages []string
	impactBuildHook = func(stage string) {
		if stage == "merge" {
			// A sync after every merge step would leave the merge always
			// a segment short.
			return
		}
		stages = append(stages, stage)
		sync(stage)
	}
	defer func() { impactBuildHook = func(string) {} }()
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	impactBuildHook = func(string) {}
	if strings.Join(stages, ",") != "read,install" {
		t.Fatalf("hook stages %v", stages)
	}
	// Only the rows of the two syncs during the build stay changed.
	var changed, epochs int
	if err := st.db.QueryRowContext(ctx, "SELECT count(*), count(DISTINCT epoch) FROM impacts_changed").Scan(&changed, &epochs); err != nil {
		t.Fatal(err)
	}
	var during int
	if err := st.db.QueryRowContext(ctx, "SELECT count(*) FROM chunks WHERE doc_id IN (SELECT id FROM documents WHERE rel_path LIKE 'read-%' OR rel_path LIKE 'install-%')").Scan(&during); err != nil {
		t.Fatal(err)
	}
	if changed == 0 || epochs != 1 || changed < during {
		t.Fatalf("%d changed rows in %d epochs after the build (%d chunks added during it)", changed, epochs, during)
	}
	before := st.prune.impacts.Load()
	n := 0
	for i := range 30 {
		var terms []string
		for range 1 + r.IntN(4) {
			lo := []int{0, 3, 10, 40, 200}[r.IntN(5)]
			terms = append(terms, words[lo+r.IntN(lo+3)])
		}
		q := strings.Join(terms, " ")
		if i%5 == 0 {
			q += " -" + words[5+r.IntN(30)]
		}
		checkExact(t, st, q)
		n++
	}
	if got := st.prune.impacts.Load() - before; got == 0 {
		t.Fatal("no search answered from the postings after the build")
	}
	// The next build empties the delta.
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRowContext(ctx, "SELECT count(*) FROM impacts_changed").Scan(&changed); err != nil || changed != 0 {
		t.Fatalf("changed rows after a quiet rebuild: %d, %v", changed, err)
	}
}

// TestImpactsBuildSuperseded: a build that another build began after
// (and installed before it) does not install its older postings; the
// searches stay exact and on the postings, with the rows synced during
// both in the delta.
func TestImpactsBuildSuperseded(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 300, 600, 37)
	r := rand.New(rand.NewPCG(3, 4))
	sync := func(gen int64) {
		b, err := st.Begin(ctx, gen)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Rollback()
		for i := range 5 {
			if err := b.Put(ctx, deltaDoc(r, words, fmt.Sprintf("s%d-%d.md", gen, i), 2)); err != nil {
				t.Fatal(err)
			}
			if err := b.Remove(ctx, int64(1+r.IntN(300))); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	inner := false
	impactBuildHook = func(stage string) {
		if stage != "install" || inner {
			return
		}
		inner = true
		sync(2)
		// A second build, begun and installed before the first installs.
		if built, err := st.BuildPostings(ctx, false, nil); err != nil || !built {
			t.Errorf("inner build: %v, %v", built, err)
		}
		sync(3)
	}
	defer func() { impactBuildHook = func(string) {} }()
	built, err := st.BuildPostings(ctx, false, nil)
	if err != nil || built {
		t.Fatalf("the superseded build: built %v, %v", built, err)
	}
	impactBuildHook = func(string) {}
	before := st.prune.impacts.Load()
	for i := range 20 {
		checkExact(t, st, words[i%7]+" "+words[10+i]+" "+words[40+3*i])
	}
	if st.prune.impacts.Load() == before {
		t.Fatal("no search answered from the postings")
	}
}

// TestImpactsUpgradeFromTextKeys: postings of the encoding keyed by the
// token's text ("d1 ", its table, changed-row table and triggers) are not
// read, BuildPostings rebuilds them by itself, and the old table and
// triggers are gone after.
func TestImpactsUpgradeFromTextKeys(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 200, 400, 7)
	for _, q := range []string{
		"CREATE TABLE impacts(term TEXT PRIMARY KEY, data BLOB NOT NULL)",
		"INSERT INTO impacts VALUES('x', x'00')",
		"CREATE TABLE impacts_stale(row INTEGER PRIMARY KEY, built INTEGER NOT NULL)",
		"CREATE TRIGGER impacts_ai AFTER INSERT ON chunks BEGIN INSERT OR IGNORE INTO impacts_stale(row, built) VALUES(new.id, 0); END",
		"CREATE TRIGGER impacts_ad AFTER DELETE ON chunks BEGIN INSERT OR IGNORE INTO impacts_stale(row, built) VALUES(old.id, 1); END",
		"INSERT INTO meta(key, value) VALUES('impacts', 'd1 200 aa/bb')",
	} {
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	before := st.prune.impacts.Load()
	checkExact(t, st, words[2]+" "+words[7])
	if st.prune.impacts.Load() != before {
		t.Fatal("postings of the old encoding were read")
	}
	if need, err := st.PostingsNeeded(ctx, false); err != nil || !need {
		t.Fatalf("old postings not due for a build: %v, %v", need, err)
	}
	if built, err := st.BuildPostings(ctx, false, nil); err != nil || !built {
		t.Fatalf("build: %v, %v", built, err)
	}
	var old int
	if err := st.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name IN ('impacts', 'impacts_stale', 'impacts_ai', 'impacts_ad')").Scan(&old); err != nil || old != 0 {
		t.Fatalf("%d old tables and triggers left, %v", old, err)
	}
	checkExact(t, st, words[2]+" "+words[7])
	if st.prune.impacts.Load() == before {
		t.Fatal("new postings not read")
	}
}

// TestMergeWordsInSteps: mergeWords leaves an index of several segments
// and deleted rows as one segment without tombstones, so the build reads
// FTS5's segment records.
func TestMergeWordsInSteps(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 400, 800, 43)
	r := rand.New(rand.NewPCG(7, 8))
	for gen := int64(2); gen < 5; gen++ {
		b, err := st.Begin(ctx, gen)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			if err := b.Put(ctx, deltaDoc(r, words, fmt.Sprintf("m%d-%d.md", gen, i), 2)); err != nil {
				t.Fatal(err)
			}
			if err := b.Remove(ctx, int64(1+r.IntN(400))); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	structure := func() []byte {
		var b []byte
		if err := st.db.QueryRowContext(ctx, "SELECT block FROM chunks_fts_data WHERE id = 10").Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	if _, _, _, ok := singleSegment(structure()); ok {
		t.Fatal("one segment before the merge")
	}
	if err := st.mergeWords(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := singleSegment(structure()); !ok {
		t.Fatal("not one segment after mergeWords")
	}
	before := st.prune.impacts.Load()
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		checkExact(t, st, words[i]+" "+words[20+i])
	}
	if st.prune.impacts.Load() == before {
		t.Fatal("no search from the postings")
	}
}
