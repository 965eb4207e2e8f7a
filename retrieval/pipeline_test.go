package retrieval

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
)

// judged is a tiny corpus where keywords alone and vectors alone each miss
// something: paraphrases with no shared words need vectors, exact codes
// and names need BM25.
var judged = map[string]string{
	"car.md":      "# Automobile upkeep\n\nChange the engine oil every ten thousand kilometres and check tyre pressure monthly.\n",
	"flu.md":      "# Influenza\n\nA viral infection of the respiratory tract causing fever, cough and aching muscles.\n",
	"err.md":      "# Error E4012\n\nThe controller reports E4012 when the firmware checksum does not match.\n",
	"sleep.md":    "# Rest\n\nAdults need seven to nine hours of sleep each night for good health.\n",
	"garden.md":   "# Tomatoes\n\nWater tomato plants deeply twice a week and stake them as they grow.\n",
	"kafka.md":    "# Kafka consumer lag\n\nConsumer lag is the difference between the latest offset and the committed offset.\n",
	"finance.md":  "# Budgeting\n\nTrack monthly spending and save a fixed share of income.\n",
	"volcano.md":  "# Volcanoes\n\nMagma rising through the crust erupts as lava, ash and gas.\n",
	"python.md":   "# List comprehensions\n\nA compact Python syntax to build lists from iterables.\n",
	"running.md":  "# Marathon training\n\nBuild weekly mileage slowly and taper before race day.\n",
	"coffee.md":   "# Espresso\n\nForce hot water through finely ground coffee at nine bars of pressure.\n",
	"printer.md":  "# Printer jam\n\nOpen the rear tray and pull the stuck paper out gently.\n",
	"whale.md":    "# Blue whale\n\nThe largest animal ever known feeds on krill by filter feeding.\n",
	"password.md": "# Password hygiene\n\nUse a manager and a unique long passphrase for each account.\n",
}

var judgedQueries = map[string]string{
	"how often should I service my vehicle": "car.md",
	"symptoms of the flu":                   "flu.md",
	"what does E4012 mean":                  "err.md",
	"how many hours should grown-ups rest":  "sleep.md",
	"kafka offset difference":               "kafka.md",
	"biggest creature on earth":             "whale.md",
	"paper stuck in the printer":            "printer.md",
	"making strong coffee with a machine":   "coffee.md",
}

func mrr(t *testing.T, run func(q string) []Result) float64 {
	t.Helper()
	total := 0.0
	for q, want := range judgedQueries {
		for i, r := range run(q) {
			if r.Source.RelPath == want {
				total += 1 / float64(i+1)
				break
			}
		}
	}
	return total / float64(len(judgedQueries))
}

func TestFusionBeatsEachList(t *testing.T) {
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, _ := newEngine(t, judged)
	e.Paths.ModelsDir = dir
	update(t, e)
	ctx := context.Background()
	if _, err := e.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	req := func(q string) SearchRequest { return SearchRequest{Query: q, Limit: 10} }
	bm := mrr(t, func(q string) []Result {
		r, err := e.Search(ctx, req(q))
		if err != nil {
			return nil
		}
		return r.Results
	})
	vec := mrr(t, func(q string) []Result {
		r, err := e.VSearch(ctx, req(q))
		if err != nil {
			t.Fatal(err)
		}
		return r.Results
	})
	fused := mrr(t, func(q string) []Result {
		r, err := e.Query(ctx, QueryRequest{SearchRequest: req(q), Fast: true})
		if err != nil {
			t.Fatal(err)
		}
		return r.Results
	})
	t.Logf("MRR bm25 %.3f vector %.3f fused %.3f", bm, vec, fused)
	if fused < bm || fused < vec {
		t.Fatalf("fusion (%.3f) below a single list (bm25 %.3f, vector %.3f)", fused, bm, vec)
	}
}

