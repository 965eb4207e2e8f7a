package retrieval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	_ "github.com/gnosearch/gno/retrieval/store/postgres" // postgres://
)

// copyCorpus indexes a small real corpus (Markdown with front matter
// tags and aliases, wiki and Markdown links, resolved and not, a governing note, CJK text, a file that fails to convert) and
// gives every chunk a vector, returning where the engine's index lives
// (its SQLite file, or its database with GNO_TEST_STORE=postgres).
func copyCorpus(t *testing.T) string {
	t.Helper()
	e, _ := newEngine(t, map[string]string{"plain.txt": "a plain text file about kettles\n"})
	dir := t.TempDir()
	topics := []string{"photosynthesis", "glacier", "protein folding", "volcano", "neutron star", "tidal energy", "enzyme", "migration"}
	for i := range 70 {
		topic := topics[i%len(topics)]
		body := fmt.Sprintf("---\ntags: [t%d, shared]\naliases: [Study %d]\n---\n# %s study %d\n\nThe %s of sample %d was measured twice, after [[n%03d]] and [[Study %d|the one before]].\n\n## Method %d\n\n%s See [the method](n%03d.md#method-%d), [[missing %d]] and [[spec#Auth spec]].\n",
			i%5, i, topic, i, topic, i, (i+1)%70, (i+69)%70, i, strings.Repeat(fmt.Sprintf("Observation %d on %s. ", i, topic), 1+i%40), (i+3)%70, (i+3)%70, i)
		write(t, dir, fmt.Sprintf("notes/n%03d.md", i), body)
	}
	write(t, dir, "notes/spec.md", "---\ngoverns: [src/auth/**]\nsystem: \"[[system]]\"\n---\n# Auth spec\n\nLogin and tokens.\n")
	write(t, dir, "notes/zh.md", "# 光合作用\n\n植物利用光能合成有机物。\n")
	write(t, dir, "broken.pdf", "not a pdf at all")
	ctx := context.Background()
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "docs", Path: dir})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	st, err := e.store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	texts, err := st.Unembedded(ctx, "")
	if err != nil || len(texts) < 70 {
		t.Fatalf("unembedded: %d, %v", len(texts), err)
	}
	ids := make([]int64, len(texts))
	vecs := make([][]float32, len(texts))
	for i, c := range texts {
		ids[i] = c.ID
		vecs[i] = []float32{float32(i), 1, float32(len(c.Body)), -1, 0.5, float32(i % 7), 2, 3}
	}
	if err := st.PutVectors(ctx, "test-model", ids, vecs); err != nil {
		t.Fatal(err)
	}
	return e.location()
}

