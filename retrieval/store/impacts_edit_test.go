package store

import (
	"context"
	"strings"
	"testing"
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
