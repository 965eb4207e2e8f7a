package retrieval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
)

// queryCounter counts, per collection, the searches whose results came
// from it, so that Embed embeds first the collections the user searches
// most. It is a hint, kept cheap: counted in memory, added to a small
// JSON file beside the index (never the database, so a search never waits
// for a sync's write lock) when the engine closes or every
// queryFlushEvery searches. Two processes flushing at once may lose a few
// counts; nothing else depends on them.
type queryCounter struct {
	mu      sync.Mutex
	pending map[string]int64
	n       int
	wg      sync.WaitGroup
	// closed stops new background flushes once Close waits for them (an
	// Add racing a Wait from zero is a misuse of WaitGroup).
	closed bool
	// file serialises this process's flushes.
	file sync.Mutex
}

// queryFlushEvery is how many searches a long-running process (daemon,
// MCP server) counts in memory before it adds them to the file.
const queryFlushEvery = 32

// queryCountsFile is where the counts live.
func (e *Engine) queryCountsFile() string {
	return filepath.Join(e.Paths.IndexDir, "query-counts.json")
}

// countQuery counts one search over the collections its results came
// from.
func (e *Engine) countQuery(cols []string) {
	if e.pkgs || len(cols) == 0 {
		return
	}
	c := &e.queries
	c.mu.Lock()
	if c.pending == nil {
		c.pending = map[string]int64{}
	}
	for _, col := range cols {
		c.pending[col]++
	}
	c.n++
	flush := c.n >= queryFlushEvery && !c.closed
	if flush {
		c.wg.Add(1) // under mu, so never after closeQueryCounts set closed
	}
	c.mu.Unlock()
	if flush {
		go func() {
			defer c.wg.Done()
			e.flushQueryCounts()
		}()
	}
}

// flushQueryCounts adds the counts in memory to the file.
func (e *Engine) flushQueryCounts() {
	c := &e.queries
	c.mu.Lock()
	add := c.pending
	c.pending, c.n = nil, 0
	c.mu.Unlock()
	if len(add) == 0 {
		return
	}
	c.file.Lock()
	defer c.file.Unlock()
	counts := readQueryCounts(e.queryCountsFile())
	for col, n := range add {
		counts[col] += n
	}
	b, err := json.Marshal(counts)
	if err != nil {
		return
	}
	path := e.queryCountsFile()
	// An index on a server has no folder of its own until something
	// local (these counts) needs one.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".query-counts.*")
	if err != nil {
		return
	}
	// No fsync: the counts are a hint for the embedding order, and a
	// crash that leaves the file empty only forgets them.
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr == nil && cerr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
}

// closeQueryCounts waits for flushes under way and flushes the rest.
func (e *Engine) closeQueryCounts() {
	e.queries.mu.Lock()
	e.queries.closed = true
	e.queries.mu.Unlock()
	e.queries.wg.Wait()
	e.flushQueryCounts()
}

// queryCounts are the counts of the file and those still in memory.
func (e *Engine) queryCounts() map[string]int64 {
	counts := readQueryCounts(e.queryCountsFile())
	c := &e.queries
	c.mu.Lock()
	for col, n := range c.pending {
		counts[col] += n
	}
	c.mu.Unlock()
	return counts
}

// readQueryCounts reads the file; a missing or damaged one counts nothing.
func readQueryCounts(path string) map[string]int64 {
	counts := map[string]int64{}
	if b, err := os.ReadFile(path); err == nil {
		if json.Unmarshal(b, &counts) != nil {
			counts = map[string]int64{}
		}
	}
	return counts
}
