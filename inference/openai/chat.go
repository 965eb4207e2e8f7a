package openai

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/gnosearch/gno/inference"
)

// ChatConfig configures an OpenAI-compatible chat model that writes
// answers through streaming /chat/completions.
type ChatConfig struct {
	Config
	// MaxTokens caps the reply (default 1024).
	MaxTokens int
}

// Chatter implements inference.Chatter with server-sent events from
// /chat/completions (stream: true).
type Chatter struct {
	c         *client
	maxTokens int
}

var _ inference.Chatter = (*Chatter)(nil)

// NewChatter checks the configuration without contacting the server.
func NewChatter(cfg ChatConfig) (*Chatter, error) {
	c, err := newClient("chat", cfg.Config)
	if err != nil {
		return nil, err
	}
	n := cfg.MaxTokens
	if n <= 0 {
		n = 1024
	}
	return &Chatter{c: c, maxTokens: n}, nil
}

// ModelID names the backend and model.
func (ch *Chatter) ModelID() string { return "openai:" + ch.c.model }

// Close drops idle connections.
func (ch *Chatter) Close() error {
	ch.c.close()
	return nil
}

type chatStreamRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Stream      bool          `json:"stream"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
}

type chatChunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

// Chat streams the reply to onToken. A reply that ends without "[DONE]"
// or a finish reason is reported as cut off.
func (ch *Chatter) Chat(ctx context.Context, msgs []inference.ChatMessage, onToken func(string) error) error {
	const op = "chat"
	c := ch.c
	if err := ctx.Err(); err != nil {
		return classify(op, err)
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	req := chatStreamRequest{Model: c.model, Stream: true, MaxTokens: ch.maxTokens}
	for _, m := range msgs {
		req.Messages = append(req.Messages, chatMessage{Role: m.Role, Content: m.Content})
	}
	res, err := c.send(ctx, op, "/chat/completions", "text/event-stream", req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		data, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		return httpError(op, res.StatusCode, data, c.bareBase)
	}
	sc := bufio.NewScanner(io.LimitReader(res.Body, c.maxBody))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	finished := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			finished = true
			break
		}
		var chunk chatChunk
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return newErr(ErrBadResponse, op, "invalid JSON in stream", err)
		}
		for _, choice := range chunk.Choices {
			if choice.Delta.Content != "" {
				if err := onToken(choice.Delta.Content); err != nil {
					return err
				}
			}
			if choice.FinishReason != nil && *choice.FinishReason != "" {
				finished = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		if ctx.Err() != nil {
			return classify(op, ctx.Err())
		}
		return classify(op, err)
	}
	if !finished {
		if ctx.Err() != nil {
			return classify(op, ctx.Err())
		}
		return newErr(ErrUnavailable, op, "connection closed mid-response", nil)
	}
	return nil
}
