// Package backend is gno's one registry of model backends: it opens an
// embedder, reranker, expander or chat model from a config entry (a Spec),
// with one switch on the entry's kind and one error for a kind that cannot
// serve a role. In-process ONNX models (kind "") open from the models
// cache; "ollama" and "openai" are clients of a server.
//
// It owns the choice of backend only: caching an opened model, and
// deciding which model an index uses, stay with the engine (retrieval's
// Models part). It must not import retrieval.
package backend

import (
	"context"
	"errors"
	"fmt"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/inference/ollama"
	"github.com/gnosearch/gno/inference/onnx"
	"github.com/gnosearch/gno/inference/openai"
)

// Role is the job a model does.
type Role string

// The roles, named as the config names them.
const (
	Embed  Role = "embed"
	Rerank Role = "rerank"
	Expand Role = "expansion"
	Chat   Role = "answer"
)

// Spec is one backend entry of the config (models.embedBackend,
// models.rerankBackend, models.expand, models.answer).
type Spec struct {
	// Kind is "ollama" or "openai"; empty means in-process ONNX for the
	// embedder and reranker, and none for expansion and answers.
	Kind   string
	URL    string
	APIKey string
	Model  string
}

// Local says how to open an in-process ONNX model (Kind "").
type Local struct {
	Env onnx.Env
	// Model is the registry name of the model.
	Model string
	// MaxTokens caps a reranker's (query, passage) pair.
	MaxTokens int
}

// ErrNoExpander is the error of an expansion entry with no kind: query
// expansion needs a chat model server.
var ErrNoExpander = errors.New("no expansion model configured (models.expand in config)")

// UnknownKindError is a kind that cannot serve a role.
type UnknownKindError struct {
	Role Role
	Kind string
}

func (e *UnknownKindError) Error() string {
	kinds := map[Role]string{Embed: "ollama, openai, or empty for ONNX", Rerank: "openai, or empty for ONNX",
		Expand: "ollama or openai", Chat: "ollama or openai"}[e.Role]
	return fmt.Sprintf("unknown %s backend %q (%s)", e.Role, e.Kind, kinds)
}

// Embedder opens the embedding model of s.
func Embedder(ctx context.Context, s Spec, l Local) (inference.Embedder, error) {
	m, err := open(ctx, Embed, s, l)
	if err != nil {
		return nil, err
	}
	return m.(inference.Embedder), nil
}

// Reranker opens the cross-encoder of s.
func Reranker(ctx context.Context, s Spec, l Local) (inference.Reranker, error) {
	m, err := open(ctx, Rerank, s, l)
	if err != nil {
		return nil, err
	}
	return m.(inference.Reranker), nil
}

// Expander builds the query expander of s (no connection is made until
// the first call); Kind "" gives ErrNoExpander.
func Expander(s Spec) (inference.Expander, error) {
	m, err := open(context.Background(), Expand, s, Local{})
	if err != nil {
		return nil, err
	}
	return m.(inference.Expander), nil
}

// Chatter builds the chat model of s, or nil, nil when Kind is "" (no
// answer model configured).
func Chatter(s Spec) (inference.Chatter, error) {
	m, err := open(context.Background(), Chat, s, Local{})
	if err != nil || m == nil {
		return nil, err
	}
	return m.(inference.Chatter), nil
}

// open is the registry: the one switch on kind, then on role.
func open(ctx context.Context, role Role, s Spec, l Local) (any, error) {
	oa := openai.Config{BaseURL: s.URL, APIKey: s.APIKey, Model: s.Model}
	switch s.Kind {
	case "":
		switch role {
		case Embed:
			return onnx.OpenInstalledEmbedder(ctx, l.Env, l.Model)
		case Rerank:
			return onnx.OpenInstalledReranker(ctx, l.Env, l.Model, l.MaxTokens)
		case Expand:
			return nil, ErrNoExpander
		case Chat:
			return nil, nil
		}
	case "ollama":
		switch role {
		case Embed:
			return ollama.NewEmbedder(ollama.EmbedderConfig{URL: s.URL, Model: s.Model})
		case Expand:
			return ollama.NewExpander(ollama.ExpanderConfig{URL: s.URL, Model: s.Model})
		case Chat:
			return ollama.NewChatter(ollama.ChatConfig{URL: s.URL, Model: s.Model})
		}
	case "openai":
		switch role {
		case Embed:
			return openai.NewEmbedder(openai.EmbedderConfig{Config: oa})
		case Rerank:
			return openai.NewReranker(openai.RerankerConfig{Config: oa})
		case Expand:
			return openai.NewExpander(openai.ExpanderConfig{Config: oa})
		case Chat:
			return openai.NewChatter(openai.ChatConfig{Config: oa})
		}
	}
	return nil, &UnknownKindError{Role: role, Kind: s.Kind}
}
