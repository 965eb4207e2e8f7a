package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/gnosearch/gno/inference"
)

// ScoreScale says how a rerank server's relevance scores map to 0–1.
type ScoreScale string

const (
	// ScoresAuto keeps a response's scores when all lie in [0, 1] (Cohere,
	// Jina, vLLM and TEI by default return probabilities) and applies the
	// logistic function to all of them otherwise (raw logits).
	ScoresAuto ScoreScale = ""
	// ScoresProbability clamps scores to [0, 1].
	ScoresProbability ScoreScale = "probability"
	// ScoresLogit always applies the logistic function, for servers known
	// to return logits (TEI with raw_scores, some llama.cpp builds); with
	// auto, a logit batch that happens to fall in [0, 1] would be misread.
	ScoresLogit ScoreScale = "logit"
)

// RerankerConfig configures a cross-encoder served at /rerank in the
// Jina/Cohere/vLLM shape: {model, query, documents} →
// {results: [{index, relevance_score}]}. TEI's [{index, score}] reply is
// accepted too.
type RerankerConfig struct {
	Config
	// Scores selects the score mapping (default ScoresAuto).
	Scores ScoreScale
	// BatchSize is how many passages go in one request (default 64).
	BatchSize int
}

// Reranker implements inference.Reranker over /rerank. It is safe for
// concurrent use.
type Reranker struct {
	c     *client
	scale ScoreScale
	batch int
}

var _ inference.Reranker = (*Reranker)(nil)

// NewReranker checks the configuration without contacting the server.
func NewReranker(cfg RerankerConfig) (*Reranker, error) {
	switch cfg.Scores {
	case ScoresAuto, ScoresProbability, ScoresLogit:
	default:
		return nil, fmt.Errorf("openai reranker: scores %q: want %q or %q (or empty for auto)", cfg.Scores, ScoresProbability, ScoresLogit)
	}
	c, err := newClient("reranker", cfg.Config)
	if err != nil {
		return nil, err
	}
	r := &Reranker{c: c, scale: cfg.Scores, batch: cfg.BatchSize}
	if r.batch <= 0 {
		r.batch = 64
	}
	return r, nil
}

// ModelID is "openai:<model>".
func (r *Reranker) ModelID() string { return "openai:" + r.c.model }

// IsTestModel is false: a served model is assumed to be a real one.
func (r *Reranker) IsTestModel() bool { return false }

// Close drops idle connections.
func (r *Reranker) Close() error {
	r.c.close()
	return nil
}

type rerankRequest struct {
	Model           string   `json:"model"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            int      `json:"top_n"`
	ReturnDocuments bool     `json:"return_documents"`
}

type rerankResult struct {
	Index          int      `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// Score returns one 0–1 relevance score per passage, in order. A passage
// the server left out of its results scores 0. Out-of-range or repeated
// indices and non-finite scores are ErrBadResponse.
func (r *Reranker) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	if len(passages) == 0 {
		return nil, nil
	}
	if strings.TrimSpace(query) == "" {
		return nil, newErr(ErrInvalid, "rerank", "empty query", nil)
	}
	ctx, cancel := r.c.withTimeout(ctx)
	defer cancel()
	raw := make([]float64, len(passages))
	found := make([]bool, len(passages))
	for start := 0; start < len(passages); start += r.batch {
		batch := passages[start:min(start+r.batch, len(passages))]
		req := rerankRequest{Model: r.c.model, Query: query, Documents: batch, TopN: len(batch)}
		var body json.RawMessage
		if err := r.c.post(ctx, "rerank", "/rerank", req, &body); err != nil {
			return nil, err
		}
		results, err := decodeRerank(body)
		if err != nil {
			return nil, err
		}
		for _, res := range results {
			if res.Index < 0 || res.Index >= len(batch) || found[start+res.Index] {
				return nil, newErr(ErrBadResponse, "rerank", fmt.Sprintf("bad or repeated index %d", res.Index), nil)
			}
			found[start+res.Index] = true
			s := res.RelevanceScore
			if s == nil {
				s = res.Score
			}
			if s == nil || math.IsNaN(*s) || math.IsInf(*s, 0) {
				return nil, newErr(ErrBadResponse, "rerank", fmt.Sprintf("result %d has no usable score", res.Index), nil)
			}
			raw[start+res.Index] = *s
		}
	}
	return mapScores(raw, found, r.scale), nil
}

// decodeRerank accepts {"results": [...]} and TEI's bare array.
func decodeRerank(body json.RawMessage) ([]rerankResult, error) {
	var wrapped struct {
		Results *[]rerankResult `json:"results"`
	}
	if err := json.Unmarshal(body, &wrapped); err == nil && wrapped.Results != nil {
		return *wrapped.Results, nil
	}
	var bare []rerankResult
	if err := json.Unmarshal(body, &bare); err == nil {
		return bare, nil
	}
	return nil, newErr(ErrBadResponse, "rerank", "no results in response", nil)
}

// mapScores applies the configured scale to the whole query's scores at
// once, so all passages of one query are on the same scale; passages the
// server did not score get 0.
func mapScores(raw []float64, found []bool, scale ScoreScale) []float32 {
	logit := scale == ScoresLogit
	if scale == ScoresAuto {
		for i, s := range raw {
			if found[i] && (s < 0 || s > 1) {
				logit = true
				break
			}
		}
	}
	out := make([]float32, len(raw))
	for i, s := range raw {
		if !found[i] {
			continue
		}
		if logit {
			s = 1 / (1 + math.Exp(-s))
		}
		out[i] = float32(min(max(s, 0), 1))
	}
	return out
}
