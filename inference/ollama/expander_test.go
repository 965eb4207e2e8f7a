package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/inference/expand"
)

const (
	testModel = "qwen3:1.7b"
	testQuery = "how does rust manage memory"
	goodReply = `{"keywords": ["rust ownership rules", "borrow checker lifetimes", "Rust ownership rules"], ` +
		`"passage": "Rust manages memory through ownership: each value has one owner and is freed when the owner goes out of scope."}`
)

var wantGood = []string{"rust ownership rules", "borrow checker lifetimes"}

func newTestExpander(t *testing.T, f *fakeOllama, mod func(*ExpanderConfig)) *Expander {
	t.Helper()
	cfg := ExpanderConfig{URL: f.srv.URL, Model: testModel}
	if mod != nil {
		mod(&cfg)
	}
	e, err := NewExpander(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func shortCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestExpandWireVariants runs the happy path over both endpoints, streamed
// and not, and checks the request carried what the real server expects.
func TestExpandWireVariants(t *testing.T) {
	for _, api := range []string{"chat", "generate"} {
		for _, noStream := range []bool{false, true} {
			name := api
			if noStream {
				name += "/nostream"
			} else {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				f := newFakeOllama(t, testModel)
				f.set(behaveOK, goodReply)
				e := newTestExpander(t, f, func(c *ExpanderConfig) { c.API = api; c.NoStream = noStream })
				exp, err := e.Expand(context.Background(), testQuery)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(exp.Keywords, wantGood) {
					t.Errorf("keywords = %q, want %q", exp.Keywords, wantGood)
				}
				if !strings.HasPrefix(exp.Passage, "Rust manages memory through ownership") {
					t.Errorf("passage = %q", exp.Passage)
				}
				f.mu.Lock()
				defer f.mu.Unlock()
				var stream *bool
				var format json.RawMessage
				var opts map[string]any
				var think any
				if api == "chat" {
					if len(f.chats) != 1 || len(f.gens) != 0 {
						t.Fatalf("chat calls %d, generate calls %d", len(f.chats), len(f.gens))
					}
					r := f.chats[0]
					stream, format, opts = r.Stream, r.Format, r.Options
					if r.Think != nil {
						think = r.Think.Value
					}
					if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Content != "Query: "+testQuery {
						t.Errorf("messages = %+v", r.Messages)
					}
				} else {
					if len(f.gens) != 1 || len(f.chats) != 0 {
						t.Fatalf("chat calls %d, generate calls %d", len(f.chats), len(f.gens))
					}
					r := f.gens[0]
					stream, format, opts = r.Stream, r.Format, r.Options
					if r.Think != nil {
						think = r.Think.Value
					}
					if r.System != expand.SystemPrompt || r.Prompt != "Query: "+testQuery {
						t.Errorf("system/prompt = %q / %q", r.System, r.Prompt)
					}
				}
				if stream == nil || *stream != !noStream {
					t.Errorf("stream = %v, want %v", stream, !noStream)
				}
				if !json.Valid(format) || !strings.Contains(string(format), `"keywords"`) {
					t.Errorf("format = %s, want the JSON schema", format)
				}
				if opts["temperature"] != float64(0) || opts["num_predict"] != float64(400) {
					t.Errorf("options = %v", opts)
				}
				if think != false {
					t.Errorf("think = %v, want false", think)
				}
			})
		}
	}
}

func TestExpandCachesPerModelAndQuery(t *testing.T) {
	f := newFakeOllama(t, testModel, "other")
	f.set(behaveOK, goodReply)
	e := newTestExpander(t, f, nil)
	for i := 0; i < 3; i++ {
		exp, err := e.Expand(context.Background(), testQuery)
		if err != nil {
			t.Fatal(err)
		}
		exp.Keywords[0] = "mutated by caller" // must not leak into the cache
	}
	if n := f.callCount(); n != 1 {
		t.Errorf("server called %d times for one query, want 1", n)
	}
	exp, _ := e.Expand(context.Background(), "  "+testQuery+" ")
	if exp.Keywords[0] != wantGood[0] {
		t.Errorf("cached copy was mutated: %q", exp.Keywords)
	}
	if _, err := e.Expand(context.Background(), "another query"); err != nil {
		t.Fatal(err)
	}
	if n := f.callCount(); n != 2 {
		t.Errorf("server called %d times for two queries, want 2", n)
	}
	// Another model is another cache key, even for the same query.
	e2 := newTestExpander(t, f, func(c *ExpanderConfig) { c.Model = "other" })
	e2.cache = e.cache
	if _, err := e2.Expand(context.Background(), testQuery); err != nil {
		t.Fatal(err)
	}
	if n := f.callCount(); n != 3 {
		t.Errorf("server called %d times, want 3 (different model)", n)
	}
	// Failures are not cached.
	f.set(behave500, "")
	if _, err := e.Expand(context.Background(), "third query"); err == nil {
		t.Fatal("want error")
	}
	f.set(behaveOK, goodReply)
	if _, err := e.Expand(context.Background(), "third query"); err != nil {
		t.Fatalf("after a failure: %v", err)
	}
}

func TestExpandFailures(t *testing.T) {
	tests := []struct {
		name       string
		behave     behaviour
		reply      string
		noStream   bool
		model      string
		ctxTimeout time.Duration
		kind       error
		reason     string // substring of Reason()
	}{
		{name: "missing model", model: "nope", kind: ErrModelNotFound, reason: "model 'nope' not found"},
		{name: "missing model nostream", model: "nope", noStream: true, kind: ErrModelNotFound, reason: "not found"},
		{name: "server error", behave: behave500, kind: ErrUnavailable, reason: "HTTP 500: llama runner process has terminated"},
		{name: "slow stream", behave: behaveSlow, ctxTimeout: 300 * time.Millisecond, kind: ErrTimeout, reason: "timeout"},
		{name: "slow nostream", behave: behaveSlow, noStream: true, ctxTimeout: 300 * time.Millisecond, kind: ErrTimeout, reason: "timeout"},
		{name: "bad json line", behave: behaveBadJSON, kind: ErrBadResponse, reason: "malformed response"},
		{name: "bad json nostream", behave: behaveBadJSON, noStream: true, kind: ErrBadResponse, reason: "malformed response"},
		{name: "closed mid-stream", behave: behaveCut, kind: ErrUnavailable, reason: "connection closed"},
		{name: "closed mid-body nostream", behave: behaveCut, noStream: true, kind: ErrUnavailable, reason: "connection closed"},
		{name: "huge stream", behave: behaveHuge, kind: ErrBadResponse, reason: "response too long"},
		{name: "huge nostream", behave: behaveHuge, noStream: true, kind: ErrBadResponse, reason: "response too long"},
		{name: "prose", reply: "Sure! Here are some ideas for searching about Rust memory management.", kind: ErrBadResponse, reason: "not JSON"},
		{name: "empty", reply: "", kind: ErrBadResponse, reason: "empty response"},
		{name: "only thinking", reply: "<think>The user wants keywords about rust", kind: ErrBadResponse, reason: "empty response"},
		{name: "echo", reply: `{"keywords": ["How does Rust manage memory?", "Query: how does rust manage memory"], "passage": "` + expand.SystemPrompt[:120] + `"}`,
			kind: ErrBadResponse, reason: "echoes"},
		{name: "wrong shape", reply: `{"answer_keywords": 3, "text": ["a"]}`, kind: ErrBadResponse, reason: "not JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOllama(t, testModel)
			f.set(tc.behave, tc.reply)
			e := newTestExpander(t, f, func(c *ExpanderConfig) {
				c.NoStream = tc.noStream
				if tc.model != "" {
					c.Model = tc.model
				}
			})
			ctx := context.Background()
			if tc.ctxTimeout > 0 {
				ctx = shortCtx(t, tc.ctxTimeout)
			}
			exp, err := e.Expand(ctx, testQuery)
			if err == nil {
				t.Fatalf("want error, got %+v", exp)
			}
			var oe *Error
			if !errors.As(err, &oe) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("kind = %v, want %v (err: %v)", oe.Kind, tc.kind, err)
			}
			if !strings.Contains(oe.Reason(), tc.reason) {
				t.Errorf("reason = %q, want it to contain %q", oe.Reason(), tc.reason)
			}
			if len(oe.Reason()) > 140 {
				t.Errorf("reason too long for meta (%d chars): %q", len(oe.Reason()), oe.Reason())
			}
			var r interface{ Reason() string }
			if !errors.As(err, &r) {
				t.Error("error does not expose Reason() through errors.As")
			}
		})
	}
}

