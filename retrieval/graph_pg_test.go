package retrieval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	_ "github.com/gnosearch/gno/retrieval/store/postgres" // registers postgres://
	"github.com/gnosearch/gno/retrieval/vaultgen"
)

// TestGraphOnPostgres: the link graph of one vault answers alike on an
// index in SQLite and on one in PostgreSQL: links and backlinks of every
// note, the counts, unresolved links, orphans and hubs. It skips, saying
// why, when no PostgreSQL can be reached (pgtest).
func TestGraphOnPostgres(t *testing.T) {
	pgtest.URL(t) // skips when there is no server
	t.Setenv("GNO_HOME", t.TempDir())
	t.Setenv(StoreURLEnv, "")
	root := t.TempDir()
	v, err := vaultgen.Generate(root, 300)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	open := func(index, storeURL string) *Engine {
		e, err := Open(ctx, Options{Index: index})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		if err := e.UpdateConfig(ctx, func(c *config.Config) error {
			c.Store = storeURL
			_, err := c.AddCollection(config.Collection{Name: "vault", Path: root})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		update(t, e)
		return e
	}
	sq, pg := open("sq", ""), open("pg", pgtest.Fresh(t))
	if loc := pg.location(); loc == sq.location() || loc[:8] != "postgres" {
		t.Fatalf("the second engine's index is at %s", loc)
	}

	// same compares what both engines answer, as JSON.
	same := func(what string, fn func(e *Engine) (any, error)) {
		t.Helper()
		a, errA := fn(sq)
		b, errB := fn(pg)
		if errA != nil || errB != nil {
			t.Fatalf("%s: sqlite %v, postgres %v", what, errA, errB)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("%s differs:\nsqlite   %s\npostgres %s", what, ja, jb)
		}
	}
	same("stats", func(e *Engine) (any, error) { return e.Graph().Stats(ctx) })
	if st, err := pg.Graph().Stats(ctx); err != nil || st.Links != v.Links || st.Unresolved != v.Unresolved {
		t.Fatalf("stats on postgres %+v (%v); want %d links, %d unresolved", st, err, v.Links, v.Unresolved)
	}
	same("unresolved", func(e *Engine) (any, error) { return e.Graph().Unresolved(ctx, UnresolvedRequest{}) })
	same("orphans", func(e *Engine) (any, error) { return e.Graph().Orphans(ctx, OrphansRequest{}) })
	for i := range v.Rel {
		same("links of "+v.Rel[i], func(e *Engine) (any, error) {
			return e.Graph().Links(ctx, LinksRequest{Ref: ref.URI("vault", v.Rel[i])})
		})
	}
	// Hubs tie on their score; a tie's order follows document ids, which
	// are the backend's, so each list is compared in (score, URI) order.
	for _, m := range []string{MetricInDegree, MetricOutDegree, MetricPageRank} {
		same("hubs by "+m, func(e *Engine) (any, error) {
			hs, err := e.Graph().Hubs(ctx, HubsRequest{Metric: m, Limit: v.N})
			sort.Slice(hs, func(i, j int) bool {
				if a, b := float32(hs[i].Score), float32(hs[j].Score); a != b {
					return a > b
				}
				return hs[i].URI < hs[j].URI
			})
			for i := range hs {
				hs[i].Score = float64(float32(hs[i].Score))
			}
			return hs, err
		})
	}

	// The reconcile loop's link part: a note changed, one gone and one new
	// that links to a changed one; the notes linking to them are affected
	// alike.
	f, err := os.OpenFile(filepath.Join(root, v.Rel[0]), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\nChanged.\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Remove(filepath.Join(root, v.Rel[7])); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "new.md"), []byte("# New\n\n[[n0000]] and [[n0007]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	update(t, sq)
	update(t, pg)
	since := int64(1)
	same("affected", func(e *Engine) (any, error) { return e.Notes().Affected(ctx, AffectedRequest{Since: &since}) })
	if a, err := pg.Notes().Affected(ctx, AffectedRequest{Since: &since}); err != nil || len(a.Changed) != 3 || len(a.Notes) == 0 {
		t.Fatalf("affected on postgres: %+v, %v", a, err)
	}
	same("links of new.md", func(e *Engine) (any, error) {
		return e.Graph().Links(ctx, LinksRequest{Ref: ref.URI("vault", "new.md")})
	})
	same("unresolved after", func(e *Engine) (any, error) { return e.Graph().Unresolved(ctx, UnresolvedRequest{}) })
}
