package onnx

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/models"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func tinySpec(pool models.Pooling) models.Model {
	return models.Model{
		Name: "tiny", Role: models.RoleEmbed, Dims: 4, MaxTokens: 8, Pooling: pool,
		Files: []models.File{{Name: models.ModelFile}, {Name: models.TokenizerFile}},
	}
}

// tinyRow is the tiny model's vector for token id t (see make_tiny.py).
func tinyRow(t int) []float64 {
	f := float64(t)
	return []float64{f / 10, 0.1, float64(t%3) / 10, -f / 10}
}

func tinyExpect(ids []int, pool models.Pooling) []float32 {
	acc := make([]float64, 4)
	if pool == models.PoolCLS {
		ids = ids[:1]
	}
	for _, id := range ids {
		for k, x := range tinyRow(id) {
			acc[k] += x / float64(len(ids))
		}
	}
	var n float64
	for _, x := range acc {
		n += x * x
	}
	out := make([]float32, 4)
	for k := range acc {
		out[k] = float32(acc[k] / math.Sqrt(n))
	}
	return out
}

func tinyLib(t *testing.T) {
	t.Helper()
	dir, _ := models.DefaultDir()
	lib, err := FindLibrary(LibrarySearch{ModelsDir: dir})
	if errors.Is(err, ErrNoLibrary) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := Init(lib); err != nil {
		t.Fatal(err)
	}
}

func TestTinyPipelineKnownOutputs(t *testing.T) {
	tinyLib(t)
	ctx := context.Background()
	texts := []string{"the cat sat", "hello", "", "the dogs run fast on the mat", "unknownword"}
	ids := [][]int{{2, 4, 5, 6, 3}, {2, 14, 3}, {2, 3}, {2, 4, 10, 11, 12, 13, 7, 3}, {2, 1, 3}}
	// MaxTokens 8 truncates the fourth text ([CLS] + 7 tokens + [SEP] = 9) to 8.
	for _, run := range []struct {
		pool     models.Pooling
		parallel int // forward passes at once
	}{{models.PoolMean, 1}, {models.PoolCLS, 1}, {models.PoolMean, 2}} {
		pool := run.pool
		e, err := OpenEmbedder(ctx, Options{ModelDir: "testdata/tiny/ok", Spec: tinySpec(pool), BatchSize: 2, Parallel: run.parallel})
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Embed(ctx, texts, inference.Document)
		if err != nil {
			t.Fatal(err)
		}
		for i := range texts {
			want := tinyExpect(ids[i], pool)
			for k := range want {
				if math.Abs(float64(got[i][k]-want[k])) > 1e-6 {
					t.Errorf("%s pooling, %q: got %v want %v", pool, texts[i], got[i], want)
					break
				}
			}
		}
		st := e.Stats()
		if st.Truncated != 1 || st.Texts != 5 || st.Batches != 3 {
			t.Errorf("stats %+v: want 1 truncated of 5 texts in 3 batches", st)
		}
		e.Close()
		if _, err := e.Embed(ctx, texts, inference.Document); err == nil {
			t.Error("embed after Close succeeded")
		}
	}
}

