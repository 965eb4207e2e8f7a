// Package ollamatest is a stand-in Ollama server for tests of code that
// chats with a model: it speaks the real /api/chat wire format (requests
// decoded into github.com/ollama/ollama/api types, NDJSON stream of
// api.ChatResponse), since no model can run in tests.
//
// It is for tests only: gno itself must not import it.
package ollamatest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// Server is a running stand-in.
type Server struct {
	*httptest.Server

	mu    sync.Mutex
	reply func(api.ChatRequest) string
	stall time.Duration
	chats []api.ChatRequest
}

// New starts a stand-in whose model answers each chat with reply(req),
// streamed a few words per message. Close it when done.
func New(reply func(api.ChatRequest) string) *Server {
	s := &Server{reply: reply}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"version": "0.17.4"})
	})
	s.Server = httptest.NewServer(mux)
	return s
}

// Stall makes the model wait d before its first token (a slow or stuck
// server); 0 restores normal speed.
func (s *Server) Stall(d time.Duration) {
	s.mu.Lock()
	s.stall = d
	s.mu.Unlock()
}

// Chats returns the requests received so far.
func (s *Server) Chats() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]api.ChatRequest(nil), s.chats...)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		return
	}
	if req.Model == "" {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "model is required"})
		return
	}
	s.mu.Lock()
	s.chats = append(s.chats, req)
	stall, reply := s.stall, s.reply
	s.mu.Unlock()
	text := reply(req)
	stream := req.Stream == nil || *req.Stream
	w.Header().Set("Content-Type", "application/x-ndjson")
	if stall > 0 {
		w.WriteHeader(http.StatusOK)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-time.After(stall):
		case <-r.Context().Done():
			return
		}
	}
	enc := json.NewEncoder(w)
	now := time.Now()
	if !stream {
		_ = enc.Encode(api.ChatResponse{Model: req.Model, CreatedAt: now, Message: api.Message{Role: "assistant", Content: text}, Done: true, DoneReason: "stop"})
		return
	}
	words := strings.SplitAfter(text, " ")
	for i := 0; i < len(words); i += 3 {
		part := strings.Join(words[i:min(i+3, len(words))], "")
		if err := enc.Encode(api.ChatResponse{Model: req.Model, CreatedAt: time.Now(), Message: api.Message{Role: "assistant", Content: part}}); err != nil {
			return
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	_ = enc.Encode(api.ChatResponse{Model: req.Model, CreatedAt: time.Now(), Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "stop",
		Metrics: api.Metrics{TotalDuration: time.Since(now)}})
}

// CitingReply is a model that answers with one sentence per passage in the
// prompt, citing each passage's header tag, plus one citation of a
// document that was not given (which the caller must drop).
func CitingReply(req api.ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		for _, line := range strings.Split(m.Content, "\n") {
			// Passage headers look like "[1] [#abc123:4-9] gno://c/p.md".
			if !strings.HasPrefix(line, "[") {
				continue
			}
			i := strings.Index(line, "[#")
			j := strings.Index(line[max(i, 0):], "]")
			if i < 0 || j < 0 {
				continue
			}
			b.WriteString("The notes say so " + line[i:i+j+1] + ". ")
		}
	}
	b.WriteString("Something invented [#ffffff:1-2].")
	return b.String()
}
