package retrieval

import (
	"context"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// vectorState holds the lazily loaded embedder and vector graph.
type vectorState struct{}

func (v *vectorState) close() {}

// embedModelName is the configured embedding model, "" if none.
func (e *Engine) embedModelName() string { return e.Config().Models.Embed }

// modelIssues lists problems with the configured models for status.
func (e *Engine) modelIssues() []string { return nil }

// syncVectors brings the vector graph in line with the store after a sync.
func (e *Engine) syncVectors(ctx context.Context) error { return nil }

// EmbedOptions tune Embed.
type EmbedOptions struct {
	Collection string
	// Force re-embeds every chunk.
	Force    bool
	Progress func(done, total int)
}

// EmbedResult summarises an embedding run.
type EmbedResult struct {
	Model        string  `json:"model"`
	Embedded     int     `json:"embedded"`
	Total        int     `json:"total"`
	DurationMS   float64 `json:"durationMs"`
	ChunksPerSec float64 `json:"chunksPerSec"`
}

// Embed computes vectors for chunks that lack them.
func (e *Engine) Embed(ctx context.Context, opt EmbedOptions) (*EmbedResult, error) {
	return nil, gnoerr.New(gnoerr.Unavailable, "no embedding model installed: run `make models` or `gno models pull`")
}