// snapshotOf is an index's content as a copy must keep it, without ids.
func snapshotOf(t *testing.T, loc string) map[string]any {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenBackend(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := map[string]any{}
	gen, err := st.Generation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out["generation"] = gen
	docs, err := st.List(ctx, nil, "", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := st.DocTags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range docs {
		key := m.Collection + "/" + m.RelPath
		text, err := st.Content(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		var chunks []string
		for seq := 0; ; seq++ {
			r, err := st.Chunks(ctx, []int64{store.ChunkID(m.ID, seq)})
			if err != nil {
				t.Fatal(err)
			}
			c, ok := r[store.ChunkID(m.ID, seq)]
			if !ok {
				break
			}
			chunks = append(chunks, fmt.Sprintf("%d %q %q %d-%d", c.Seq, c.Headings, c.Body, c.StartLine, c.EndLine))
		}
		vecs, err := st.DocVectors(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		ls, err := st.LinksFrom(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		var lks []string
		for _, l := range ls {
			to := ""
			if l.Other != nil {
				to = l.Other.Collection + "/" + l.Other.RelPath
			}
			lks = append(lks, fmt.Sprintf("%d %q#%q|%q:%d attach=%v -> %s", l.Kind, l.Target, l.Fragment, l.Alias, l.Line, l.Attach, to))
		}
		tg := append([]string(nil), tags[m.ID]...)
		m.ID, m.ChangedGen, m.Tags = 0, 0, nil
		out[key] = []any{*m, text, chunks, vecs, tg, lks}
	}
	cols, err := st.CollectionNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cols {
		sk, err := st.SkipStates(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		out["skipped "+c] = sk
	}
	notes, err := st.GoverningNotes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		out["governs "+n.RelPath] = n.Declares
	}
	return out
}

func sameSnapshots(t *testing.T, what string, a, b map[string]any) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d entries, want %d", what, len(b), len(a))
	}
	for k, v := range a {
		if !reflect.DeepEqual(v, b[k]) {
			t.Errorf("%s: %s differs\n got %v\nwant %v", what, k, b[k], v)
		}
	}
}

func TestStoreCopyRoundTrip(t *testing.T) {
	pg := pgtest.Fresh(t)
	src := copyCorpus(t)
	want := snapshotOf(t, src)
	if len(want) < 75 {
		t.Fatalf("corpus too small: %d entries", len(want))
	}
	ctx := context.Background()

	// Killed midway (its context ends after the second batch), then resumed.
	old := copyBatch
	copyBatch = 16
	t.Cleanup(func() { copyBatch = old })
	cctx, cancel := context.WithCancel(ctx)
	_, err := CopyStore(cctx, src, pg, func(p CopyProgress) {
		if p.Stage == "documents" && p.Done >= 32 {
			cancel()
		}
	})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted copy: %v", err)
	}
	res, err := CopyStore(ctx, src, pg, nil)
	if err != nil {
		t.Fatalf("resumed copy: %v", err)
	}
	if res.Resumed < 32 || res.Written == 0 || res.Resumed+res.Written != res.Documents || res.Vectors != res.Chunks || res.Searches == 0 {
		t.Fatalf("resumed copy: %+v", res)
	}
	sameSnapshots(t, "on postgres", want, snapshotOf(t, pg))

	// Back to SQLite.
	back := filepath.Join(t.TempDir(), "index.sqlite")
	res, err = CopyStore(ctx, pg, back, nil)
	if err != nil {
		t.Fatalf("copy back: %v", err)
	}
	if res.Resumed != 0 || res.Written != res.Documents {
		t.Fatalf("copy back: %+v", res)
	}
	sameSnapshots(t, "back in sqlite", want, snapshotOf(t, back))

	// Run again: nothing to write, still checked.
	res, err = CopyStore(ctx, pg, back, nil)
	if err != nil || res.Written != 0 || res.VectorsWritten != 0 {
		t.Fatalf("second copy back: %+v, %v", res, err)
	}

	// A destination holding a copy of another index is refused.
	other := copyCorpus(t)
	if _, err := CopyStore(ctx, other, pg, nil); !gnoerr.Is(err, gnoerr.InvalidInput) || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("copy into another's copy: %v", err)
	}
}

func TestStoreCopyRefuses(t *testing.T) {
	ctx := context.Background()
	src := copyCorpus(t)
	// A non-empty index of its own.
	other := copyCorpus(t)
	_, err := CopyStore(ctx, src, other, nil)
	if !gnoerr.Is(err, gnoerr.InvalidInput) || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("copy into a non-empty index: %v", err)
	}
	if _, err := CopyStore(ctx, src, src, nil); !gnoerr.Is(err, gnoerr.InvalidInput) {
		t.Fatalf("copy into itself: %v", err)
	}
	if _, err := CopyStore(ctx, filepath.Join(t.TempDir(), "none.sqlite"), other, nil); !gnoerr.Is(err, gnoerr.InvalidInput) {
		t.Fatalf("copy of a missing file: %v", err)
	}
	if _, err := CopyStore(ctx, src, "mysql://u@host/db", nil); !gnoerr.Is(err, gnoerr.InvalidInput) || !strings.Contains(err.Error(), "no index store for mysql://") {
		t.Fatalf("unknown scheme: %v", err)
	}
	// A server that is not there: a clear error, without the password.
	_, err = CopyStore(ctx, src, "postgres://gno:secret@127.0.0.1:1/gno?connect_timeout=5", nil)
	if err == nil || strings.Contains(err.Error(), "secret") || strings.Contains(gnoerr.Public(err), "sql:") {
		t.Fatalf("unreachable server: %v", err)
	}
	t.Logf("unreachable server: %s", gnoerr.Public(err))
}