// fakeOllama speaks /api/chat like Ollama: a JSON body with the model's
// message, or a slow answer when asked.
func fakeOllama(t *testing.T, delay time.Duration, content string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		// Reading the body lets the server notice a client that gives up.
		io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		enc := json.NewEncoder(w)
		enc.Encode(map[string]any{"model": "m", "created_at": time.Now().Format(time.RFC3339), "message": map[string]string{"role": "assistant", "content": content}, "done": false})
		enc.Encode(map[string]any{"model": "m", "created_at": time.Now().Format(time.RFC3339), "message": map[string]string{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestThoroughExpansion(t *testing.T) {
	e, _ := newEngine(t, judged)
	update(t, e)
	ctx := context.Background()
	good := fakeOllama(t, 0, `{"keywords":["tyre pressure","engine oil"],"passage":"Service a car by changing oil."}`)
	e.UpdateConfig(ctx, func(c *config.Config) error {
		c.Models.Expand = config.Backend{Kind: "ollama", URL: good.URL, Model: "m"}
		return nil
	})
	res, err := e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "vehicle maintenance schedule"}, Thorough: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Meta.Expanded || len(res.Results) == 0 || res.Results[0].Source.RelPath != "car.md" {
		t.Fatalf("expanded query: %+v", res)
	}
	// A server slower than the budget is cut, not waited for.
	slow := fakeOllama(t, time.Minute, `{"keywords":["x"]}`)
	e.UpdateConfig(ctx, func(c *config.Config) error {
		c.Models.Expand = config.Backend{Kind: "ollama", URL: slow.URL, Model: "m"}
		c.Search.Budgets = map[string]config.Duration{"thorough": config.Duration(300 * time.Millisecond)}
		return nil
	})
	res, err = e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "vehicle maintenance schedule"}, Thorough: true})
	if err != nil || res.Meta.Expanded || len(res.Meta.Notes) == 0 {
		t.Fatalf("slow expander: %+v %v", res.Meta, err)
	}
	// No server at all.
	e.UpdateConfig(ctx, func(c *config.Config) error {
		c.Models.Expand = config.Backend{Kind: "ollama", URL: "http://127.0.0.1:1", Model: "m"}
		return nil
	})
	res, err = e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "vehicle maintenance schedule"}, Thorough: true})
	if err != nil || res.Meta.Expanded {
		t.Fatalf("refused expander: %+v %v", res.Meta, err)
	}
}

// fakeRerank serves the common /v1/rerank API: documents mentioning
// favourite score high, the rest low.
func fakeRerank(t *testing.T, favourite string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
		}
		if r.URL.Path != "/v1/rerank" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		type res struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out []res
		for i, d := range req.Documents {
			s := 0.05
			if strings.Contains(d, favourite) {
				s = 0.97
			}
			out = append(out, res{i, s})
		}
		json.NewEncoder(w).Encode(map[string]any{"results": out})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRerankBlendsAndProtects(t *testing.T) {
	e, _ := newEngine(t, map[string]string{
		"a.md": "# Garden\n\nWater the tomato plants deeply.\n",
		"b.md": "# Plants\n\nTomato plants like sun and deep water.\n",
		"c.md": "# Kitchen\n\nTomato sauce needs plants of basil too.\n",
	})
	update(t, e)
	ctx := context.Background()
	srv := fakeRerank(t, "basil")
	e.UpdateConfig(ctx, func(c *config.Config) error {
		c.Models.RerankBackend = config.Backend{Kind: "openai", URL: srv.URL + "/v1", Model: "m"}
		return nil
	})
	res, err := e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "tomato plants water", Limit: 3, Explain: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Meta.Reranked || res.Meta.Mode != "bm25_only" {
		t.Fatalf("meta: %+v", res.Meta)
	}
	var c *Result
	for i := range res.Results {
		if res.Results[i].Source.RelPath == "c.md" {
			c = &res.Results[i]
		}
		if s := res.Results[i].Score; s < 0 || s > 1 {
			t.Fatalf("score out of 0-1: %v", s)
		}
	}
	if c == nil || c.Explain.RerankScore < 0.9 {
		t.Fatalf("reranked result: %+v", res.Results)
	}
	// --no-rerank and fast mode skip it.
	no := false
	res, _ = e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "tomato plants water"}, Rerank: &no})
	if res.Meta.Reranked {
		t.Fatal("reranked with --no-rerank")
	}
	// A dead reranker degrades, never fails the query.
	srv.Close()
	e.forgetModels()
	res, err = e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "tomato plants water"}})
	if err != nil || res.Meta.Reranked || len(res.Results) == 0 {
		t.Fatalf("dead reranker: %+v %v", res.Meta, err)
	}
}
