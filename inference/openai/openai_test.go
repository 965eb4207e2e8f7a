package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/inference/expand"
)

type behaviour int

const (
	behaveOK      behaviour = iota
	behaveSlow              // stall until the client gives up
	behave500               // vLLM-style 500
	behaveBadJSON           // truncated JSON body
	behaveCut               // connection closed mid-body
	behaveHuge              // a body past the client's cap
)

// fakeServer speaks the OpenAI wire format (and the Jina/Cohere/vLLM
// rerank one) under /v1, checking the bearer key when one is set.
type fakeServer struct {
	srv   *httptest.Server
	model string
	key   string

	mu      sync.Mutex
	behave  behaviour
	chat    string                     // assistant content; "<null>" sends null
	rerank  func(docs []string) string // JSON body for /rerank
	embedFn func(in []string) string   // JSON body for /embeddings
	reqs    []map[string]any
	auth    []string
}

func newFake(t *testing.T) *fakeServer {
	f := &fakeServer{model: "m1"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", f.handle(f.embeddings))
	mux.HandleFunc("POST /v1/chat/completions", f.handle(f.chatCompletions))
	mux.HandleFunc("POST /v1/rerank", f.handle(f.rerankHandler))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// with runs fn under the server's lock, for changing its replies.
func (f *fakeServer) with(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

func (f *fakeServer) base() string { return f.srv.URL + "/v1" }

func (f *fakeServer) set(b behaviour) {
	f.mu.Lock()
	f.behave = b
	f.mu.Unlock()
}

func (f *fakeServer) last() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs[len(f.reqs)-1]
}

func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func sendJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprint(w, body)
}

// handle decodes the request, applies auth, model and misbehaviour, then
// lets h write the success body.
func (f *fakeServer) handle(h func(req map[string]any) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			sendJSON(w, 400, `{"error":{"message":"bad request body","type":"invalid_request_error"}}`)
			return
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		behave := f.behave
		f.mu.Unlock()
		if f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key {
			sendJSON(w, 401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		if req["model"] != f.model {
			sendJSON(w, 404, fmt.Sprintf(`{"error":{"message":"The model '%v' does not exist","type":"invalid_request_error","code":"model_not_found"}}`, req["model"]))
			return
		}
		switch behave {
		case behaveSlow:
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
			return
		case behave500:
			sendJSON(w, 500, `{"object":"error","message":"CUDA out of memory","type":"InternalServerError","code":500}`)
			return
		case behaveBadJSON:
			sendJSON(w, 200, `{"data":[{"index":0,"embedding":[0.1,`)
			return
		case behaveCut:
			w.Header().Set("Content-Length", "10000")
			sendJSON(w, 200, `{"data":[{"index":0,`)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		case behaveHuge:
			sendJSON(w, 200, `{"data":"`+strings.Repeat("x", 2<<20)+`"}`)
			return
		}
		sendJSON(w, 200, h(req))
	}
}

func strs(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

func (f *fakeServer) embeddings(req map[string]any) string {
	in := strs(req["input"])
	f.mu.Lock()
	fn := f.embedFn
	f.mu.Unlock()
	if fn != nil {
		return fn(in)
	}
	// Reverse order on purpose: clients must honour "index".
	var data []string
	for i := len(in) - 1; i >= 0; i-- {
		data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%d,0,3,4]}`, i, len(in[i])))
	}
	return `{"object":"list","data":[` + strings.Join(data, ",") + `],"model":"m1","usage":{"prompt_tokens":3,"total_tokens":3}}`
}

func (f *fakeServer) chatCompletions(req map[string]any) string {
	f.mu.Lock()
	content := f.chat
	f.mu.Unlock()
	c, _ := json.Marshal(content)
	if content == "<null>" {
		c = []byte("null")
	}
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":` +
		string(c) + `},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":40,"total_tokens":90}}`
}

func (f *fakeServer) rerankHandler(req map[string]any) string {
	docs := strs(req["documents"])
	f.mu.Lock()
	fn := f.rerank
	f.mu.Unlock()
	if fn != nil {
		return fn(docs)
	}
	// Jina/Cohere shape, sorted by score (best first), scores in [0, 1].
	var res []string
	for i := len(docs) - 1; i >= 0; i-- {
		res = append(res, fmt.Sprintf(`{"index":%d,"relevance_score":%g}`, i, float64(i+1)/float64(len(docs)+1)))
	}
	return `{"model":"m1","results":[` + strings.Join(res, ",") + `],"usage":{"total_tokens":10}}`
}

func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestEmbedder(t *testing.T) {
	f := newFake(t)
	e, err := NewEmbedder(EmbedderConfig{Config: Config{BaseURL: f.base(), Model: "m1"}, QueryPrefix: "query: ", DocumentPrefix: "passage: ", BatchSize: 2, Dimensions: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	texts := []string{"a", "bbb", "cc"}
	vecs, err := e.Embed(context.Background(), texts, inference.Document)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		l := float64(len("passage: " + texts[i]))
		n := math.Sqrt(l*l + 25)
		if math.Abs(float64(v[0])-l/n) > 1e-6 || math.Abs(float64(v[3])-4/n) > 1e-6 {
			t.Errorf("vec %d = %v, want normalised [%v 0 %v %v]", i, v, l/n, 3/n, 4/n)
		}
	}
	req := f.last()
	if req["encoding_format"] != "float" || req["dimensions"] != float64(4) || f.count() != 2 {
		t.Errorf("request %v, %d requests", req, f.count())
	}
	if _, err := e.Embed(context.Background(), []string{"x"}, inference.Query); err != nil {
		t.Fatal(err)
	}
	if got := strs(f.last()["input"]); got[0] != "query: x" {
		t.Errorf("query input = %q", got)
	}
	if e.Dim() != 4 || e.ModelID() != "openai:m1@4" {
		t.Errorf("Dim %d ModelID %q", e.Dim(), e.ModelID())
	}

	f.with(func() {
		f.embedFn = func(in []string) string {
			return `{"data":[{"index":0,"embedding":[1,2,3,4]},{"index":0,"embedding":[1,2,3,4]}]}`
		}
	})
	if _, err := e.Embed(context.Background(), []string{"a", "b"}, inference.Document); !errors.Is(err, ErrBadResponse) || !strings.Contains(err.Error(), "repeated index") {
		t.Errorf("repeated index: %v", err)
	}
	f.with(func() { f.embedFn = func(in []string) string { return `{"data":[{"index":0,"embedding":[1,2,3]}]}` } })
	if _, err := e.Embed(context.Background(), []string{"a"}, inference.Document); !errors.Is(err, ErrBadResponse) || !strings.Contains(err.Error(), "3 dimensions, want 4") {
		t.Errorf("dimension change: %v", err)
	}
	f.with(func() { f.embedFn = func(in []string) string { return `{"data":[]}` } })
	if _, err := e.Embed(context.Background(), []string{"a"}, inference.Document); !errors.Is(err, ErrBadResponse) {
		t.Errorf("no vectors: %v", err)
	}
}

func TestEmbedderProbeLearnsDim(t *testing.T) {
	f := newFake(t)
	e, err := NewEmbedder(EmbedderConfig{Config: Config{BaseURL: f.base(), Model: "m1"}})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := e.Probe(context.Background()); err != nil || d != 4 {
		t.Fatalf("Probe = %d, %v", d, err)
	}
}

func TestExpander(t *testing.T) {
	f := newFake(t)
	f.with(func() {
		f.chat = "```json\n{\"keywords\": [\"rust ownership\", \"How does rust manage memory\"], \"passage\": \"Values are freed at scope end.\"}\n```"
	})
	e, err := NewExpander(ExpanderConfig{Config: Config{BaseURL: f.base(), Model: "m1"}})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := e.Expand(context.Background(), "how does rust manage memory")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(exp.Keywords, []string{"rust ownership"}) || exp.Passage != "Values are freed at scope end." {
		t.Errorf("expansion = %+v", exp)
	}
	req := f.last()
	rf, _ := req["response_format"].(map[string]any)
	msgs, _ := req["messages"].([]any)
	if rf["type"] != "json_object" || req["temperature"] != float64(0) || req["stream"] != false || len(msgs) != 2 {
		t.Errorf("request = %v", req)
	}
	if sys := msgs[0].(map[string]any); sys["role"] != "system" || sys["content"] != expand.SystemPrompt {
		t.Errorf("system message = %v", sys)
	}
	// Cached: no second request.
	n := f.count()
	if _, err := e.Expand(context.Background(), "how does rust manage memory "); err != nil || f.count() != n {
		t.Errorf("cache miss: %v, %d requests", err, f.count()-n)
	}

	for _, tc := range []struct{ content, reason string }{
		{"Here are some ideas: use the Rust book.", "not JSON"},
		{"<null>", "empty response"},
		{`{"keywords": ["another query"], "passage": "another query"}`, "echoes"},
	} {
		f.with(func() { f.chat = tc.content })
		_, err := e.Expand(context.Background(), "another query")
		var oe *Error
		if !errors.As(err, &oe) || !errors.Is(err, ErrBadResponse) || !strings.Contains(oe.Reason(), tc.reason) {
			t.Errorf("content %q: err %v, want ErrBadResponse %q", tc.content, err, tc.reason)
		}
	}
	e2, _ := NewExpander(ExpanderConfig{Config: Config{BaseURL: f.base(), Model: "m1"}, NoJSONMode: true})
	f.with(func() { f.chat = "lex: borrow checker\nhyde: The borrow checker enforces rules." })
	if exp, err := e2.Expand(context.Background(), "q2"); err != nil || exp.Keywords[0] != "borrow checker" {
		t.Errorf("line format: %+v %v", exp, err)
	}
	if _, ok := f.last()["response_format"]; ok {
		t.Error("NoJSONMode still sent response_format")
	}
}

func TestReranker(t *testing.T) {
	f := newFake(t)
	r, err := NewReranker(RerankerConfig{Config: Config{BaseURL: f.base(), Model: "m1"}, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"a", "b", "c"}
	got, err := r.Score(context.Background(), "q", docs)
	if err != nil {
		t.Fatal(err)
	}
	// Batches of 2 and 1: (i+1)/(n+1) per batch → 1/3, 2/3, then 1/2.
	want := []float32{1.0 / 3, 2.0 / 3, 0.5}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Errorf("scores = %v, want %v", got, want)
			break
		}
	}
	req := f.last()
	if req["query"] != "q" || req["top_n"] != float64(1) || req["return_documents"] != false {
		t.Errorf("request = %v", req)
	}
	if r.IsTestModel() || r.ModelID() != "openai:m1" {
		t.Error("identity")
	}

	// Logits (TEI bare array with "score"): auto applies the logistic.
	f.with(func() {
		f.rerank = func(d []string) string { return `[{"index":1,"score":-2.0},{"index":0,"score":3.5}]` }
	})
	r2, _ := NewReranker(RerankerConfig{Config: Config{BaseURL: f.base(), Model: "m1"}})
	got, err = r2.Score(context.Background(), "q", []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	sig := func(x float64) float32 { return float32(1 / (1 + math.Exp(-x))) }
	if got[0] != sig(3.5) || got[1] != sig(-2) || got[2] != 0 {
		t.Errorf("logit scores = %v, want [%v %v 0] (missing passage scores 0)", got, sig(3.5), sig(-2))
	}
	// Forced logit scale, in-range values.
	f.with(func() { f.rerank = func(d []string) string { return `{"results":[{"index":0,"relevance_score":0}]}` } })
	r3, _ := NewReranker(RerankerConfig{Config: Config{BaseURL: f.base(), Model: "m1"}, Scores: ScoresLogit})
	if got, _ := r3.Score(context.Background(), "q", []string{"a"}); got[0] != 0.5 {
		t.Errorf("forced logit: %v, want 0.5", got)
	}
	for _, body := range []string{
		`{"results":[{"index":5,"relevance_score":0.5}]}`,
		`{"results":[{"index":0}]}`,
		`{"unexpected":true}`,
	} {
		f.with(func() { f.rerank = func(d []string) string { return body } })
		if _, err := r2.Score(context.Background(), "q", []string{"a"}); !errors.Is(err, ErrBadResponse) {
			t.Errorf("body %s: err %v, want ErrBadResponse", body, err)
		}
	}
	if _, err := NewReranker(RerankerConfig{Config: Config{BaseURL: f.base(), Model: "m1"}, Scores: "percent"}); err == nil {
		t.Error("bad scale accepted")
	}
}

// TestFailures drives every role through the same broken server states.
func TestFailures(t *testing.T) {
	f := newFake(t)
	f.with(func() { f.chat = `{"keywords":["x y"]}` })
	cfg := Config{BaseURL: f.base(), Model: "m1", MaxResponseBytes: 1 << 20}
	emb, _ := NewEmbedder(EmbedderConfig{Config: cfg})
	exp, _ := NewExpander(ExpanderConfig{Config: cfg, CacheSize: -1})
	rr, _ := NewReranker(RerankerConfig{Config: cfg})
	calls := map[string]func(context.Context) error{
		"embed": func(ctx context.Context) error {
			_, err := emb.Embed(ctx, []string{"a"}, inference.Document)
			return err
		},
		"expand": func(ctx context.Context) error { _, err := exp.Expand(ctx, "q"); return err },
		"rerank": func(ctx context.Context) error { _, err := rr.Score(ctx, "q", []string{"a"}); return err },
	}
	tests := []struct {
		name    string
		behave  behaviour
		timeout time.Duration
		kind    error
		reason  string
	}{
		{"slow", behaveSlow, 300 * time.Millisecond, ErrTimeout, "timeout"},
		{"500", behave500, 0, ErrUnavailable, "HTTP 500: CUDA out of memory"},
		{"bad json", behaveBadJSON, 0, ErrBadResponse, "invalid JSON"},
		{"cut", behaveCut, 0, ErrUnavailable, "connection closed"},
		{"huge", behaveHuge, 0, ErrBadResponse, "response too long"},
	}
	for _, tc := range tests {
		for op, call := range calls {
			t.Run(tc.name+"/"+op, func(t *testing.T) {
				f.set(tc.behave)
				ctx := context.Background()
				if tc.timeout > 0 {
					ctx = ctxFor(t, tc.timeout)
				}
				err := call(ctx)
				var oe *Error
				if !errors.As(err, &oe) || !errors.Is(err, tc.kind) || !strings.Contains(oe.Reason(), tc.reason) || oe.Op != op {
					t.Errorf("err = %v, want %v with reason %q", err, tc.kind, tc.reason)
				}
			})
		}
	}
	f.set(behaveOK)

	// Missing model, OpenAI's error body.
	bad := Config{BaseURL: f.base(), Model: "nope"}
	e2, _ := NewEmbedder(EmbedderConfig{Config: bad})
	_, err := e2.Embed(context.Background(), []string{"a"}, inference.Document)
	if !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), "The model 'nope' does not exist") {
		t.Errorf("missing model: %v", err)
	}
	// A base URL without /v1 gets a hint.
	r2, _ := NewReranker(RerankerConfig{Config: Config{BaseURL: f.srv.URL, Model: "m1"}})
	_, err = r2.Score(context.Background(), "q", []string{"a"})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "need /v1") {
		t.Errorf("bare base URL: %v", err)
	}
	// Refused connection.
	x, _ := NewExpander(ExpanderConfig{Config: Config{BaseURL: refusedURL(t), Model: "m1"}})
	_, err = x.Expand(ctxFor(t, 10*time.Second), "q")
	var oe *Error
	if !errors.As(err, &oe) || !errors.Is(err, ErrUnavailable) || oe.Reason() != "connection refused" {
		t.Errorf("refused: %v", err)
	}
	// Expired context: no request at all.
	n := f.count()
	ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	if _, err := rr.Score(ctx, "q", []string{"a"}); !errors.Is(err, ErrTimeout) || f.count() != n {
		t.Errorf("expired ctx: %v (%d requests)", err, f.count()-n)
	}
}

