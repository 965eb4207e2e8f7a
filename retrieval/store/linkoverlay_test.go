package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gnosearch/gno/retrieval/links"
)

// TestLinkIndexFollowsEdits: after random edit sequences (documents put,
// changed, renamed, removed; names, aliases and links that collide
// across folders and collections; batches of this store and of another
// one on the same file, which this store's log cannot follow), the link
// index a reader gets — updated by an overlay, or rebuilt when the
// overlay outgrows its bound or a batch is not logged — answers every
// read exactly as an index built from the rows; and the index a reader
// got before answers as it did (an overlay never changes its base).
func TestLinkIndexFollowsEdits(t *testing.T) {
	defer func(m int) { overlayMin = m }(overlayMin)
	overlayMin = 40
	ctx := context.Background()
	var overlays, flats int
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 7))
		file := filepath.Join(t.TempDir(), "i.sqlite")
		st, err := Open(ctx, file)
		if err != nil {
			t.Fatal(err)
		}
		other, err := Open(ctx, file)
		if err != nil {
			t.Fatal(err)
		}
		live := map[[2]string]bool{}
		var prevInc, prevFull *LinkIndex
		for step := range 60 {
			w := st
			if rng.IntN(12) == 0 {
				w = other // a batch this store's log does not hold
			}
			editBatch(t, ctx, w, rng, live, int64(step+1), step == 0)
			if rng.IntN(3) == 0 {
				continue // read after two batches or more
			}
			if rng.IntN(2) == 0 {
				// Status's counts: from the index brought up to date
				// when the log allows, else counted; the same either way.
				got, err := st.LinkStats(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want, err := readIn(ctx, st, st.countLinks)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d step %d: LinkStats %s, counted %s", seed, step, dump(got), dump(want))
				}
			}
			inc, err := st.linkIndex(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if inc.ov != nil {
				overlays++
			} else {
				flats++
			}
			full, err := readIn(ctx, st, st.loadLinks)
			if err != nil {
				t.Fatal(err)
			}
			if inc.writes != full.writes {
				t.Fatalf("seed %d step %d: index of writes %s, rows of %s", seed, step, inc.writes, full.writes)
			}
			sameAnswers(t, fmt.Sprintf("seed %d step %d (overlay %v)", seed, step, inc.ov != nil), inc, full)
			// A reader still holding the previous index sees it
			// unchanged by the overlay built on it since.
			if prevInc != nil {
				sameAnswers(t, fmt.Sprintf("seed %d step %d, the previous index", seed, step), prevInc, prevFull)
			}
			prevInc, prevFull = inc, full
		}
		st.Close()
		other.Close()
	}
	if overlays < 50 || flats < 10 {
		t.Fatalf("%d reads from an overlay, %d from a flat index: the test did not exercise both", overlays, flats)
	}
}

var (
	editCols    = []string{"c1", "c2"}
	editPaths   = []string{"a.md", "b.md", "c.md", "dir/a.md", "dir/b.md", "dir/sub/c.md", "x/d.md", "e.txt", "F.md", "code/main.go", "x/zz.md", "n1.md", "n2.md", "n3.md"}
	editTargets = []string{"a", "b", "c", "dir/a", "../b.md", "./c.md", "A", "d", "zz", "main.go", "pic.png", "", "gno://c1/a.md", "gno://c2/dir/b", "/dir/sub/c.md", "e", "f", "alias1", "n2", "sub/c"}
	editAliases = []string{"alias1", "a", "B", "zz", "d", "n1"}
)