func TestEmbedderRejectsBadModels(t *testing.T) {
	tinyLib(t)
	ctx := context.Background()
	for _, tc := range []struct{ dir, want string }{
		{"extra_input", `unexpected input "pixel_values"`},
		{"rank2_output", "rank 2, want 3"},
		{"small_vocab", "do not belong together"},
		{"not_onnx", "not an ONNX model"},
	} {
		dir := filepath.Join("testdata/tiny", tc.dir)
		e, err := OpenEmbedder(ctx, Options{ModelDir: dir, Spec: tinySpec(models.PoolMean)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Embed(ctx, []string{"the cat"}, inference.Document)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: want error containing %q and the path, got %v", tc.dir, tc.want, err)
		}
		if lerr := e.Load(); lerr == nil || lerr.Error() != err.Error() {
			t.Errorf("%s: Load should report the same error, got %v", tc.dir, lerr)
		}
	}
	// A truncated download of a real ONNX file.
	b, err := os.ReadFile("testdata/tiny/ok/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "model.onnx"), b[:len(b)/2], 0o644)
	copyFile(t, "testdata/tiny/ok/tokenizer.json", filepath.Join(dir, "tokenizer.json"))
	e, _ := OpenEmbedder(ctx, Options{ModelDir: dir, Spec: tinySpec(models.PoolMean)})
	if err := e.Load(); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("truncated model: want an error naming the file, got %v", err)
	}
	// Missing files are reported at open.
	if _, err := OpenEmbedder(ctx, Options{ModelDir: t.TempDir(), Spec: tinySpec(models.PoolMean)}); err == nil {
		t.Error("open of an empty folder succeeded")
	}
	// A tokenizer.json that is not one.
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(`{"hello":1}`), 0o644)
	copyFile(t, "testdata/tiny/ok/model.onnx", filepath.Join(dir, "model.onnx"))
	e, _ = OpenEmbedder(ctx, Options{ModelDir: dir, Spec: tinySpec(models.PoolMean)})
	if err := e.Load(); err == nil || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Errorf("bad tokenizer: want an error naming it, got %v", err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The Chinese model's tokenizer with the English model: a real mismatch.
func TestEmbedderRejectsForeignTokenizer(t *testing.T) {
	c := testCache(t)
	for _, n := range []string{"bge-small-en-v1.5-q", "bge-small-zh-v1.5-q"} {
		if _, err := c.Installed(n); err != nil {
			t.Skipf("skipping: %v", err)
		}
	}
	dir := t.TempDir()
	os.Symlink(c.Path("bge-small-en-v1.5-q", "model.onnx"), filepath.Join(dir, "model.onnx"))
	os.Symlink(c.Path("bge-small-zh-v1.5-q", "tokenizer.json"), filepath.Join(dir, "tokenizer.json"))
	spec, _ := c.Installed("bge-small-en-v1.5-q")
	e, err := OpenEmbedder(context.Background(), Options{ModelDir: dir, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	err = e.Load()
	if err == nil || !strings.Contains(err.Error(), "21128 tokens but model") || !strings.Contains(err.Error(), "30522") {
		t.Fatalf("want vocabulary mismatch error, got %v", err)
	}
}

func TestEmbedderRealModel(t *testing.T) {
	c := testCache(t)
	e := openInstalled(t, c, "bge-small-en-v1.5-q", 0)
	ctx := context.Background()
	docs := []string{"Paris is the capital of France.", "Bananas are yellow fruit rich in potassium.", ""}
	dv, err := e.Embed(ctx, docs, inference.Document)
	if err != nil {
		t.Fatal(err)
	}
	qv, err := e.Embed(ctx, []string{"what is the capital of france"}, inference.Query)
	if err != nil {
		t.Fatal(err)
	}
	if len(dv) != 3 || len(dv[0]) != e.Dim() || e.ModelID() != "bge-small-en-v1.5-q" {
		t.Fatalf("shape %d x %d, id %s", len(dv), len(dv[0]), e.ModelID())
	}
	if a, b := dot(qv[0], dv[0]), dot(qv[0], dv[1]); a <= b {
		t.Errorf("relevant doc scored %.3f, irrelevant %.3f", a, b)
	}
	// A 1 MB chunk is truncated, counted, and embeds like its first part.
	big := strings.Repeat("The capital of France is Paris. ", 32<<10)
	before := e.Stats().Truncated
	bv, err := e.Embed(ctx, []string{big, big[:4000]}, inference.Document)
	if err != nil {
		t.Fatal(err)
	}
	if e.Stats().Truncated != before+2 {
		t.Errorf("truncation not counted: %+v", e.Stats())
	}
	if cos := dot(bv[0], bv[1]); cos < 0.99999 {
		t.Errorf("1 MB text should embed as its first 512 tokens: cosine %.6f", cos)
	}
	if out, err := e.Embed(ctx, nil, inference.Document); err != nil || out != nil {
		t.Errorf("empty input: %v, %v", out, err)
	}
}

func TestEmbedderConcurrentUse(t *testing.T) {
	c := testCache(t)
	e := openInstalled(t, c, "all-minilm-l6-v2", 1)
	ctx := context.Background()
	texts := []string{"alpha beta", "gamma delta epsilon zeta", "eta", "theta iota kappa lambda mu nu xi"}
	want, err := e.Embed(ctx, texts, inference.Document)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			// Each goroutine sends the texts in another order and batch.
			i := g % len(texts)
			got, err := e.Embed(ctx, append(texts[i:i+1:i+1], texts...), inference.Document)
			if err != nil {
				errs <- err
				return
			}
			for j, v := range got[1:] {
				if dot(v, want[j]) < 0.99999 {
					errs <- errors.New("concurrent result differs from sequential")
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestOpenInstalledErrors(t *testing.T) {
	tinyLib(t)
	ctx := context.Background()
	_, err := OpenInstalledEmbedder(ctx, Env{ModelsDir: t.TempDir()}, "bge-small-en-v1.5-q")
	// The runtime is loaded already, so the missing model is what is reported,
	// unless the library could not be found in an empty cache: either way the
	// message says what to do.
	if err == nil || !(strings.Contains(err.Error(), "gno models pull bge-small-en-v1.5-q") || errors.Is(err, ErrNoLibrary)) {
		t.Errorf("want a message saying how to install, got %v", err)
	}
	_, err = FindLibrary(LibrarySearch{ConfigPath: "/nonexistent/libonnxruntime.so"})
	if err == nil || !strings.Contains(err.Error(), "from config") {
		t.Errorf("bad config path: %v", err)
	}
	t.Setenv(EnvLibrary, "/nonexistent/lib.so")
	if _, err := FindLibrary(LibrarySearch{}); err == nil || !strings.Contains(err.Error(), EnvLibrary) {
		t.Errorf("bad env path: %v", err)
	}
}
