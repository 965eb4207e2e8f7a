package ollama

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/inference"
)

const embedModel = "nomic-embed-text"

func newTestEmbedder(t *testing.T, f *fakeOllama, mod func(*EmbedderConfig)) *Embedder {
	t.Helper()
	cfg := EmbedderConfig{URL: f.srv.URL, Model: embedModel}
	if mod != nil {
		mod(&cfg)
	}
	e, err := NewEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestEmbedNormalisesBatchesAndPrefixes(t *testing.T) {
	f := newFakeOllama(t, embedModel)
	e := newTestEmbedder(t, f, func(c *EmbedderConfig) {
		c.QueryPrefix, c.DocumentPrefix, c.BatchSize = "search_query: ", "search_document: ", 2
	})
	if e.Dim() != 0 {
		t.Errorf("Dim before any call = %d, want 0", e.Dim())
	}
	texts := []string{"a", "bb", "", "dddd", "eeeee"}
	vecs, err := e.Embed(context.Background(), texts, inference.Document)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) || e.Dim() != 4 {
		t.Fatalf("%d vectors, dim %d; want %d and 4", len(vecs), e.Dim(), len(texts))
	}
	for i, v := range vecs {
		// The fake returns [len(prefix+text), 0, 3, 4]; check order and norm.
		l := float64(len("search_document: " + texts[i]))
		n := math.Sqrt(l*l + 25)
		want := []float64{l / n, 0, 3 / n, 4 / n}
		for j := range v {
			if math.Abs(float64(v[j])-want[j]) > 1e-6 {
				t.Errorf("vec %d = %v, want %v", i, v, want)
				break
			}
		}
	}
	f.mu.Lock()
	nreq := len(f.embeds)
	first := f.embeds[0]
	f.mu.Unlock()
	if nreq != 3 {
		t.Errorf("%d requests for 5 texts with batch 2, want 3", nreq)
	}
	if in := first.Input.([]any); in[0] != "search_document: a" {
		t.Errorf("input = %v, want the document prefix", in)
	}
	if first.Truncate == nil || !*first.Truncate {
		t.Error("truncate not requested")
	}

	if _, err := e.Embed(context.Background(), []string{"q"}, inference.Query); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	last := f.embeds[len(f.embeds)-1]
	f.mu.Unlock()
	if in := last.Input.([]any); in[0] != "search_query: q" {
		t.Errorf("query input = %v, want the query prefix", in)
	}
	if v, err := e.Embed(context.Background(), nil, inference.Query); v != nil || err != nil {
		t.Errorf("empty input: %v, %v", v, err)
	}
}

func TestEmbedProbeAndModelID(t *testing.T) {
	f := newFakeOllama(t, embedModel)
	e := newTestEmbedder(t, f, nil)
	d, err := e.Probe(context.Background())
	if err != nil || d != 4 {
		t.Fatalf("Probe = %d, %v; want 4", d, err)
	}
	if e.ModelID() != "ollama:nomic-embed-text" {
		t.Errorf("ModelID = %q", e.ModelID())
	}
	e2 := newTestEmbedder(t, f, func(c *EmbedderConfig) { c.Dimensions = 256 })
	if e2.ModelID() != "ollama:nomic-embed-text@256" || e2.Dim() != 256 {
		t.Errorf("with dimensions: %q, %d", e2.ModelID(), e2.Dim())
	}
}

func TestEmbedFailures(t *testing.T) {
	tests := []struct {
		name    string
		behave  behaviour
		model   string
		vectors func([]string) [][]float32
		timeout time.Duration
		kind    error
		reason  string
	}{
		{name: "missing model", model: "nope", kind: ErrModelNotFound, reason: "model 'nope' not found"},
		{name: "server error", behave: behave500, kind: ErrUnavailable, reason: "HTTP 500: failed to generate embedding"},
		{name: "slow", behave: behaveSlow, timeout: 300 * time.Millisecond, kind: ErrTimeout, reason: "timeout"},
		{name: "bad json", behave: behaveBadJSON, kind: ErrBadResponse, reason: "invalid JSON"},
		{name: "closed mid-body", behave: behaveCut, kind: ErrUnavailable, reason: "connection closed"},
		{name: "wrong count", vectors: func(in []string) [][]float32 { return [][]float32{{1}} }, kind: ErrBadResponse, reason: "1 vectors for 2 texts"},
		{name: "ragged dims", vectors: func(in []string) [][]float32 { return [][]float32{{1, 2}, {1, 2, 3}} }, kind: ErrBadResponse, reason: "3 dimensions, want 2"},
		{name: "empty vector", vectors: func(in []string) [][]float32 { return [][]float32{{}, {}} }, kind: ErrBadResponse, reason: "empty vector"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOllama(t, embedModel)
			f.set(tc.behave, "")
			f.embedFn = tc.vectors
			e := newTestEmbedder(t, f, func(c *EmbedderConfig) {
				if tc.model != "" {
					c.Model = tc.model
				}
			})
			ctx := context.Background()
			if tc.timeout > 0 {
				ctx = shortCtx(t, tc.timeout)
			}
			_, err := e.Embed(ctx, []string{"x", "y"}, inference.Document)
			var oe *Error
			if !errors.As(err, &oe) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(oe.Reason(), tc.reason) {
				t.Errorf("got %v / %q, want %v / %q", oe.Kind, oe.Reason(), tc.kind, tc.reason)
			}
		})
	}
}

func TestEmbedDimensionChangeAcrossCalls(t *testing.T) {
	f := newFakeOllama(t, embedModel)
	e := newTestEmbedder(t, f, nil)
	if _, err := e.Embed(context.Background(), []string{"a"}, inference.Document); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.embedFn = func(in []string) [][]float32 { return [][]float32{{1, 2, 3}} }
	f.mu.Unlock()
	_, err := e.Embed(context.Background(), []string{"a"}, inference.Document)
	if !errors.Is(err, ErrBadResponse) || !strings.Contains(err.Error(), "3 dimensions, want 4") {
		t.Errorf("err = %v", err)
	}
}

func TestEmbedRefusedConnection(t *testing.T) {
	e, err := NewEmbedder(EmbedderConfig{URL: refusedURL(t), Model: embedModel})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Probe(shortCtx(t, 10*time.Second))
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("err = %v", err)
	}
}

func TestNewEmbedderRejectsBadConfig(t *testing.T) {
	for _, cfg := range []EmbedderConfig{{}, {Model: "m", Dimensions: -1}, {Model: "m", URL: "gopher://x"}} {
		if _, err := NewEmbedder(cfg); err == nil {
			t.Errorf("NewEmbedder(%+v) accepted", cfg)
		}
	}
}
