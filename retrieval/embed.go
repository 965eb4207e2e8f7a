package retrieval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
)

// EmbedOptions tune Embed.
type EmbedOptions struct {
	Collection string
	// Skip are collections left unembedded (a package index's standard
	// libraries: searched by BM25 alone unless asked).
	Skip []string
	// Force re-embeds every chunk.
	Force bool
	// Progress is called after every batch with the chunks embedded so
	// far and the backlog at the start.
	Progress func(done, total int)
	// OnProgress is Progress with the rate and the time left.
	OnProgress func(EmbedProgress)
	// Text, when set, gives the text embedded for a chunk of a collection
	// ("" for the default: title, headings and body). The package index
	// embeds a standard library's API items as a compact text.
	Text func(collection, title, headings, body string) string
}

// EmbedProgress is where an embedding run stands.
type EmbedProgress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
	// DoneBytes and TotalBytes count the text the embedder reads: its
	// cost follows them more than the chunk count does.
	DoneBytes  int64         `json:"doneBytes"`
	TotalBytes int64         `json:"totalBytes"`
	Elapsed    time.Duration `json:"-"`
	// ChunksPerSec is the rate since the first batch (model loading
	// and warm-up left out).
	ChunksPerSec float64 `json:"chunksPerSec"`
	// ETA is the text left at the byte rate since the first batch; 0
	// until a second batch has been timed.
	ETA time.Duration `json:"-"`
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

// embedWindow is how many chunks of the queue are read and sorted by
// length at a time: enough that batches of similar lengths waste little
// padding, few enough that the queue's order (what the user will search
// first) holds and the text in memory stays small (a few MB).
const embedWindow = 32 * embedBatch

// recentEdit is how recent a document's change must be for its chunks to
// be embedded before everything else.
const recentEdit = 7 * 24 * time.Hour

