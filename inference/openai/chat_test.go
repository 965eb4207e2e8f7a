package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/inference"
)

// chatServer speaks the streaming /v1/chat/completions wire format
// (server-sent events of chat.completion.chunk, then [DONE]).
func chatServer(t *testing.T, words []string, done bool, stall time.Duration) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req chatStreamRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.Stream || len(req.Messages) == 0 {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":{"message":"bad request","code":"invalid"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		if stall > 0 {
			select {
			case <-time.After(stall):
			case <-r.Context().Done():
				return
			}
		}
		for _, wd := range words {
			b, _ := json.Marshal(map[string]any{"object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": map[string]string{"content": wd}}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		if done {
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		}
	}))
}

func TestChatStreams(t *testing.T) {
	srv := chatServer(t, []string{"Foxes ", "live ", "in dens [#abc:1-2]."}, true, 0)
	defer srv.Close()
	ch, err := NewChatter(ChatConfig{Config: Config{BaseURL: srv.URL + "/v1", Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := ch.Chat(context.Background(), []inference.ChatMessage{{Role: "user", Content: "q"}}, func(s string) error {
		got = append(got, s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "") != "Foxes live in dens [#abc:1-2]." || len(got) != 3 {
		t.Fatalf("tokens %q", got)
	}
}

func TestChatFailures(t *testing.T) {
	cut := chatServer(t, []string{"partial"}, false, 0)
	defer cut.Close()
	slow := chatServer(t, nil, true, time.Hour) // answers only when the client gives up
	defer slow.Close()
	// Only the slow server meets the short deadline: the others fail on
	// their own, and a short deadline there would race a busy machine.
	for _, tc := range []struct {
		name, url, want string
		limit           time.Duration
	}{
		{"cut", cut.URL + "/v1", "connection closed mid-response", time.Minute},
		{"slow", slow.URL + "/v1", "timeout", 500 * time.Millisecond},
		{"dead", "http://127.0.0.1:1/v1", "connection refused", time.Minute},
		{"404", cut.URL + "/nope", "404", time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := NewChatter(ChatConfig{Config: Config{BaseURL: tc.url, Model: "m"}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), tc.limit)
			defer cancel()
			err = ch.Chat(ctx, []inference.ChatMessage{{Role: "user", Content: "q"}}, func(string) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want %q, got %v", tc.want, err)
			}
		})
	}
}
