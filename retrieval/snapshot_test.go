package retrieval

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/internal/readhook"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// The snapshot rule: every read a front end reaches sees the index as one
// committed state. Each case below runs with a sync committed at its n-th
// read statement, for every n the read has, through the real writer
// (files changed on disk, Engine.Update): the answer must equal the one
// before the sync or the one after it, whole. Before the rule a Get whose
// document a sync removed between its statements failed with a bare
// "sql: no rows in result set" (issue 30).

var snapshotNotes = map[string]string{
	"a.md": "---\ntags: [alpha]\naliases: [first]\n---\n# Alpha\n\nzebra apple, see [[b]] and [[c]] and [[missing]].\n\n## Part\n\nmore zebra words.\n",
	"b.md": "---\ntags: [beta, alpha/sub]\n---\n# Beta\n\nzebra banana, back to [[a]].\n",
	"c.md": "# Gamma\n\nzebra cherry, to [[a]] and [[b]].\n",
	"d.md": "# Delta\n\nalone with a zebra.\n",
}

// snapshotChange is the sync under test: b.md removed, c.md rewritten
// (new title, links and tags), e.md added.
func snapshotChange(t testing.TB, root string) {
	if err := os.Remove(filepath.Join(root, "b.md")); err != nil {
		t.Error(err)
	}
	writeAt(t, root, "c.md", "---\ntags: [gamma]\n---\n# Gamma two\n\nzebra cherry changed, to [[a]] and [[d]].\n")
	writeAt(t, root, "e.md", "# Epsilon\n\nzebra elder, to [[c]].\n")
}

// writeAt writes a file with a fixed mtime, so two runs index it alike.
func writeAt(t testing.TB, root, name, body string) {
	p := filepath.Join(root, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Error(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Error(err)
	}
}

type snapshotCase struct {
	name string
	read func(ctx context.Context, e *Engine) (any, error)
}

var snapshotCases = []snapshotCase{
	{"get removed", func(ctx context.Context, e *Engine) (any, error) {
		return e.Get(ctx, GetRequest{Ref: "gno://notes/b.md"})
	}},
	{"get changed", func(ctx context.Context, e *Engine) (any, error) {
		return e.Get(ctx, GetRequest{Ref: "gno://notes/c.md", FromLine: 2, LineCount: 5})
	}},
	{"multi-get refs", func(ctx context.Context, e *Engine) (any, error) {
		return e.MultiGet(ctx, MultiGetRequest{Refs: []string{"gno://notes/a.md", "gno://notes/b.md", "gno://notes/c.md"}})
	}},
	{"multi-get pattern", func(ctx context.Context, e *Engine) (any, error) {
		return e.MultiGet(ctx, MultiGetRequest{Pattern: "notes/*.md"})
	}},
	{"list", func(ctx context.Context, e *Engine) (any, error) { return e.List(ctx, "", 0, 0) }},
	{"search", func(ctx context.Context, e *Engine) (any, error) {
		return e.Search(ctx, SearchRequest{Query: "zebra", Limit: 10, Full: true})
	}},
	{"search filtered", func(ctx context.Context, e *Engine) (any, error) {
		return e.Search(ctx, SearchRequest{Query: "zebra OR cherry", Limit: 10, TagsAny: []string{"alpha", "gamma"}})
	}},
	{"query", func(ctx context.Context, e *Engine) (any, error) {
		return e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "zebra cherry", Limit: 10}})
	}},
	{"vsearch", func(ctx context.Context, e *Engine) (any, error) {
		return e.VSearch(ctx, SearchRequest{Query: "zebra cherry", Limit: 10})
	}},
	{"status", func(ctx context.Context, e *Engine) (any, error) { return e.Status(ctx) }},
	{"changes", func(ctx context.Context, e *Engine) (any, error) {
		return e.Notes().Changes(ctx, ChangesRequest{})
	}},
	{"tags", func(ctx context.Context, e *Engine) (any, error) { return e.Notes().Tags(ctx, TagsRequest{}) }},
	{"tagged", func(ctx context.Context, e *Engine) (any, error) {
		return e.Notes().Tagged(ctx, TaggedRequest{Tags: []string{"alpha", "gamma"}})
	}},
	{"tree", func(ctx context.Context, e *Engine) (any, error) { return e.Notes().Tree(ctx, TreeRequest{}) }},
	{"links", func(ctx context.Context, e *Engine) (any, error) {
		return e.Graph().Links(ctx, LinksRequest{Ref: "gno://notes/a.md"})
	}},
	{"unresolved", func(ctx context.Context, e *Engine) (any, error) {
		return e.Graph().Unresolved(ctx, UnresolvedRequest{})
	}},
	{"neighbours", func(ctx context.Context, e *Engine) (any, error) {
		return e.Graph().Neighbours(ctx, NeighboursRequest{Ref: "gno://notes/a.md", ContentChars: 40})
	}},
	{"path", func(ctx context.Context, e *Engine) (any, error) {
		return e.Graph().Path(ctx, PathRequest{Source: "gno://notes/c.md", Target: "gno://notes/b.md", Undirected: true})
	}},
	{"hubs", func(ctx context.Context, e *Engine) (any, error) {
		return e.Graph().Hubs(ctx, HubsRequest{Metric: MetricPageRank})
	}},
	{"orphans", func(ctx context.Context, e *Engine) (any, error) { return e.Graph().Orphans(ctx, OrphansRequest{}) }},
	{"graph stats", func(ctx context.Context, e *Engine) (any, error) { return e.Graph().Stats(ctx) }},
	{"whole graph", func(ctx context.Context, e *Engine) (any, error) {
		w, err := e.Graph().Whole(ctx)
		if err != nil {
			return nil, err
		}
		return roundRanks(w), nil
	}},
	{"related", func(ctx context.Context, e *Engine) (any, error) {
		return e.Graph().Related(ctx, RelatedRequest{Ref: "gno://notes/a.md"})
	}},
	{"resolve", func(ctx context.Context, e *Engine) (any, error) {
		return e.Graph().Resolve(ctx, ResolveRequest{Names: []string{"beta", "gamma two", "first"}, Strategy: ResolveExact})
	}},
	{"complete", func(ctx context.Context, e *Engine) (any, error) {
		return e.Graph().Complete(ctx, CompleteRequest{Text: "b#", From: "gno://notes/a.md"})
	}},
	{"follow", func(ctx context.Context, e *Engine) (any, error) {
		return e.Graph().Follow(ctx, FollowRequest{From: "gno://notes/c.md", Target: "b"})
	}},
}

