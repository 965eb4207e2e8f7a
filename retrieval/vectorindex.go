package retrieval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/vector"
)

// vectorCache holds the in-memory vector graph of the embedding model in
// use. It is the cache's one owner: a sync or an embed forgets it, the
// next search loads it again (vectorIndex).
type vectorCache struct {
	mu    sync.Mutex
	index *vector.Graph
	// used is when a search last asked for the graph (UnixNano), so a
	// resting daemon releases its pages only once searches stopped too.
	used atomic.Int64
	// ver is the index's write state (writes counter and
	// vectors_version) when index was brought up to date, vv the
	// vectors_version alone: another process's sync or embed changes
	// them, so a long-running process (daemon, MCP server) never
	// searches a stale graph.
	ver string
	vv  int64
	// fv is the vectors_version of the file the graph maps (-1: none).
	fv int64
	// chunks is the index's chunk count at write state chunksAt (a sync
	// changes it, an embed does not), for coverage.
	chunks   int
	chunksAt string
	// srv is the same for a backend that searches its own vectors
	// (store.VectorSearcher), which gno keeps no graph of: how many
	// vectors of srvModel and how many chunks it held at write state
	// srvAt (serverVectors).
	srvModel, srvAt     string
	srvCount, srvChunks int
}

// coverage is how many chunks the cached graph covers, nil when it covers
// them all (or nothing is cached). It does no I/O.
func (c *vectorCache) coverage() *Coverage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index == nil {
		if c.srvAt == "" || c.srvCount >= c.srvChunks {
			return nil
		}
		return &Coverage{Vectors: c.srvCount, Chunks: c.srvChunks}
	}
	if c.chunksAt == "" || c.index.Len() >= c.chunks {
		return nil
	}
	return &Coverage{Vectors: c.index.Len(), Chunks: c.chunks}
}

// serverVectors returns how many vectors of model a backend that searches
// its own vectors holds, and how many chunks, for what the graph tells
// otherwise: whether to embed a question at all, and coverage. They are
// counted again only when the index's write state changed (a sync, an
// embed), so a warm search pays two small reads.
func (e *Engine) serverVectors(ctx context.Context, model string) (count, chunks int, err error) {
	st, err := e.store(ctx)
	if err != nil {
		return 0, 0, err
	}
	c := &e.vectors
	var at string
	// The key and the counts in one snapshot: counts of a later state
	// cached under an earlier key would stay until the next write.
	err = st.Read(ctx, func(ctx context.Context) error {
		writes, err := st.LinkVersion(ctx)
		if err != nil {
			return err
		}
		vv, err := st.Meta(ctx, "vectors_version")
		if err != nil {
			return err
		}
		at = writes + "/" + vv
		c.mu.Lock()
		hit := c.srvAt == at && c.srvModel == model
		count, chunks = c.srvCount, c.srvChunks
		c.mu.Unlock()
		if hit {
			return nil
		}
		// Counted outside the lock: a search waiting for the counts must
		// not hold up the searches and coverage reads that need only the
		// cache.
		if count, _, err = st.VectorCount(ctx, model); err != nil {
			return err
		}
		chunks, err = st.ChunkCount(ctx)
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	c.mu.Lock()
	c.srvModel, c.srvAt, c.srvCount, c.srvChunks = model, at, count, chunks
	c.mu.Unlock()
	return count, chunks, nil
}

// noteCoverage tells a search that used vectors how much of the index
// they cover, when not all of it; hybrid says keywords searched the rest.
func (e *Engine) noteCoverage(m *Meta, hybrid bool) {
	cov := e.vectors.coverage()
	if cov == nil {
		return
	}
	m.Embedded = cov
	rest := "the rest cannot be found by meaning yet"
	if hybrid {
		rest = "the rest was found by keywords only"
	}
	m.Notes = append(m.Notes, fmt.Sprintf("vectors cover %d of %d chunks (%.0f%%): %s; embedding continues with `gno embed` (or the daemon)",
		cov.Vectors, cov.Chunks, 100*float64(cov.Vectors)/float64(max(cov.Chunks, 1)), rest))
}

// forget drops the graph, so the next search reloads it.
func (c *vectorCache) forget() {
	c.mu.Lock()
	c.index = nil
	c.srvAt = ""
	c.mu.Unlock()
}

// graphFile is the persisted vector graph of model in the index
// directory. An index on a server gets a file of its own per store (a
// hash of its URL without the password): an index copied there from its
// SQLite file (gno store copy, then store:) has other chunk ids, and the
// file the SQLite index left, at the same vectors_version, would
// otherwise answer with other chunks.
func (e *Engine) graphFile(model string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' {
			return '_'
		}
		return r
	}, model)
	if loc := e.location(); loc != e.Paths.DBFile {
		h := sha256.Sum256([]byte(store.Redact(loc)))
		safe += "-" + hex.EncodeToString(h[:4])
	}
	return filepath.Join(e.Paths.IndexDir, "vectors-"+safe+".hnsw")
}