func TestExpandTimeoutWrapsContextError(t *testing.T) {
	f := newFakeOllama(t, testModel)
	f.set(behaveSlow, "")
	e := newTestExpander(t, f, nil)
	_, err := e.Expand(shortCtx(t, 200*time.Millisecond), testQuery)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrTimeout) {
		t.Errorf("err = %v; want both ErrTimeout and context.DeadlineExceeded", err)
	}
	// A context already past its deadline fails without a request.
	calls := f.callCount()
	ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	if _, err := e.Expand(ctx, "fresh query"); !errors.Is(err, ErrTimeout) {
		t.Errorf("expired ctx: %v", err)
	}
	if f.callCount() != calls {
		t.Error("expired context still sent a request")
	}
}

func TestExpandDefaultTimeoutWithoutDeadline(t *testing.T) {
	f := newFakeOllama(t, testModel)
	f.set(behaveSlow, "")
	e := newTestExpander(t, f, func(c *ExpanderConfig) { c.Timeout = 200 * time.Millisecond })
	if _, err := e.Expand(context.Background(), testQuery); !errors.Is(err, ErrTimeout) {
		t.Errorf("err = %v, want ErrTimeout from the default timeout", err)
	}
}

func TestExpandRefusedConnection(t *testing.T) {
	e, err := NewExpander(ExpanderConfig{URL: refusedURL(t), Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	// The generous deadline only guards the test; refusal is immediate.
	_, err = e.Expand(shortCtx(t, 10*time.Second), testQuery)
	var oe *Error
	if !errors.As(err, &oe) || !errors.Is(err, ErrUnavailable) || oe.Reason() != "connection refused" {
		t.Fatalf("err = %v, want ErrUnavailable with reason \"connection refused\"", err)
	}
	if !strings.Contains(err.Error(), "ollama expand: connection refused") {
		t.Errorf("Error() = %q", err.Error())
	}
}

func TestExpandHostFromEnvironment(t *testing.T) {
	f := newFakeOllama(t, testModel)
	f.set(behaveOK, goodReply)
	t.Setenv("OLLAMA_HOST", f.srv.URL)
	e, err := NewExpander(ExpanderConfig{Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Expand(context.Background(), testQuery); err != nil {
		t.Fatalf("via OLLAMA_HOST: %v", err)
	}
	// A bare host:port works too.
	e, err = NewExpander(ExpanderConfig{URL: strings.TrimPrefix(f.srv.URL, "http://"), Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Expand(context.Background(), "second"); err != nil {
		t.Fatalf("via bare host:port: %v", err)
	}
}

func TestNewExpanderRejectsBadConfig(t *testing.T) {
	for _, cfg := range []ExpanderConfig{
		{},
		{Model: "m", API: "completions"},
		{Model: "m", URL: "ftp://host"},
		{Model: "m", URL: "http://"},
	} {
		if _, err := NewExpander(cfg); err == nil {
			t.Errorf("NewExpander(%+v) accepted", cfg)
		}
	}
	e, err := NewExpander(ExpanderConfig{Model: " m "})
	if err != nil {
		t.Fatal(err)
	}
	if e.ModelID() != "ollama:m" {
		t.Errorf("ModelID = %q", e.ModelID())
	}
	if _, err := e.Expand(context.Background(), "  "); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty query: %v", err)
	}
}