// Embed computes vectors for chunks that lack one for the active model.
// It is resumable: every batch is committed as it completes, and a run
// killed or cut short starts again where it stopped.
//
// The backlog is embedded in the order the user is likely to search it:
// chunks of documents changed in the last week first (newest first), then
// the collections queried most (queryCounts), newest documents first
// within each. Searches meanwhile use the vectors already stored, and say
// how much of the index they cover (Meta.Embedded); status shows the
// run's progress (Status.Embedding).
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
	// Vectors of another model are stale: drop them. The model is
	// recorded first, so a run cut short and resumed (the daemon embeds
	// in slices) does not scan the vectors again.
	made, err := st.Meta(ctx, "embed_model")
	if err != nil {
		return nil, err // a read that failed is no model change: it must not drop the vectors
	}
	if opt.Force || made != model {
		keep := model
		if opt.Force {
			keep = ""
		}
		if err := st.DropVectors(ctx, keep); err != nil {
			return nil, err
		}
		if err := st.SetMeta(ctx, "embed_model", model); err != nil {
			return nil, err
		}
	}
	if dim, err := st.Meta(ctx, "embed_dim"); err != nil {
		return nil, err
	} else if dim != strconv.Itoa(emb.Dim()) {
		if err := st.SetMeta(ctx, "embed_dim", strconv.Itoa(emb.Dim())); err != nil {
			return nil, err
		}
	}
	var col string
	if opt.Collection != "" {
		col = strings.ToLower(opt.Collection)
		if _, ok := e.Config().Collection(col); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", opt.Collection)
		}
	}
	// Also after a cancelled run: its queue is worth keeping.
	key := func() string { return embedQueueKey(context.WithoutCancel(ctx), st, model, col, opt.Skip) }
	queue := e.embedQueue.take(key())
	if queue == nil || opt.Force {
		if queue, err = st.EmbedQueue(ctx, col, opt.Skip...); err != nil {
			return nil, err
		}
		orderQueue(queue, e.queryCounts(), time.Now())
	}
	res := &EmbedResult{Model: model}
	run := newEmbedRun(st, model, queue)
	defer run.end(ctx)
	// What is left when the run stops (cut short: the daemon embeds in
	// slices) is kept for the next run while the index stays as this
	// run leaves it.
	var left func() []store.Queued
	defer func() {
		if left != nil {
			e.embedQueue.put(key(), left())
		}
	}()
	for i := 0; i < len(queue); i += embedWindow {
		win := queue[i:min(i+embedWindow, len(queue))]
		stored := map[int64]bool{}
		left = func() []store.Queued {
			rest := make([]store.Queued, 0, len(queue)-i)
			for _, q := range win {
				if !stored[q.ID] {
					rest = append(rest, q)
				}
			}
			return append(rest, queue[i+len(win):]...)
		}
		ids := make([]int64, len(win))
		for j, q := range win {
			ids[j] = q.ID
		}
		texts, err := st.ChunkTexts(ctx, ids)
		if err != nil {
			return res, err
		}
		todo := make([]pending, 0, len(win))
		for _, q := range win {
			if c, ok := texts[q.ID]; ok { // else deleted meanwhile
				text := ""
				if opt.Text != nil {
					text = opt.Text(q.Collection, c.Title, c.Headings, c.Body)
				}
				if text == "" {
					text = embedText(c.Title, c.Headings, c.Body)
				}
				todo = append(todo, pending{id: c.ID, text: text, bytes: q.Bytes})
			} else {
				run.skip(q.Bytes)
			}
		}
		// Similar lengths together waste no padding.
		sort.SliceStable(todo, func(i, j int) bool { return len(todo[i].text) < len(todo[j].text) })
		for k := 0; k < len(todo); k += embedBatch {
			batch := todo[k:min(k+embedBatch, len(todo))]
			texts := make([]string, len(batch))
			ids := make([]int64, len(batch))
			var bytes int64
			for j, p := range batch {
				texts[j], ids[j] = p.text, p.id
				bytes += int64(p.bytes)
			}
			vecs, err := emb.Embed(ctx, texts, inference.Document)
			if err != nil {
				return res, fmt.Errorf("embed: %w", err)
			}
			if err := st.PutVectors(ctx, model, ids, vecs); err != nil {
				return res, err
			}
			for _, id := range ids {
				stored[id] = true
			}
			res.Embedded += len(batch)
			p := run.batch(ctx, len(batch), bytes)
			if opt.Progress != nil {
				opt.Progress(p.Done, p.Total)
			}
			if opt.OnProgress != nil {
				opt.OnProgress(p)
			}
		}
	}
	res.Total, _, _ = st.VectorCount(ctx, model)
	d := time.Since(start)
	res.DurationMS = ms(d)
	if res.Embedded > 0 {
		res.ChunksPerSec = float64(res.Embedded) / d.Seconds()
	}
	// Build (or bring up to date) and save the graph now, so searches
	// start from the export; a backend that searches its own vectors
	// needs none.
	e.vectors.forget()
	if e.vectorSearcher(ctx) != nil {
		return res, nil
	}
	if _, err := e.vectorGraph(ctx, model, true); err != nil {
		return res, err
	}
	return res, nil
}

// orderQueue sorts the backlog in the order the user is likely to search
// it: documents changed within recentEdit of now first, newest first;
// then by collection, most queried first; then newest documents first. A
// document's chunks stay together (ids ascending).
func orderQueue(q []store.Queued, counts map[string]int64, now time.Time) {
	recent := now.Add(-recentEdit).UnixNano()
	sort.SliceStable(q, func(i, j int) bool {
		a, b := &q[i], &q[j]
		if ra, rb := a.MtimeNS >= recent, b.MtimeNS >= recent; ra != rb {
			return ra
		}
		if a.MtimeNS < recent {
			if ca, cb := counts[a.Collection], counts[b.Collection]; ca != cb {
				return ca > cb
			}
		}
		if a.MtimeNS != b.MtimeNS {
			return a.MtimeNS > b.MtimeNS
		}
		return a.ID < b.ID
	})
}

// embedQueueCache keeps the ordered backlog a run left, so the next run
// (the daemon's next slice) starts at once instead of reading the queue
// again (about a second at 160,000 chunks). It is keyed by the index's
// write state and vectors_version as the run left them: a sync, or
// another process's embedding, makes the next run read the queue afresh.
type embedQueueCache struct {
	mu  sync.Mutex
	key string
	q   []store.Queued
}

// embedQueueKey names the index's state for a queue: its write state,
// vectors_version, and what the run embeds.
func embedQueueKey(ctx context.Context, st store.Backend, model, col string, skip []string) string {
	writes, _ := st.LinkVersion(ctx)
	vv, _ := st.Meta(ctx, "vectors_version")
	return strings.Join(append([]string{writes, vv, model, col}, skip...), "\x00")
}