// answer is a read's outcome as compared: its JSON, or its error's code
// (a message must name what it did not find, checked apart).
// roundRanks is w with its ranks rounded to 1e-6: PageRank starts from
// the last ranks the engine computed (graph.RanksFrom), so a rank equals
// a cold start's within the iteration's tolerance, not bit for bit (the
// answer after the sync follows the one before it; a fresh engine's
// read starts cold).
func roundRanks(w *WholeGraph) *WholeGraph {
	c, in := *w, *w.Input
	in.Rank = make([]float64, len(w.Input.Rank))
	for i, r := range w.Input.Rank {
		in.Rank[i] = math.Round(r*1e6) / 1e6
	}
	c.Input = &in
	return &c
}

func answer(t *testing.T) func(v any, err error) string {
	return func(v any, err error) string {
		t.Helper()
		if err != nil {
			if strings.Contains(err.Error(), "sql:") {
				t.Errorf("database text in an error: %v", err)
			}
			return "error " + string(gnoerr.CodeOf(err))
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

type snapshotEnv struct {
	home, root, tmplHome, tmplRoot string
}

// newSnapshotEnv indexes snapshotNotes once into a template; each run
// copies it back to the same paths, so answers compare byte for byte.
func newSnapshotEnv(t *testing.T) *snapshotEnv {
	base := t.TempDir()
	s := &snapshotEnv{home: filepath.Join(base, "home"), root: filepath.Join(base, "notes"),
		tmplHome: filepath.Join(base, "tmpl-home"), tmplRoot: filepath.Join(base, "tmpl-notes")}
	pgtest.Home(t, s.home)
	t.Setenv("GNO_MODELS_DIR", filepath.Join(base, "no-models"))
	for name, body := range snapshotNotes {
		if err := os.MkdirAll(s.root, 0o755); err != nil {
			t.Fatal(err)
		}
		writeAt(t, s.root, name, body)
	}
	ctx := context.Background()
	e, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "notes", Path: s.root, Include: []string{"**/*.md"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, mv := range [][2]string{{s.home, s.tmplHome}, {s.root, s.tmplRoot}} {
		if err := os.Rename(mv[0], mv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// open restores the template and opens an engine on it.
func (s *snapshotEnv) open(t *testing.T) *Engine {
	for _, cp := range [][2]string{{s.tmplHome, s.home}, {s.tmplRoot, s.root}} {
		if err := os.RemoveAll(cp[1]); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(cp[1], os.DirFS(cp[0])); err != nil {
			t.Fatal(err)
		}
	}
	// The copies' times as indexed, so the sync sees only its changes.
	for name := range snapshotNotes {
		at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		if err := os.Chtimes(filepath.Join(s.root, name), at, at); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Open the database now: the hook counts the read's statements.
	if _, err := e.store(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

// syncNow changes the files and syncs them through the writer.
func (s *snapshotEnv) syncNow(t testing.TB, e *Engine) {
	snapshotChange(t, s.root)
	if _, err := e.Update(context.Background(), UpdateOptions{}); err != nil {
		t.Errorf("sync: %v", err)
	}
}

type readKey struct{}

func TestReadsAreSnapshots(t *testing.T) {
	env := newSnapshotEnv(t)
	for _, c := range snapshotCases {
		t.Run(c.name, func(t *testing.T) {
			// The two answers a read may give: before the sync and after.
			e := env.open(t)
			before := answer(t)(c.read(context.Background(), e))
			env.syncNow(t, e)
			after := answer(t)(c.read(context.Background(), e))
			e.Close()
			if c.name == "get removed" && after != "error "+string(gnoerr.NotFound) {
				t.Fatalf("a removed document: %s, want NOT_FOUND", after)
			}
			sawAfter := false
			for n := 1; ; n++ {
				e := env.open(t)
				var stmts atomic.Int32
				var once sync.Once
				restore := readhook.Set(func(ctx context.Context) {
					if ctx.Value(readKey{}) == nil {
						return // the sync's own reads
					}
					if stmts.Add(1) == int32(n) {
						once.Do(func() { env.syncNow(t, e) })
					}
				})
				got := answer(t)(c.read(context.WithValue(context.Background(), readKey{}, true), e))
				restore()
				e.Close()
				if got != before && got != after {
					t.Fatalf("sync at read statement %d: a mix of two states:\n got    %s\n before %s\n after  %s", n, got, before, after)
				}
				sawAfter = sawAfter || got == after
				if stmts.Load() < int32(n) {
					break // the read has fewer statements: every gap was tried
				}
				if n > 60 {
					t.Fatalf("more than 60 read statements")
				}
			}
			// A sync before the first statement is seen whole.
			if !sawAfter {
				t.Errorf("no run saw the sync, not even one before the read's first statement")
			}
		})
	}
}

// TestGetRemovedIsNotFound: a Get of a document a sync removed is
// NOT_FOUND naming the ref, never the database's text.
func TestGetRemovedIsNotFound(t *testing.T) {
	env := newSnapshotEnv(t)
	e := env.open(t)
	defer e.Close()
	env.syncNow(t, e)
	_, err := e.Get(context.Background(), GetRequest{Ref: "gno://notes/b.md"})
	if !gnoerr.Is(err, gnoerr.NotFound) || !strings.Contains(err.Error(), "gno://notes/b.md") || strings.Contains(err.Error(), "sql") {
		t.Fatalf("get of a removed document: %v", err)
	}
	res, err := e.MultiGet(context.Background(), MultiGetRequest{Refs: []string{"gno://notes/b.md"}})
	if err != nil || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "not found") {
		t.Fatalf("multi-get of a removed document: %+v, %v", res, err)
	}
}
