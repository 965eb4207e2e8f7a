package jobs

import (
	"io"
	"log/slog"
	"testing"
	"time"
)

func TestJobRetention(t *testing.T) {
	j := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer j.Shutdown()
	old := time.Now().Add(-2 * retention)
	for i := range maxKept + 20 {
		e := &Entry{job: Job{ID: newJobID(), Status: Completed}, finished: time.Now().Add(time.Duration(i) * time.Millisecond), done: make(chan struct{})}
		if i < 5 {
			e.finished = old
		}
		j.all[e.job.ID] = e
	}
	j.mu.Lock()
	j.prune(time.Now())
	n := len(j.all)
	j.mu.Unlock()
	if n != maxKept {
		t.Fatalf("kept %d jobs, want %d", n, maxKept)
	}
}
