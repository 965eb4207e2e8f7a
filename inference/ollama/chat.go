package ollama

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/gnosearch/gno/inference"
)

// ChatConfig configures an Ollama chat model that writes answers.
type ChatConfig struct {
	// URL of the server; empty means OLLAMA_HOST, then 127.0.0.1:11434.
	URL string
	// Model is the Ollama model name. Required.
	Model string
	// Timeout bounds a call whose context has no deadline (default 120s).
	Timeout time.Duration
	// MaxTokens is num_predict, the generation cap (default 1024).
	MaxTokens int
	// HTTPClient replaces the default client (no timeout, capped bodies).
	HTTPClient *http.Client
}

// Chatter implements inference.Chatter over Ollama's streaming /api/chat.
type Chatter struct {
	client    *api.Client
	hc        *http.Client
	model     string
	timeout   time.Duration
	maxTokens int
}

var _ inference.Chatter = (*Chatter)(nil)

// NewChatter checks the configuration without contacting the server.
func NewChatter(cfg ChatConfig) (*Chatter, error) {
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		return nil, errors.New("ollama chat: no model configured")
	}
	base, err := resolveHost(cfg.URL)
	if err != nil {
		return nil, errors.New("ollama chat: " + err.Error())
	}
	c := &Chatter{model: model, timeout: cfg.Timeout, maxTokens: cfg.MaxTokens}
	if c.timeout <= 0 {
		c.timeout = 120 * time.Second
	}
	if c.maxTokens <= 0 {
		c.maxTokens = 1024
	}
	c.client, c.hc = newClient(base, cfg.HTTPClient, 16<<20)
	return c, nil
}

// ModelID names the backend and model.
func (c *Chatter) ModelID() string { return "ollama:" + c.model }

// Close drops idle connections.
func (c *Chatter) Close() error {
	closeIdle(c.hc)
	return nil
}

// Chat streams the model's reply to onToken. Failures are *Error values.
func (c *Chatter) Chat(ctx context.Context, msgs []inference.ChatMessage, onToken func(string) error) error {
	if err := ctx.Err(); err != nil {
		return classify("chat", err)
	}
	ctx, cancel := withDefaultTimeout(ctx, c.timeout)
	defer cancel()
	ctx, st := withBodyState(ctx)
	stream := true
	req := &api.ChatRequest{
		Model:   c.model,
		Stream:  &stream,
		Think:   &api.ThinkValue{Value: false},
		Options: map[string]any{"temperature": 0, "num_predict": c.maxTokens},
	}
	for _, m := range msgs {
		req.Messages = append(req.Messages, api.Message{Role: m.Role, Content: m.Content})
	}
	done := false
	var cbErr error
	err := c.client.Chat(ctx, req, func(r api.ChatResponse) error {
		done = done || r.Done
		if r.Message.Content == "" {
			return nil
		}
		if err := onToken(r.Message.Content); err != nil {
			cbErr = err
			return err
		}
		return nil
	})
	if cbErr != nil {
		return cbErr
	}
	if err == nil && !done {
		err = errIncomplete
	}
	if err == nil {
		return nil
	}
	var own *Error
	switch {
	case errors.As(err, &own):
		return own
	case ctx.Err() != nil:
		return classify("chat", ctx.Err())
	}
	if e := st.explain("chat", err); e != nil {
		return e
	}
	if errors.Is(err, errIncomplete) {
		return newErr(ErrUnavailable, "chat", "connection closed mid-response", nil)
	}
	return classify("chat", err)
}
