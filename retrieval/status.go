package retrieval

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gnosearch/gno/retrieval/store"
)

// quickCheckBudget bounds the integrity check `gno status` runs, so status
// stays fast on a large index; doctor runs the full check.
const quickCheckBudget = 300 * time.Millisecond

// Status reports the index's health.
func (e *Engine) Status(ctx context.Context) (*Status, error) {
	return readAs(ctx, e, func(ctx context.Context) (*Status, error) { return e.status(ctx) })
}

func (e *Engine) status(ctx context.Context) (*Status, error) {
	cfg := e.Config()
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	model := e.models.EmbedModel()
	counts, err := e.counts(ctx, st, model)
	if err != nil {
		return nil, damaged(e.Paths.DBFile, err)
	}
	stats := counts.Stats
	gen, _ := st.Generation(ctx)
	s := &Status{IndexName: e.Paths.Index, ConfigPath: e.Paths.ConfigFile, DBPath: st.Path(),
		Collections: []CollectionStatus{}, Generation: gen, EmbedModel: model, Healthy: true}
	if p := st.QuickCheck(ctx, quickCheckBudget); p != "" {
		s.Healthy = false
		s.Issues = append(s.Issues, fmt.Sprintf("index is damaged (%s): rebuild it from your files with `gno update --rebuild`", p))
	}
	if srv := serverStatus(ctx, st); srv != nil {
		s.Server = srv
		if r := srv.Replica; r != nil && r.Problem != "" {
			s.Healthy = false
			s.Issues = append(s.Issues, fmt.Sprintf("read replica %s: %s", r.Server, r.Problem))
		}
	}
	for _, c := range cfg.Collections {
		cs := CollectionStatus{Name: c.Name, Path: c.Path, Available: true}
		if fi, err := os.Stat(c.Path); err != nil || !fi.IsDir() {
			cs.Available = false
			s.Healthy = false
			s.Issues = append(s.Issues, fmt.Sprintf("collection %s: folder %s is missing", c.Name, c.Path))
		}
		if x := stats[c.Name]; x != nil {
			cs.DocumentCount, cs.ChunkCount, cs.EmbeddedCount = x.Docs, x.Chunks, x.Embedded
		}
		if cs.Skipped, err = st.SkipCounts(ctx, c.Name); err != nil {
			return nil, err
		}
		if len(cs.Skipped) == 0 {
			cs.Skipped = nil
		}
		s.TotalDocuments += cs.DocumentCount
		s.TotalChunks += cs.ChunkCount
		if model != "" {
			s.EmbeddingBacklog += cs.ChunkCount - cs.EmbeddedCount
		}
		s.Collections = append(s.Collections, cs)
	}
	if ls := counts.Links; ls != nil {
		for _, x := range ls {
			s.Links += x.Links
			s.UnresolvedLinks += x.Unresolved
		}
	}
	s.Issues = append(s.Issues, e.models.issues()...)
	if s.EmbeddingBacklog > 0 {
		s.Embedding = embedRunning(ctx, st, time.Now())
	}
	return s, nil
}

// serverStatus describes the index's server and its read replica within
// a few quick checks' time; nil for a SQLite index, or when the server
// does not answer in time (QuickCheck says so).
func serverStatus(ctx context.Context, st store.Backend) *store.ServerInfo {
	ctx, cancel := context.WithTimeout(ctx, 3*quickCheckBudget)
	defer cancel()
	info, err := st.Server(ctx)
	if err != nil {
		return nil
	}
	return info
}

// replicaLag is the read replica's delay for a search's meta; nil when
// the reads go to the store. The store measures it at most once a
// second, so a search pays no round trip for it most of the time.
func replicaLag(ctx context.Context, st store.Backend) *ReplicaLag {
	srv := serverStatus(ctx, st)
	if srv == nil || srv.Replica == nil || srv.Replica.Problem != "" || !srv.Replica.Standby {
		return nil
	}
	return &ReplicaLag{LagSeconds: srv.Replica.LagSeconds, LagBytes: srv.Replica.LagBytes}
}
