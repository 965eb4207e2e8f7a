package store

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gnosearch/gno/retrieval/internal/readhook"
	"github.com/gnosearch/gno/retrieval/query"
)

// TestImpactsAfterEdits checks the postings of an index whose rows were
// deleted and written again under the same ids (a changed document), in
// one transaction and in two: built after the edits, they score as FTS5.
func TestImpactsAfterEdits(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 400, 800, 3)
	// Half the rows of the first 60 documents rewritten in each round.
	for round := range 2 {
		tx, err := st.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for d := 1 + round; d <= 60; d += 2 {
			row := int64(d << 16)
			if _, err := tx.ExecContext(ctx, "DELETE FROM chunks_fts WHERE rowid = ?", row); err != nil {
				t.Fatal(err)
			}
			body := strings.Repeat(words[2]+" "+words[9]+" ", 1+d%5)
			if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts(rowid, title, headings, body) VALUES (?, 't', '', ?)`, row, body); err != nil {
				t.Fatal(err)
			}
		}
		if err := bumpWrites(ctx, tx); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{words[2] + " " + words[9], words[2] + " " + words[30], words[9] + " " + words[100] + " " + words[5]} {
		checkExact(t, st, q)
	}
	if st.prune.impacts.Load() == 0 {
		t.Fatal("no question was answered from the postings")
	}
}

// TestImpactSearchIsSnapshot stops a search from the postings before each
// of its statements in turn and commits a sync that adds a chunk there:
// the search returns what it returned before the sync or what it returns
// after, never a mix (postings checked against one state, scored with
// another's lengths or counts).
func TestImpactSearchIsSnapshot(t *testing.T) {
	ctx := context.Background()
	fresh := func() (*Store, []string) {
		st, words := zipfStore(t, 200, 400, 5)
		if _, err := st.rebuildImpacts(ctx); err != nil {
			t.Fatal(err)
		}
		return st, words
	}
	change := func(st *Store, words []string) {
		tx, err := st.db.BeginTx(context.Background(), nil)
		if err != nil {
			t.Error(err)
			return
		}
		defer tx.Rollback()
		body := strings.Repeat(words[2]+" "+words[9]+" ", 20)
		if _, err := tx.Exec(`INSERT INTO documents(id, collection, rel_path, hash, title, added_gen, changed_gen) VALUES (9999, 'c', 'new.md', 'h', 't', 1, 1)`); err != nil {
			t.Error(err)
			return
		}
		if _, err := tx.Exec(`INSERT INTO chunks_fts(rowid, title, headings, body) VALUES (?, 't', '', ?)`, 9999<<16, body); err != nil {
			t.Error(err)
			return
		}
		if err := tx.Commit(); err != nil {
			t.Error(err)
		}
	}
	snapshotEachStatement(t, fresh, change, 30)
}

// snapshotEachStatement runs a search from the postings on a fresh store,
// with change committed before its statement n for each n in turn, and
// fails when the result is neither that of the state before the change
// nor that after it.
func snapshotEachStatement(t *testing.T, fresh func() (*Store, []string), change func(*Store, []string), most int32) {
	t.Helper()
	ctx := context.Background()
	type key struct{}
	search := func(ctx context.Context, st *Store, words []string) string {
		h, err := st.SearchFTS(ctx, query.Parse(words[2]+" "+words[9]+" "+words[30]), Filter{}, 10)
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprint(h)
	}
	st, words := fresh()
	before := search(ctx, st, words)
	if st.prune.impacts.Load() == 0 {
		t.Fatal("not searched from the postings")
	}
	change(st, words)
	after := search(ctx, st, words)
	if before == after {
		t.Fatal("the change did not change the result")
	}
	for n := int32(1); n < most; n++ {
		st, words := fresh()
		var stmts atomic.Int32
		var once sync.Once
		restore := readhook.Set(func(ctx context.Context) {
			if ctx.Value(key{}) != nil && stmts.Add(1) == n {
				once.Do(func() { change(st, words) })
			}
		})
		got := search(context.WithValue(ctx, key{}, true), st, words)
		restore()
		if got != before && got != after {
			t.Fatalf("sync at statement %d: got %s\nbefore %s\nafter  %s", n, got, before, after)
		}
		if stmts.Load() < n {
			t.Logf("the search ran %d statements", n-1)
			return
		}
	}
}

// TestImpactsDamagedFallBack: postings that no longer decode do not fail
// a search: FTS5 answers it, with the same results.
func TestImpactsDamagedFallBack(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 300, 600, 5)
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	q := words[2] + " " + words[9]
	before, err := st.SearchFTS(ctx, query.Parse(q), Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.ExecContext(ctx, "UPDATE impact_postings SET data = x'ffffffffffffffffff'"); err != nil {
		t.Fatal(err)
	}
	after, err := st.SearchFTS(ctx, query.Parse(q), Filter{}, 10)
	if err != nil {
		t.Fatalf("a search over damaged postings: %v", err)
	}
	if len(after) == 0 || !reflect.DeepEqual(before, after) {
		t.Fatalf("damaged postings changed the answer:\nbefore %v\nafter  %v", before, after)
	}
}
