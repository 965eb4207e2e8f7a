package openai

import (
	"context"
	"strings"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/inference/expand"
)

// ExpanderConfig configures a chat model served at /chat/completions.
type ExpanderConfig struct {
	Config
	// MaxTokens caps the reply (max_tokens; default 400).
	MaxTokens int
	// NoJSONMode omits response_format {"type":"json_object"}, for servers
	// that reject it; the reply is then parsed from free text.
	NoJSONMode bool
	// CacheSize is the LRU size (default 256; < 0 disables).
	CacheSize int
	// Limits bound the parsed reply; zero fields take expand.DefaultLimits.
	Limits expand.Limits
}

// Expander implements inference.Expander with the same prompt and the same
// defensive parsing as the Ollama expander. It is safe for concurrent use.
type Expander struct {
	c         *client
	maxTokens int
	jsonMode  bool
	limits    expand.Limits
	cache     *expand.Cache
}

var _ inference.Expander = (*Expander)(nil)

// NewExpander checks the configuration without contacting the server.
func NewExpander(cfg ExpanderConfig) (*Expander, error) {
	c, err := newClient("expander", cfg.Config)
	if err != nil {
		return nil, err
	}
	e := &Expander{c: c, maxTokens: cfg.MaxTokens, jsonMode: !cfg.NoJSONMode, limits: cfg.Limits}
	if e.maxTokens <= 0 {
		e.maxTokens = 400
	}
	size := cfg.CacheSize
	if size == 0 {
		size = 256
	}
	e.cache = expand.NewCache(size)
	return e, nil
}

// ModelID is "openai:<model>".
func (e *Expander) ModelID() string { return "openai:" + e.c.model }

// Close drops idle connections.
func (e *Expander) Close() error {
	e.c.close()
	return nil
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string            `json:"model"`
	Messages       []chatMessage     `json:"messages"`
	Temperature    float64           `json:"temperature"`
	MaxTokens      int               `json:"max_tokens"`
	Stream         bool              `json:"stream"`
	ResponseFormat map[string]string `json:"response_format,omitempty"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// Expand asks the model for keyword rewrites and a hypothetical passage;
// results are cached per (model, query). Every failure is an *Error whose
// Reason() fits in a query's meta.
func (e *Expander) Expand(ctx context.Context, query string) (*inference.Expansion, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, newErr(ErrInvalid, "expand", "empty query", nil)
	}
	if exp, ok := e.cache.Get(e.c.model, q); ok {
		return exp, nil
	}
	req := chatRequest{
		Model: e.c.model,
		Messages: []chatMessage{
			{Role: "system", Content: expand.SystemPrompt},
			{Role: "user", Content: expand.UserPrompt(q)},
		},
		MaxTokens: e.maxTokens,
	}
	if e.jsonMode {
		req.ResponseFormat = map[string]string{"type": "json_object"}
	}
	var resp chatResponse
	if err := e.c.post(ctx, "expand", "/chat/completions", req, &resp); err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 || resp.Choices[0].Message.Content == nil {
		return nil, newErr(ErrBadResponse, "expand", "empty response", nil)
	}
	exp, err := expand.Parse(*resp.Choices[0].Message.Content, q, e.limits)
	if err != nil {
		return nil, newErr(ErrBadResponse, "expand", err.Error(), nil)
	}
	e.cache.Put(e.c.model, q, exp)
	return exp, nil
}
