package retrieval

import (
	"testing"
	"time"
)

// TestReleasePagesWaitsForNothing: a resting daemon's release skips a
// graph a search asked for within the idle time, and returns at once
// while the graph cache is held (a load can take minutes at 1M vectors,
// and the daemon must still answer a wake or a shutdown).
func TestReleasePagesWaitsForNothing(t *testing.T) {
	e, _ := newEngine(t, map[string]string{"a.md": "# A\n\nalpha\n"})
	m := e.Models()
	e.vectors.used.Store(time.Now().UnixNano())
	if m.ReleasePages(time.Hour) {
		t.Fatal("released a graph searched just now")
	}
	e.vectors.mu.Lock()
	done := make(chan bool)
	go func() { done <- m.ReleasePages(0) }()
	if <-done {
		t.Fatal("released while the cache was held")
	}
	e.vectors.mu.Unlock()
	if m.ReleasePages(0) {
		t.Fatal("released with no graph loaded")
	}
}
