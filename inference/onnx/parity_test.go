package onnx

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/models"
	"golang.org/x/sys/cpu"
)

// Golden files come from testdata/golden.py (the Python reference:
// tokenizers + onnxruntime + numpy on the same model files).
type golden struct {
	Model string `json:"model"`
	Role  string `json:"role"`
	Cases []struct {
		Kind    string  `json:"kind"`
		Text    string  `json:"text"`
		Query   string  `json:"query"`
		Passage string  `json:"passage"`
		IDs     []int64 `json:"ids"`
		TypeIDs []int64 `json:"type_ids"`
		Vector  string  `json:"vector_f16"`
		Score   float64 `json:"score"`
	} `json:"cases"`
	// exact is false when the reference was made on another kind of CPU.
	exact bool
}

// int8Kernels names the integer kernels ONNX Runtime picks on this CPU.
// Quantized models give visibly different vectors with and without VNNI
// (vpdpbusd against AVX2's saturating vpmaddubsw: cosine 0.9985 between
// the two on bge-small-zh-v1.5-q, in Python and Go alike), so the
// reference for an int8 model is only exact on the same kind of CPU.
func int8Kernels() string {
	if runtime.GOARCH == "amd64" && !cpu.X86.HasAVX512VNNI && !cpu.X86.HasAVXVNNI {
		return "novnni"
	}
	if runtime.GOARCH == "amd64" {
		return "vnni"
	}
	return runtime.GOARCH
}

// loadGoldens reads the reference files: fp32 models from testdata/golden,
// int8 models from testdata/golden/int8-<kernels>/. Where no reference was
// made on this host's kind of CPU, an int8 model is compared with another
// kind's reference at a tolerance (exact reports false).
func loadGoldens(t *testing.T) (out []golden) {
	t.Helper()
	paths, err := filepath.Glob("testdata/golden/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	int8s, _ := filepath.Glob("testdata/golden/int8-*/*.json")
	byModel := map[string][]string{}
	for _, p := range int8s {
		byModel[filepath.Base(p)] = append(byModel[filepath.Base(p)], p)
	}
	for name, ps := range byModel {
		exact := filepath.Join("testdata/golden", "int8-"+int8Kernels(), name)
		if slices.Contains(ps, exact) {
			paths = append(paths, exact)
		} else {
			paths = append(paths, ps[0])
		}
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var g golden
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		g.exact = !strings.Contains(p, "int8-") || strings.Contains(p, "int8-"+int8Kernels()+"/")
		if !g.exact {
			t.Logf("%s: no reference made on a %s CPU; comparing with %s at a tolerance", g.Model, int8Kernels(), p)
		}
		out = append(out, g)
	}
	return out
}

func f16s(t *testing.T, s string) []float32 {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float32, len(b)/2)
	for i := range v {
		v[i] = halfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return v
}

func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		return float32(math.Ldexp(float64(frac)/1024, -14)) * float32(1-2*int(sign>>31))
	case exp == 31:
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestParityWithReference is what shows gno's tokenization, forward pass
// and pooling are right, not just running: for every installed model, the
// same token ids as the reference tokenizer and vectors within cosine
// 0.9999 of the reference pipeline, with all texts embedded in one call so
// batching and padding are exercised too.
func TestParityWithReference(t *testing.T) {
	c := testCache(t)
	for _, g := range loadGoldens(t) {
		t.Run(g.Model, func(t *testing.T) {
			spec, err := c.Installed(g.Model)
			if errors.Is(err, models.ErrNotInstalled) {
				t.Skipf("skipping: %s not installed (run `make models`)", g.Model)
			}
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{ModelDir: c.ModelDir(g.Model), Spec: spec, BatchSize: 8}
			if g.Role == "rerank" {
				parityRerank(t, opts, g)
			} else {
				parityEmbed(t, opts, g)
			}
		})
	}
}

func parityEmbed(t *testing.T, opts Options, g golden) {
	ctx := context.Background()
	e, err := OpenEmbedder(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Load(); err != nil {
		t.Fatal(err)
	}
	var docs, queries []string
	var docIdx, queryIdx []int
	for i, cs := range g.Cases {
		prefix := opts.Spec.DocPrefix
		if cs.Kind == "query" {
			prefix = opts.Spec.QueryPrefix
			queries, queryIdx = append(queries, cs.Text), append(queryIdx, i)
		} else {
			docs, docIdx = append(docs, cs.Text), append(docIdx, i)
		}
		enc, err := e.s.tok.Encode(prefix + cs.Text)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(enc.IDs, cs.IDs) {
			t.Errorf("case %d %.40q: token ids differ from reference\n got  %v\n want %v", i, cs.Text, head(enc.IDs), head(cs.IDs))
		}
	}
	got := make([][]float32, len(g.Cases))
	for _, part := range []struct {
		texts []string
		idx   []int
		kind  inference.TextKind
	}{{docs, docIdx, inference.Document}, {queries, queryIdx, inference.Query}} {
		vecs, err := e.Embed(ctx, part.texts, part.kind)
		if err != nil {
			t.Fatal(err)
		}
		for j, i := range part.idx {
			got[i] = vecs[j]
		}
	}
	worst, floor := 1.0, 0.9999
	if !g.exact {
		floor = 0.998
	}
	for i, cs := range g.Cases {
		cos := cosine(got[i], f16s(t, cs.Vector))
		worst = min(worst, cos)
		if cos < floor {
			t.Errorf("case %d %.40q: cosine to reference %.6f < %g", i, cs.Text, cos, floor)
		}
	}
	st := e.Stats()
	if st.Truncated == 0 {
		t.Errorf("the 2,000-word text should be counted as truncated: %+v", st)
	}
	t.Logf("%s: %d cases, worst cosine %.7f, stats %+v", g.Model, len(g.Cases), worst, st)
}

func parityRerank(t *testing.T, opts Options, g golden) {
	ctx := context.Background()
	r, err := OpenReranker(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Load(); err != nil {
		t.Fatal(err)
	}
	for i, cs := range g.Cases {
		enc, err := r.s.tok.EncodePair(cs.Query, cs.Passage)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(enc.IDs, cs.IDs) || !slices.Equal(enc.TypeIDs, cs.TypeIDs) {
			t.Errorf("pair %d: ids differ from reference\n got  %v %v\n want %v %v", i, head(enc.IDs), head(enc.TypeIDs), head(cs.IDs), head(cs.TypeIDs))
		}
	}
	// Score passages per query in one call, as retrieval does.
	byQuery := map[string][]int{}
	var order []string
	for i, cs := range g.Cases {
		if _, ok := byQuery[cs.Query]; !ok {
			order = append(order, cs.Query)
		}
		byQuery[cs.Query] = append(byQuery[cs.Query], i)
	}
	for _, q := range order {
		var ps []string
		for _, i := range byQuery[q] {
			ps = append(ps, g.Cases[i].Passage)
		}
		scores, err := r.Score(ctx, q, ps)
		if err != nil {
			t.Fatal(err)
		}
		for j, i := range byQuery[q] {
			tol := 1e-4
			if !g.exact {
				tol = 0.03
			}
			if d := math.Abs(float64(scores[j]) - g.Cases[i].Score); d > tol {
				t.Errorf("pair %d: score %.6f, reference %.6f", i, scores[j], g.Cases[i].Score)
			}
		}
	}
}

func head(ids []int64) []int64 {
	if len(ids) > 24 {
		return ids[:24]
	}
	return ids
}