// editBatch commits one batch of random puts and removals to w.
func editBatch(t *testing.T, ctx context.Context, w *Store, rng *rand.Rand, live map[[2]string]bool, gen int64, first bool) {
	t.Helper()
	type put struct{ col, rel string }
	var puts []put
	var removes []int64
	touched := map[[2]string]bool{}
	n := 1 + rng.IntN(4)
	if first {
		n = 30
	}
	for range n {
		key := [2]string{editCols[rng.IntN(len(editCols))], editPaths[rng.IntN(len(editPaths))]}
		if live[key] && !touched[key] && rng.IntN(3) == 0 {
			m, err := w.DocByPath(ctx, key[0], key[1])
			if err != nil || m == nil {
				t.Fatalf("doc %v: %v", key, err)
			}
			removes = append(removes, m.ID)
			delete(live, key)
			touched[key] = true
			continue
		}
		touched[key] = true
		puts = append(puts, put{key[0], key[1]})
		live[key] = true
	}
	b, err := w.Begin(ctx, gen)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Rollback()
	seen := map[int64]bool{}
	for _, id := range removes {
		if !seen[id] {
			seen[id] = true
			if err := b.Remove(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, p := range puts {
		d := &Document{Collection: p.col, RelPath: p.rel, Title: fmt.Sprintf("T%d", rng.IntN(5)), Content: "x\n"}
		if rng.IntN(2) == 0 {
			d.Hash = fmt.Sprintf("%064x", rng.Uint64()|1)
		} else {
			d.Hash = fmt.Sprintf("h%d", rng.IntN(9))
		}
		for range rng.IntN(5) {
			l := links.Link{Kind: links.Kind(rng.IntN(4)), Target: editTargets[rng.IntN(len(editTargets))], Line: rng.IntN(9)}
			if rng.IntN(3) == 0 {
				l.Fragment = "h"
			}
			d.Links = append(d.Links, l)
		}
		for range rng.IntN(3) {
			d.Aliases = append(d.Aliases, editAliases[rng.IntN(len(editAliases))])
		}
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// sameAnswers fails unless a and b answer every link read alike.
func sameAnswers(t *testing.T, what string, a, b *LinkIndex) {
	t.Helper()
	check := func(name string, x, y any) {
		t.Helper()
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("%s: %s differs:\nincremental %s\nrebuilt     %s", what, name, dump(x), dump(y))
		}
	}
	check("count", a.count(), b.count())
	var maxID int64
	b.eachDoc(func(id int64, _ linkDoc) { maxID = max(maxID, id) })
	for id := int64(0); id <= maxID+2; id++ {
		da, oka := a.doc(id)
		db, okb := b.doc(id)
		check(fmt.Sprintf("doc %d", id), [2]any{oka, da.meta(id)}, [2]any{okb, db.meta(id)})
		check(fmt.Sprintf("LinksFrom %d", id), a.LinksFrom(id), b.LinksFrom(id))
		check(fmt.Sprintf("LinksTo %d", id), a.LinksTo(id), b.LinksTo(id))
		check(fmt.Sprintf("AttachmentsTo %d", id), a.AttachmentsTo(id), b.AttachmentsTo(id))
		check(fmt.Sprintf("aliases %d", id), a.aliasesOf(id), b.aliasesOf(id))
	}
	cols := [][]string{nil, {"c1"}, {"c2"}, {"c1", "c2"}}
	for _, c := range cols {
		na, ea := a.LinkGraph(c)
		nb, eb := b.LinkGraph(c)
		check(fmt.Sprintf("LinkGraph %v", c), [2]any{na, ea}, [2]any{nb, eb})
		check(fmt.Sprintf("DocNames %v", c), a.DocNames(c), b.DocNames(c))
		check(fmt.Sprintf("NoteNames %v", c), a.NoteNames(c), b.NoteNames(c))
	}
	for _, c := range []string{"", "c1", "c2", "none"} {
		check("Unresolved "+c, a.Unresolved(c, 0), b.Unresolved(c, 0))
		check("Unresolved 3 "+c, a.Unresolved(c, 3), b.Unresolved(c, 3))
	}
	check("LinkStats", a.LinkStats(), b.LinkStats())
	check("stats", a.stats(), b.stats())
	var keys []string
	for _, s := range append(append(append([]string{}, editTargets...), editAliases...), editPaths...) {
		keys = append(keys, links.Key(s), s)
	}
	check("Candidates", a.Candidates(keys), b.Candidates(keys))
}

func dump(x any) string {
	switch v := x.(type) {
	case []LinkRow:
		s := "["
		for _, r := range v {
			o := "-"
			if r.Other != nil {
				o = fmt.Sprintf("%d", r.Other.ID)
			}
			s += fmt.Sprintf(" {%d/%d %v %q other=%s}", r.Src, r.Seq, r.Kind, r.Target, o)
		}
		return s + " ]"
	case map[string]*LinkStats:
		s := "{"
		for c, st := range v {
			s += fmt.Sprintf(" %s:%+v", c, *st)
		}
		return s + " }"
	}
	return fmt.Sprintf("%+v", x)
}