// take returns the kept queue if key matches (and forgets it), else nil.
func (c *embedQueueCache) take(key string) []store.Queued {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.q
	if c.key != key {
		q = nil
	}
	c.key, c.q = "", nil
	return q
}

func (c *embedQueueCache) put(key string, q []store.Queued) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(q) == 0 {
		c.key, c.q = "", nil
		return
	}
	c.key, c.q = key, q
}

type pending struct {
	id    int64
	text  string
	bytes int
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

// embedRunKey is the meta key where a run publishes its progress, for
// status in any process.
const embedRunKey = "embed_run"

// embedRunEvery is how often a run publishes its progress.
const embedRunEvery = 5 * time.Second

// EmbedRun is a running embedding's progress as status shows it.
type EmbedRun struct {
	Model string `json:"model"`
	PID   int    `json:"pid"`
	EmbedProgress
	// ETASec is ETA in seconds (0: not known yet).
	ETASec float64 `json:"etaSec"`
	// Updated is when the run last published (Unix seconds): a run that
	// stopped publishing was killed.
	Updated int64 `json:"updated"`
}

// embedRun times a run: its rate and time left, published to meta every
// embedRunEvery.
type embedRun struct {
	st        store.Backend
	model     string
	p         EmbedProgress
	start     time.Time
	warm      time.Time // when the first batch ended
	warmDone  int
	warmBytes int64
	published time.Time
}

func newEmbedRun(st store.Backend, model string, q []store.Queued) *embedRun {
	r := &embedRun{st: st, model: model, start: time.Now()}
	r.p.Total = len(q)
	for _, c := range q {
		r.p.TotalBytes += int64(c.Bytes)
	}
	return r
}

// skip takes out of the total a chunk deleted meanwhile.
func (r *embedRun) skip(bytes int) {
	r.p.Total--
	r.p.TotalBytes -= int64(bytes)
}

// batch records a batch done and returns the progress.
func (r *embedRun) batch(ctx context.Context, n int, bytes int64) EmbedProgress {
	now := time.Now()
	r.p.Done += n
	r.p.DoneBytes += bytes
	r.p.Elapsed = now.Sub(r.start)
	if r.warm.IsZero() {
		r.warm, r.warmDone, r.warmBytes = now, r.p.Done, r.p.DoneBytes
	} else if d := now.Sub(r.warm).Seconds(); d > 0 {
		r.p.ChunksPerSec = float64(r.p.Done-r.warmDone) / d
		if rate := float64(r.p.DoneBytes-r.warmBytes) / d; rate > 0 {
			r.p.ETA = time.Duration(float64(r.p.TotalBytes-r.p.DoneBytes) / rate * float64(time.Second))
		}
	}
	if now.Sub(r.published) >= embedRunEvery {
		r.publish(ctx, now)
	}
	return r.p
}

// publish writes the progress to meta (best effort: progress is not worth
// failing a run for).
func (r *embedRun) publish(ctx context.Context, now time.Time) {
	r.published = now
	b, err := json.Marshal(EmbedRun{Model: r.model, PID: os.Getpid(), EmbedProgress: r.p, ETASec: r.p.ETA.Seconds(), Updated: now.Unix()})
	if err == nil {
		r.st.SetMeta(store.Bookkeeping(ctx), embedRunKey, string(b))
	}
}

// end clears the published progress once the run stops (a run killed
// leaves it, and its age says so).
func (r *embedRun) end(ctx context.Context) {
	if !r.published.IsZero() {
		r.st.SetMeta(store.Bookkeeping(context.WithoutCancel(ctx)), embedRunKey, "")
	}
}

// embedRunning reads the progress a run published, nil when none runs:
// none published, or the last publication is older than three periods
// (the run was killed).
func embedRunning(ctx context.Context, st store.Backend, now time.Time) *EmbedRun {
	v, err := st.Meta(ctx, embedRunKey)
	if err != nil || v == "" {
		return nil
	}
	var r EmbedRun
	if json.Unmarshal([]byte(v), &r) != nil || now.Sub(time.Unix(r.Updated, 0)) > 3*embedRunEvery {
		return nil
	}
	return &r
}