// vectorIndex returns the vector graph of model: the saved graph mapped
// (vector.Open: int8 codes, read in place), with what changed in SQLite
// since it was saved (rows with a newer ver, rows deleted with their
// chunks) held beside it; without a usable file (none, another model,
// damaged) the graph is built from the stored vectors and saved. A
// cached graph is checked against the index's write state first and,
// when another process wrote since, brought up to date the same way.
func (e *Engine) vectorIndex(ctx context.Context, model string) (*vector.Graph, error) {
	return e.vectorGraph(ctx, model, false)
}

// heldAtMost is how many changes a graph of n vectors holds beside its
// file: a one-shot search reads and scans them (about 1 ms per 10,000),
// a save thaws the whole graph (seconds, and its int8 codes and links:
// ~1.2 GB peak at a million, bench/RESULTS.md), and a
// cached graph holding more is opened again (the embedding process saved
// a new file).
func heldAtMost(n int) int { return max(10_000, n/20) }

// saveNow reports whether the process that loaded a graph of n vectors
// with pending changes beside its file saves a new one: gno embed always
// (save), any process past heldAtMost, and any process up to 100,000
// vectors, where a save costs less than every later process finding the
// changes again (added ones are read by version; deleted ones once by
// reading every live id, then from the tombstone list, .gone).
func saveNow(n, pending int, save bool) bool {
	return pending > 0 && (save || pending > heldAtMost(n) || n <= saveAllBelow)
}

// saveAllBelow is the graph size up to which any process saves its
// changes (a variable for tests of the larger graphs' path).
var saveAllBelow = 100_000