func TestDefaultTimeoutWithoutDeadline(t *testing.T) {
	f := newFake(t)
	f.set(behaveSlow)
	e, _ := NewEmbedder(EmbedderConfig{Config: Config{BaseURL: f.base(), Model: "m1", Timeout: 200 * time.Millisecond}})
	if _, err := e.Embed(context.Background(), []string{"a"}, inference.Document); !errors.Is(err, ErrTimeout) {
		t.Errorf("err = %v, want ErrTimeout", err)
	}
}

func TestAPIKeyScoping(t *testing.T) {
	f := newFake(t)
	f.key = "sk-test"
	// Explicit key.
	e, _ := NewEmbedder(EmbedderConfig{Config: Config{BaseURL: f.base(), Model: "m1", APIKey: "sk-test"}})
	if _, err := e.Embed(context.Background(), []string{"a"}, inference.Document); err != nil {
		t.Fatalf("explicit key: %v", err)
	}
	// Env key goes to the env's own server…
	t.Setenv("OPENAI_BASE_URL", f.base())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	e, _ = NewEmbedder(EmbedderConfig{Config: Config{Model: "m1"}})
	if _, err := e.Embed(context.Background(), []string{"a"}, inference.Document); err != nil {
		t.Fatalf("env key and URL: %v", err)
	}
	// …but never to another host.
	other := newFake(t)
	e, _ = NewEmbedder(EmbedderConfig{Config: Config{BaseURL: other.base(), Model: "m1"}})
	if _, err := e.Embed(context.Background(), []string{"a"}, inference.Document); err != nil {
		t.Fatal(err)
	}
	other.mu.Lock()
	sent := other.auth[len(other.auth)-1]
	other.mu.Unlock()
	if sent != "" {
		t.Errorf("env key leaked to another host: %q", sent)
	}
	// Wrong key: 401 is unavailable with the server's message.
	e, _ = NewEmbedder(EmbedderConfig{Config: Config{BaseURL: f.base(), Model: "m1", APIKey: "wrong"}})
	_, err := e.Embed(context.Background(), []string{"a"}, inference.Document)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "HTTP 401: Incorrect API key") {
		t.Errorf("wrong key: %v", err)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, c := range []Config{{}, {Model: "m", BaseURL: "ftp://x"}, {Model: "m", BaseURL: "http://"}, {Model: "m", BaseURL: "::"}} {
		if _, err := NewEmbedder(EmbedderConfig{Config: c}); err == nil {
			t.Errorf("accepted %+v", c)
		}
	}
	if _, err := NewEmbedder(EmbedderConfig{Config: Config{Model: "m"}, Dimensions: -2}); err == nil {
		t.Error("negative dimensions accepted")
	}
	e, _ := NewExpander(ExpanderConfig{Config: Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1"}})
	if _, err := e.Expand(context.Background(), " "); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty query: %v", err)
	}
	r, _ := NewReranker(RerankerConfig{Config: Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1"}})
	if got, err := r.Score(context.Background(), "q", nil); got != nil || err != nil {
		t.Errorf("no passages: %v %v", got, err)
	}
}
