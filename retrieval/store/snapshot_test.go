package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/internal/readhook"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/query"
)

// snapStore is an index of two documents, a.md (tag x, linking to b) and
// b.md (tag y); snapChange removes a.md and retags b.md in one batch.
func snapStore(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "i.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	b, err := s.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Document{
		{Collection: "c", RelPath: "a.md", Hash: "aaaa", Title: "A", Tags: []string{"x"}, Content: "zebra apple [[b]]\n",
			Links: links.Extract("zebra apple [[b]]\n"), Chunks: []chunk.Chunk{{Text: "zebra apple", StartLine: 1, EndLine: 1}}},
		{Collection: "c", RelPath: "b.md", Hash: "bbbb", Title: "B", Tags: []string{"y"}, Content: "zebra banana\n",
			Chunks: []chunk.Chunk{{Text: "zebra banana", StartLine: 1, EndLine: 1}}},
	} {
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	return s
}

func snapChange(t testing.TB, s *Store) {
	ctx := context.Background()
	b, err := s.Begin(ctx, 2)
	if err != nil {
		t.Error(err)
		return
	}
	defer b.Rollback()
	a, err := s.DocByPath(ctx, "c", "a.md")
	if err != nil {
		t.Error(err)
		return
	}
	if err := b.Remove(ctx, a.ID); err != nil {
		t.Error(err)
	}
	if err := b.Put(ctx, &Document{Collection: "c", RelPath: "b.md", Hash: "bbb2", Title: "B2", Tags: []string{"x", "z"}, Content: "zebra berry\n",
		Chunks: []chunk.Chunk{{Text: "zebra berry", StartLine: 1, EndLine: 1}}}); err != nil {
		t.Error(err)
	}
	if err := b.Commit(); err != nil {
		t.Error(err)
	}
}

type snapKey struct{}

// TestStoreReadsAreSnapshots: each store method that runs several
// statements, and a sequence of methods inside Read, sees the index before
// a batch or after it, wherever between its statements the batch commits.
func TestStoreReadsAreSnapshots(t *testing.T) {
	get := func(ctx context.Context, s *Store, rel string) (any, error) {
		m, err := s.DocByPath(ctx, "c", rel)
		if err != nil {
			return nil, err
		}
		c, err := s.Content(ctx, m.ID)
		return []any{m, c}, err
	}
	cases := []struct {
		name string
		read func(ctx context.Context, s *Store) (any, error)
	}{
		{"Docs", func(ctx context.Context, s *Store) (any, error) { return s.Docs(ctx, []int64{1, 2}) }},
		{"DocByPath", func(ctx context.Context, s *Store) (any, error) { return s.DocByPath(ctx, "c", "b.md") }},
		{"DocByHashPrefix", func(ctx context.Context, s *Store) (any, error) { return s.DocByHashPrefix(ctx, "bb") }},
		{"SearchFTS", func(ctx context.Context, s *Store) (any, error) {
			return s.SearchFTS(ctx, query.Parse("zebra"), Filter{TagsAny: []string{"x", "y"}}, 10)
		}},
		{"LinksTo", func(ctx context.Context, s *Store) (any, error) { return s.LinksTo(ctx, 2) }},
		{"Read: find, then content", func(ctx context.Context, s *Store) (v any, err error) {
			err = s.Read(ctx, func(ctx context.Context) error { v, err = get(ctx, s, "a.md"); return err })
			return v, err
		}},
		{"Read: search, then documents and chunks", func(ctx context.Context, s *Store) (v any, err error) {
			err = s.Read(ctx, func(ctx context.Context) error {
				hits, err := s.SearchFTS(ctx, query.Parse("zebra"), Filter{}, 10)
				if err != nil {
					return err
				}
				var ids, cids []int64
				for _, h := range hits {
					ids, cids = append(ids, h.DocID), append(cids, h.ChunkID)
				}
				docs, err := s.Docs(ctx, ids)
				if err != nil {
					return err
				}
				chunks, err := s.Chunks(ctx, cids)
				v = []any{hits, docs, chunks}
				return err
			})
			return v, err
		}},
	}
	show := func(v any, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := snapStore(t)
			before := show(c.read(context.Background(), s))
			snapChange(t, s)
			after := show(c.read(context.Background(), s))
			for n := 1; n < 50; n++ {
				s := snapStore(t)
				var stmts atomic.Int32
				var once sync.Once
				restore := readhook.Set(func(ctx context.Context) {
					if ctx.Value(snapKey{}) != nil && stmts.Add(1) == int32(n) {
						once.Do(func() { snapChange(t, s) })
					}
				})
				got := show(c.read(context.WithValue(context.Background(), snapKey{}, true), s))
				restore()
				if got != before && got != after {
					t.Fatalf("batch at statement %d: got %s\nbefore %s\nafter  %s", n, got, before, after)
				}
				if stmts.Load() < int32(n) {
					return
				}
			}
		})
	}
}

// TestReadRules: a write batch cannot begin inside a snapshot, a Read
// inside a Read shares its transaction, and many snapshots at once with
// nested reads and a writer never wait on one another for a connection
// (the pool holds four).
func TestReadRules(t *testing.T) {
	s := snapStore(t)
	ctx := context.Background()
	if err := s.Read(ctx, func(ctx context.Context) error {
		_, err := s.Begin(ctx, 3)
		return err
	}); !errors.Is(err, errWriteInRead) {
		t.Fatalf("a batch inside a snapshot: %v", err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 20 {
				err := s.Read(ctx, func(ctx context.Context) error {
					return s.Read(ctx, func(ctx context.Context) error {
						if _, err := s.Docs(ctx, []int64{1, 2}); err != nil {
							return err
						}
						_, err := s.SearchFTS(ctx, query.Parse("zebra"), Filter{}, 5)
						return err
					})
				})
				if err != nil {
					t.Errorf("reader %d, read %d: %v", i, j, err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for gen := int64(10); gen < 30; gen++ {
			b, err := s.Begin(ctx, gen)
			if err != nil {
				t.Error(err)
				return
			}
			err = b.Put(ctx, &Document{Collection: "c", RelPath: fmt.Sprintf("n%d.md", gen), Hash: fmt.Sprint(gen), Content: "zebra\n",
				Chunks: []chunk.Chunk{{Text: "zebra", StartLine: 1, EndLine: 1}}})
			if err == nil {
				err = b.Commit()
			}
			if err != nil {
				t.Error(err)
				b.Rollback()
				return
			}
		}
	})
	wg.Wait()
	// Snapshot holders waiting on a goroutine that needs a connection of
	// the bounded pool (a model or cache loading under its lock) leave it
	// one: more holders than that pool has connections.
	release := make(chan struct{})
	var holders, started sync.WaitGroup
	for range 8 {
		holders.Add(1)
		started.Add(1)
		go func() {
			defer holders.Done()
			if err := s.Read(ctx, func(ctx context.Context) error {
				_, err := s.Docs(ctx, []int64{1})
				started.Done()
				if err != nil {
					return err
				}
				<-release
				return nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	started.Wait()
	for range 4 {
		if _, err := s.Docs(ctx, []int64{1, 2}); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	holders.Wait()
	// A context that outlives its snapshot reads from the pool.
	var kept context.Context
	if err := s.Read(ctx, func(ctx context.Context) error { kept = ctx; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Docs(kept, []int64{1}); err != nil {
		t.Fatalf("read after the snapshot ended: %v", err)
	}
}