// vectorGraph is vectorIndex; save makes a freshly loaded graph with
// changes beside its file save a new one now (gno embed, so searches
// start from a whole file).
func (e *Engine) vectorGraph(ctx context.Context, model string, save bool) (*vector.Graph, error) {
	c := &e.vectors
	c.used.Store(time.Now().UnixNano())
	c.mu.Lock()
	defer c.mu.Unlock()
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	// The version, the counts and the rows below are one state of the
	// index: an embed committing meanwhile is in the graph and its
	// version, or in neither.
	// Detached first: the cache is shared, so it loads the newest state,
	// never the caller's older snapshot (which would drag it backwards
	// and drop vectors an embed had just added).
	ctx, end, err := st.Snapshot(st.Detach(ctx))
	if err != nil {
		return nil, err
	}
	defer end()
	writes, err := st.LinkVersion(ctx)
	if err != nil {
		return nil, err
	}
	cur, _ := st.Meta(ctx, "vectors_version")
	curVer, _ := strconv.ParseInt(cur, 10, 64)
	ver := writes + "/" + cur
	if c.chunksAt != writes {
		if n, err := st.ChunkCount(ctx); err == nil {
			c.chunks, c.chunksAt = n, writes
		}
	}
	if c.index != nil && c.index.ModelID() == model && c.ver == ver {
		return c.index, nil
	}
	cached, cachedVer, cachedFile := c.index, c.vv, c.fv
	c.index = nil
	count, dims, err := st.VectorCount(ctx, model)
	if err != nil {
		return nil, err
	}
	if count == 0 {
		c.index, c.ver, c.vv, c.fv = vector.EmptyGraph(0, model, vector.Params{}), ver, curVer, -1
		return c.index, nil
	}
	path := e.graphFile(model)
	gonePath := path + ".gone"
	// saved is the version the graph is up to date with, fileVer that of
	// the file it maps.
	var saved, fileVer int64 = -1, -1
	var g *vector.Graph
	// A cached graph that holds many changes beside its file is opened
	// again instead: the process that embedded them saved a new file.
	incremental := cached != nil && cached.ModelID() == model && cached.Dims() == dims &&
		cached.Pending() <= heldAtMost(cached.Len())
	if incremental {
		// Searches may hold it meanwhile: the graph has its own lock.
		g, saved, fileVer = cached, cachedVer, cachedFile
	} else {
		// A file of the first format is converted here, once; one of
		// another model or damaged is rebuilt below.
		g, err = vector.Open(path, dims, model, vector.Params{})
		if err == nil {
			if b, err := os.ReadFile(path + ".ver"); err == nil {
				saved, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			}
		}
		if g == nil || saved < 0 {
			g, saved = nil, -1
		}
		fileVer = saved
		if g != nil {
			// The keys deleted since the save, as a process that found
			// them left them: before the rows stored since, which may
			// bring a key back. A stale list is another file's, a
			// damaged one goes; either way the deletions are found below.
			if _, err := g.LoadGone(gonePath, saved); errors.Is(err, vector.ErrDamaged) {
				os.Remove(gonePath)
			}
		}
	}
	if g != nil && saved == curVer && g.Len() == count {
		c.index, c.ver, c.vv, c.fv = g, ver, curVer, fileVer
		return g, nil
	}
	var build *vector.Index
	if g == nil {
		build = vector.NewQuantized(dims, model, vector.Params{})
		build.Reserve(count)
	}
	err = st.EachVector(ctx, model, saved, func(id int64, v []float32) {
		if len(v) != dims {
			return
		}
		if build != nil {
			build.Add(id, v)
		} else {
			g.Add(id, v)
		}
	})
	if err != nil {
		return nil, err
	}
	if build != nil {
		// Built from the store: save it as it is (a thaw would insert
		// every vector again).
		g, fileVer = vector.GraphOf(build), -1
		if opened, err := saveIndex(build, path, curVer); err == nil {
			g, fileVer = opened, curVer
		}
		incremental = true // saved, or not worth a second try
	}
	scanned := false
	if g.Len() != count {
		// Some vectors went with their chunks: drop them from the graph.
		// Every live id is read (a deleted vector leaves no row): the
		// keys found gone are saved beside the file below, so the next
		// process does not read them all again.
		scanned = true
		fullScans.Add(1)
		live, err := st.VectorChunks(ctx, model)
		if err != nil {
			return nil, err
		}
		for _, id := range g.Keys() {
			if !live[id] {
				g.Delete(id)
			}
		}
	}
	if g.Len() < count {
		// The file lacks vectors its version says it holds (two processes
		// saved at once, and the sidecar of one names the other's file):
		// add what is missing rather than leave it unsearchable.
		have := map[int64]bool{}
		for _, id := range g.Keys() {
			have[id] = true
		}
		err := st.EachVector(ctx, model, -1, func(id int64, v []float32) {
			if len(v) == dims && !have[id] {
				g.Add(id, v)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	// A failed save only costs the next process a rebuild. An update in
	// memory leaves the file to the next embed (saving a large graph
	// after every sync would cost more than it saves).
	switch {
	case incremental:
	case saveNow(g.Len(), g.Pending(), save):
		ix, err := g.Thaw()
		if errors.Is(err, vector.ErrDamaged) {
			os.Remove(path) // the next process builds it again
		} else if err == nil {
			if opened, err := saveIndex(ix, path, curVer); err == nil {
				g, fileVer = opened, curVer
			}
		}
	case g.Pending() == 0 && saved != curVer:
		// The file holds this version's vectors already.
		if config.WriteFileAtomic(path+".ver", []byte(strconv.FormatInt(curVer, 10)), 0o644) == nil {
			fileVer = curVer
		}
	}
	if scanned && fileVer >= 0 {
		// A failed write only costs the next process the scan.
		g.SaveGone(gonePath, fileVer)
	}
	c.index, c.ver, c.vv, c.fv = g, ver, curVer, fileVer
	return g, nil
}

// fullScans counts the loads that read every live vector id to find
// deletions (tests: a tombstone list saved beside the graph spares the
// next process that).
var fullScans atomic.Int64

// saveIndex saves ix at path, as of vectors_version ver, and opens the
// file.
func saveIndex(ix *vector.Index, path string, ver int64) (*vector.Graph, error) {
	if err := ix.Save(path); err != nil {
		return nil, err
	}
	if err := config.WriteFileAtomic(path+".ver", []byte(strconv.FormatInt(ver, 10)), 0o644); err != nil {
		return nil, err
	}
	return vector.Open(path, ix.Dims(), ix.ModelID(), vector.Params{})
}

// dropDamaged removes model's graph file, found damaged by a search (its
// header and upper table are checked when it opens, its links as a walk
// reads them), so the next search rebuilds it from the stored vectors.
func (e *Engine) dropDamaged(model string) {
	c := &e.vectors
	c.mu.Lock()
	defer c.mu.Unlock()
	c.index = nil
	os.Remove(e.graphFile(model))
}

// knownEmpty reports whether the cached graph is model's and holds no
// vectors. It does no I/O and does not wait: a stale or missing cache,
// or one being loaded, says false.
func (c *vectorCache) knownEmpty(model string) bool {
	if !c.mu.TryLock() {
		return false
	}
	defer c.mu.Unlock()
	if c.index == nil {
		return c.srvAt != "" && c.srvModel == model && c.srvCount == 0
	}
	return c.index.ModelID() == model && c.index.Len() == 0
}
