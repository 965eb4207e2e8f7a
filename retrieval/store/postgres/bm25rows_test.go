package postgres

import "testing"

// TestWordRowsRoomCapped: the room made at once for a question of many
// words is capped in rows × words, and the rows still grow to maxRows.
func TestWordRowsRoomCapped(t *testing.T) {
	for _, words := range []int{1, 3, 64} {
		w := newWordRows(words, 1<<30)
		if c := int64(cap(w.wf)); c > maxCells || int64(cap(w.ids)) > maxRows {
			t.Errorf("%d words: room for %d rows, %d cells; want at most %d, %d", words, cap(w.ids), c, maxRows, maxCells)
		}
		for i := range maxRows {
			if err := w.add(i, 1, words-1, 1); err != nil {
				t.Fatalf("%d words: row %d: %v", words, i, err)
			}
		}
		if err := w.add(maxRows, 1, 0, 1); err != errTooManyRows {
			t.Fatalf("%d words: row past maxRows: %v", words, err)
		}
	}
}
