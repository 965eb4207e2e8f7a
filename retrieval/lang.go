package retrieval

import (
	"context"
	"sync"

	"github.com/gnosearch/gno/models"
	"github.com/gnosearch/gno/retrieval/ingest"
)

// registry is the built-in model registry with the user's own entries.
func (e *Engine) registry() *models.Registry {
	if r := e.onnxEnv().Registry; r != nil {
		return r
	}
	return models.Builtin()
}

// embedderCovers reports whether the active embedder was trained for the
// language of text, with the language detected (by script: zh, ja, ko,
// th; "" when undetermined) and the model's name. A remote backend or a
// model without declared languages counts as covering.
func (e *Engine) embedderCovers(text string) (lang, model string, ok bool) {
	model = e.embedModelName()
	lang = ingest.DetectLang(text)
	if lang == "" || e.Config().Models.EmbedBackend.Kind != "" {
		return lang, model, true
	}
	m, err := e.registry().Lookup(model)
	if err != nil {
		return lang, model, true
	}
	return lang, model, m.Covers(lang)
}

// autoEmbed caches the automatic embedder choice for one index generation.
type autoEmbed struct {
	mu    sync.Mutex
	gen   int64
	done  bool
	model string
}

// autoEmbedder picks the embedder when config names none: when most
// documents are in one language (detected at index time, or from front
// matter) that the default embedder does not cover, the first installed
// registry embedder that covers it, e.g. bge-small-zh-v1.5-q for a
// Chinese index. It returns "" to keep the default. The choice is the
// index's, not a collection's: one vector set per index keeps fusion and
// the vector graph simple. The choice is made while the index has no
// vectors; then it stays with the model that made them (models.embed in
// config changes it, and `gno embed` re-embeds).
func (e *Engine) autoEmbedder() string {
	ctx := context.Background()
	st, err := e.store(ctx)
	if err != nil {
		return ""
	}
	gen, err := st.Generation(ctx)
	if err != nil {
		return ""
	}
	a := &e.auto
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done && a.gen == gen {
		return a.model
	}
	a.done, a.gen, a.model = true, gen, ""
	reg := e.registry()
	cache := models.Cache{Dir: e.Paths.ModelsDir}
	// The choice sticks once vectors exist: re-deciding as the language
	// mix shifts would throw every vector away (Embed drops another
	// model's vectors) and leave searches without any in between.
	var made string
	if err := st.DB().QueryRowContext(ctx, "SELECT model FROM vectors LIMIT 1").Scan(&made); err == nil && made != "" {
		if m, err := reg.Lookup(made); err == nil && m.Role == models.RoleEmbed && !m.Test {
			if _, err := cache.Installed(made); err == nil {
				if made != models.DefaultEmbedder {
					a.model = made
				}
				return a.model
			}
		}
	}
	langs, err := st.LangCounts(ctx)
	if err != nil {
		return ""
	}
	main, total := "", 0
	for l, n := range langs {
		total += n
		if l != "" && n > langs[main] {
			main = l
		}
	}
	if main == "" || langs[main]*2 < total {
		return ""
	}
	if def, err := reg.Lookup(models.DefaultEmbedder); err == nil && def.Covers(main) {
		return ""
	}
	for _, m := range reg.All() {
		if m.Role != models.RoleEmbed || m.Test || len(m.Languages) == 0 || !m.Covers(main) {
			continue
		}
		if _, err := cache.Installed(m.Name); err == nil {
			a.model = m.Name
			break
		}
	}
	return a.model
}
