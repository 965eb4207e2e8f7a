package retrieval

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// EmbedOptions tune Embed.
type EmbedOptions struct {
	Collection string
	// Skip are collections left unembedded (a package index's standard
	// libraries: searched by BM25 alone unless asked).
	Skip []string
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

// embedBatch is how many chunks one forward pass and one transaction hold;
// a killed run loses at most one batch.
const embedBatch = 32

// Embed computes vectors for chunks that lack one for the active model.
// It is resumable: every batch is committed as it completes.
func (w *Writer) Embed(ctx context.Context, opt EmbedOptions) (*EmbedResult, error) {
	start := time.Now()
	emb, err := w.e.models.checkedEmbedder(ctx)
	if err != nil {
		return nil, err
	}
	return w.embed(ctx, emb, opt, start)
}

func (w *Writer) embed(ctx context.Context, emb inference.Embedder, opt EmbedOptions, start time.Time) (*EmbedResult, error) {
	e := w.e
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	model := emb.ModelID()
	// Vectors of another model are stale: drop them.
	keep := model
	if opt.Force {
		keep = ""
	}
	if err := st.DropVectors(ctx, keep); err != nil {
		return nil, err
	}
	var col string
	if opt.Collection != "" {
		col = strings.ToLower(opt.Collection)
		if _, ok := e.Config().Collection(col); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", opt.Collection)
		}
	}
	chunks, err := st.Unembedded(ctx, col, opt.Skip...)
	if err != nil {
		return nil, err
	}
	todo := make([]pending, len(chunks))
	for i, c := range chunks {
		todo[i] = pending{id: c.ID, text: embedText(c.Title, c.Headings, c.Body)}
	}
	// Similar lengths together waste no padding.
	sort.SliceStable(todo, func(i, j int) bool { return len(todo[i].text) < len(todo[j].text) })
	res := &EmbedResult{Model: model}
	for i := 0; i < len(todo); i += embedBatch {
		batch := todo[i:min(i+embedBatch, len(todo))]
		texts := make([]string, len(batch))
		ids := make([]int64, len(batch))
		for j, p := range batch {
			texts[j], ids[j] = p.text, p.id
		}
		vecs, err := emb.Embed(ctx, texts, inference.Document)
		if err != nil {
			return res, fmt.Errorf("embed: %w", err)
		}
		if err := st.PutVectors(ctx, model, ids, vecs); err != nil {
			return res, err
		}
		res.Embedded += len(batch)
		if opt.Progress != nil {
			opt.Progress(res.Embedded, len(todo))
		}
	}
	if err := st.SetMeta(ctx, "embed_model", model); err != nil {
		return res, err
	}
	if err := st.SetMeta(ctx, "embed_dim", strconv.Itoa(emb.Dim())); err != nil {
		return res, err
	}
	res.Total, _, _ = st.VectorCount(ctx, model)
	d := time.Since(start)
	res.DurationMS = ms(d)
	if res.Embedded > 0 {
		res.ChunksPerSec = float64(res.Embedded) / d.Seconds()
	}
	// Build (or bring up to date) and save the graph now, so searches
	// start from the export.
	e.vectors.forget()
	if _, err := e.vectorGraph(ctx, model, true); err != nil {
		return res, err
	}
	return res, nil
}

type pending struct {
	id   int64
	text string
}

// embedText is what the embedder sees for a chunk: the document title and
// heading path give a passage its topic when the body alone does not.
func embedText(title, headings, body string) string {
	var b strings.Builder
	if title != "" && !strings.Contains(body[:min(len(body), len(title)+8)], title) {
		b.WriteString(title)
		b.WriteString("\n")
	}
	if headings != "" && headings != title {
		b.WriteString(headings)
		b.WriteString("\n")
	}
	b.WriteString(body)
	return b.String()
}
