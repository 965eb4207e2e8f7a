package retrieval

import (
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
