package ollama

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// behaviour selects how the stand-in server misbehaves.
type behaviour int

const (
	behaveOK      behaviour = iota
	behaveSlow              // send headers (and a first chunk when streaming), then stall
	behave500               // HTTP 500 with Ollama's error body
	behaveBadJSON           // a malformed NDJSON line
	behaveCut               // connection closed mid-stream
	behaveHuge              // endless output
)

// fakeOllama speaks Ollama's wire format for /api/chat, /api/generate and
// /api/embed, decoding requests into the real api types so a request the
// real server would reject fails here too.
type fakeOllama struct {
	t      *testing.T
	srv    *httptest.Server
	models map[string]bool

	mu       sync.Mutex
	behave   behaviour
	reply    string // what the model "says" for chat/generate
	calls    int
	chats    []api.ChatRequest
	gens     []api.GenerateRequest
	embeds   []api.EmbedRequest
	embedFn  func(input []string) [][]float32
	stallFor time.Duration
}

func newFakeOllama(t *testing.T, models ...string) *fakeOllama {
	f := &fakeOllama{t: t, models: map[string]bool{}, stallFor: 30 * time.Second}
	for _, m := range models {
		f.models[m] = true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", f.handleChat)
	mux.HandleFunc("POST /api/generate", f.handleGenerate)
	mux.HandleFunc("POST /api/embed", f.handleEmbed)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOllama) set(b behaviour, reply string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.behave, f.reply = b, reply
}

func (f *fakeOllama) state() (behaviour, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.behave, f.reply
}

func (f *fakeOllama) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// notFound is the body Ollama's ChatHandler/GenerateHandler/EmbedHandler send.
func notFound(w http.ResponseWriter, model string) {
	writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model '%s' not found", model)})
}

func (f *fakeOllama) handleChat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	f.mu.Lock()
	f.chats = append(f.chats, req)
	f.mu.Unlock()
	if !f.models[req.Model] {
		notFound(w, req.Model)
		return
	}
	f.respond(w, r, req.Stream, func(content string, done bool) any {
		resp := api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant", Content: content}, Done: done}
		if done {
			resp.DoneReason = "stop"
			resp.Metrics = api.Metrics{TotalDuration: time.Millisecond, EvalCount: 7}
		}
		return resp
	})
}

func (f *fakeOllama) handleGenerate(w http.ResponseWriter, r *http.Request) {
	var req api.GenerateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	f.mu.Lock()
	f.gens = append(f.gens, req)
	f.mu.Unlock()
	if !f.models[req.Model] {
		notFound(w, req.Model)
		return
	}
	f.respond(w, r, req.Stream, func(content string, done bool) any {
		resp := api.GenerateResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Response: content, Done: done}
		if done {
			resp.DoneReason = "stop"
			resp.Context = []int{1, 2, 3}
		}
		return resp
	})
}

// respond streams the reply as NDJSON (Ollama's default) or sends it as
// one JSON object when the request said "stream": false.
func (f *fakeOllama) respond(w http.ResponseWriter, r *http.Request, streamFlag *bool, msg func(string, bool) any) {
	behave, reply := f.state()
	stream := streamFlag == nil || *streamFlag
	fl := w.(http.Flusher)

	switch behave {
	case behave500:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "llama runner process has terminated: exit status 2"})
		return
	case behaveSlow:
		if stream {
			w.Header().Set("Content-Type", "application/x-ndjson")
			_ = json.NewEncoder(w).Encode(msg("{", false))
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
		case <-time.After(f.stallFor):
		}
		return
	}

	if !stream {
		switch behave {
		case behaveBadJSON:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"model":"m","message":{"role":"assistant","content":"{\"keywords`+"\n")
			return
		case behaveCut:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "4096")
			fmt.Fprint(w, `{"model":"m","message":{"role":"assistant","content":"{\"keywords\": [`)
			fl.Flush()
			panic(http.ErrAbortHandler)
		case behaveHuge:
			writeJSON(w, http.StatusOK, msg(strings.Repeat("word ", 2<<20), true))
			return
		}
		writeJSON(w, http.StatusOK, msg(reply, true))
		return
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	switch behave {
	case behaveBadJSON:
		_ = enc.Encode(msg("{", false))
		fmt.Fprint(w, `{"model":"m","message":{"content":`+"\n")
		fl.Flush()
		return
	case behaveCut:
		_ = enc.Encode(msg(`{"keywords": [`, false))
		fl.Flush()
		panic(http.ErrAbortHandler)
	case behaveHuge:
		for i := 0; i < 1_000_000; i++ {
			if enc.Encode(msg("blah blah blah ", false)) != nil || r.Context().Err() != nil {
				return
			}
			if i%100 == 0 {
				fl.Flush()
			}
		}
		return
	}
	// Token-sized pieces, as a real model streams them.
	for _, piece := range chunks(reply, 7) {
		_ = enc.Encode(msg(piece, false))
		fl.Flush()
	}
	_ = enc.Encode(msg("", true))
}

func chunks(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > n {
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return append(out, string(r))
}

func (f *fakeOllama) handleEmbed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	f.mu.Lock()
	f.embeds = append(f.embeds, req)
	fn := f.embedFn
	f.mu.Unlock()
	behave, _ := f.state()
	if !f.models[req.Model] {
		notFound(w, req.Model)
		return
	}
	var input []string
	switch v := req.Input.(type) {
	case string:
		input = []string{v}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid input type"})
				return
			}
			input = append(input, s)
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid input type"})
		return
	}
	switch behave {
	case behave500:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "failed to generate embedding"})
		return
	case behaveSlow:
		select {
		case <-r.Context().Done():
		case <-time.After(f.stallFor):
		}
		return
	case behaveBadJSON:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"model":"m","embeddings":[[0.1,0.2,`)
		return
	case behaveCut:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100000")
		fmt.Fprint(w, `{"model":"m","embeddings":[[0.1,`)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	if fn == nil {
		fn = defaultVectors
	}
	writeJSON(w, http.StatusOK, api.EmbedResponse{Model: req.Model, Embeddings: fn(input), PromptEvalCount: len(input)})
}

// defaultVectors gives each text an unnormalised 4-d vector derived from
// its length, so normalisation and order are checkable.
func defaultVectors(input []string) [][]float32 {
	out := make([][]float32, len(input))
	for i, s := range input {
		out[i] = []float32{float32(len(s)), 0, 3, 4}
	}
	return out
}

// refusedURL is an address on 127.0.0.1 where nothing listens.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}
