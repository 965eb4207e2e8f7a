package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnosearch/gno/server/daemon/wire"
)

// Status is a running daemon's state, as `gno daemon status` shows it.
type Status struct {
	Info
	UptimeSeconds float64 `json:"uptimeSeconds"`
	// State is what the worker does: idle, syncing COLLECTION,
	// embedding, warming up.
	State string `json:"state"`
	// Queued are collections waiting for a sync.
	Queued    []string  `json:"queued,omitempty"`
	LastSync  time.Time `json:"lastSync,omitzero"`
	LastWhat  string    `json:"lastResult,omitempty"`
	LastError string    `json:"lastError,omitempty"`
	// EmbedOff says why the backlog is not embedded ("" when it is).
	EmbedOff string `json:"embedOff,omitempty"`
	// Backlog is the number of chunks without a vector; Documents the
	// index's documents.
	Backlog   int `json:"embeddingBacklog"`
	Documents int `json:"documents"`
	// Watched folders, and those the OS would not let it watch.
	Watched     int `json:"watchedFolders"`
	Unwatchable int `json:"unwatchableFolders,omitempty"`
	// Requests answered on the socket, and those running now.
	Requests int64 `json:"cliRequests"`
	InFlight int   `json:"cliInFlight"`
}

func (d *daemon) status(ctx context.Context) Status {
	s := Status{Info: d.info, UptimeSeconds: time.Since(d.started).Seconds(),
		Requests: d.served.Load(), InFlight: int(d.inflight.Load())}
	w := d.work
	w.mu.Lock()
	s.State, s.LastSync, s.LastWhat, s.LastError, s.EmbedOff = w.state, w.lastSync, w.lastWhat, w.lastErr, w.embedOff
	for c := range w.pending {
		s.Queued = append(s.Queued, c)
	}
	w.mu.Unlock()
	s.Watched, s.Unwatchable = d.watcher.Folders()
	if st, err := d.e.Status(ctx); err == nil {
		s.Backlog, s.Documents = st.EmbeddingBacklog, st.TotalDocuments
	}
	return s
}

// ErrNotRunning is the answer when no daemon serves the index.
var ErrNotRunning = errors.New("no gno daemon is running for this index")

// Ask sends a status or stop request (wire.KindStatus, wire.KindStop)
// to the daemon of the index in dir and returns its state (for a stop,
// only Info is set).
func Ask(dir string, kind byte) (*Status, error) {
	b, err := os.ReadFile(filepath.Join(dir, wire.EndpointFile))
	if err != nil {
		return nil, ErrNotRunning
	}
	sock := strings.TrimSpace(string(b))
	if err := wire.CheckSocket(sock); err != nil {
		return nil, fmt.Errorf("daemon socket %s: %w", sock, err)
	}
	c, err := wire.Dial(sock, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("daemon socket %s: %w", sock, err)
	}
	defer c.Close()
	if _, err := c.Write((&wire.Request{Kind: kind, Build: wire.Build()}).Encode()); err != nil {
		return nil, err
	}
	c.SetReadTimeout(30 * time.Second)
	typ, p, err := wire.ReadFrame(c, nil)
	if err != nil {
		return nil, fmt.Errorf("daemon socket %s: %w", sock, err)
	}
	if typ != wire.FrameReply {
		return nil, fmt.Errorf("daemon: %s", p)
	}
	var s Status
	if kind == wire.KindStatus {
		if err := json.Unmarshal(p, &s); err != nil {
			return nil, fmt.Errorf("daemon status: %w", err)
		}
	}
	return &s, nil
}
