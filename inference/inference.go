// Package inference runs the models gno needs at query and index time:
// a sentence embedder, a cross-encoder reranker and a query expander.
//
// The interfaces here are what retrieval depends on; the ONNX Runtime,
// Ollama and OpenAI-compatible backends in the sub-packages implement them.
//
// It owns the interfaces and nothing else: it must not import a backend
// or anything of retrieval.
package inference

import "context"

// TextKind says whether a text is a search query or an indexed passage,
// because many embedding models prefix the two differently.
type TextKind int

const (
	// Document marks a passage that is being indexed.
	Document TextKind = iota
	// Query marks a user's search text.
	Query
)

// Embedder turns texts into L2-normalised vectors of a fixed dimension.
// Implementations are safe for concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string, kind TextKind) ([][]float32, error)
	// Dim is the length of every vector Embed returns.
	Dim() int
	// ModelID names the model, so vectors from another model are known stale.
	ModelID() string
	// Close releases the model's resources.
	Close() error
}

// Reranker scores (query, passage) pairs with a cross-encoder.
// Implementations are safe for concurrent use.
type Reranker interface {
	// Score returns one relevance score in [0, 1] per passage, in order.
	Score(ctx context.Context, query string, passages []string) ([]float32, error)
	// ModelID names the model.
	ModelID() string
	// IsTestModel reports an untrained test model, which must never rank a
	// user's results.
	IsTestModel() bool
	// Close releases the model's resources.
	Close() error
}

// Expansion is what an expander proposes for one query.
type Expansion struct {
	// Keywords are short keyword rewrites, searched with BM25.
	Keywords []string `json:"keywords"`
	// Passage is a hypothetical answer (HyDE), searched with vectors.
	Passage string `json:"passage,omitempty"`
}

// Expander rewrites a query with a language model.
type Expander interface {
	// Expand returns rewrites of query; an error means no expansion.
	Expand(ctx context.Context, query string) (*Expansion, error)
	// ModelID names the model.
	ModelID() string
}

// ChatMessage is one turn of a chat: Role is "system", "user" or
// "assistant".
type ChatMessage struct {
	Role    string
	Content string
}

// Chatter streams a chat model's reply (used by `gno ask` to write answers).
type Chatter interface {
	// Chat sends msgs and calls onToken with each piece of the reply as it
	// arrives; an error from onToken stops the stream and is returned.
	Chat(ctx context.Context, msgs []ChatMessage, onToken func(string) error) error
	// ModelID names the backend and model, e.g. "ollama:qwen3:1.7b".
	ModelID() string
}
