package onnx

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/models"
)

// linkModel makes a private model folder for an installed model, its files
// linked (or copied) from the cache, so a test can write the folder's
// optimized-model cache without touching the shared install.
func linkModel(t *testing.T, c models.Cache, name string) (string, models.Model) {
	t.Helper()
	spec, err := c.Installed(name)
	if errors.Is(err, models.ErrNotInstalled) {
		t.Skipf("skipping: model %s not installed (run `make models`)", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{models.ModelFile, models.TokenizerFile} {
		src, dst := c.Path(name, f), filepath.Join(dir, f)
		if os.Symlink(src, dst) == nil {
			continue
		}
		in, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(dst)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
	return dir, spec
}

var cacheTexts = []string{
	"microstructural development of human newborn cerebral white matter",
	"How does SQLite's write-ahead log checkpoint?",
	"Héllo wörld, naïve café",
	strings.Repeat("a long passage about retrieval and ranking ", 40),
}

// embedWith opens the model in dir, embeds cacheTexts and reports how the
// session was made.
func embedWith(t *testing.T, dir string, spec models.Model, noCache bool) ([][]float32, string) {
	t.Helper()
	e, err := OpenEmbedder(context.Background(), Options{ModelDir: dir, Spec: spec, NoCache: noCache})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	vecs, err := e.Embed(context.Background(), cacheTexts, inference.Document)
	if err != nil {
		t.Fatal(err)
	}
	return vecs, e.s.cache
}

func sameVectors(t *testing.T, what string, got, want [][]float32) {
	t.Helper()
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("%s: vector %d differs from the uncached model's", what, i)
		}
	}
}

// TestOptimizedCacheSameVectors checks that a session made from the
// optimized-model cache gives bit-identical vectors, int8 and fp32, and
// that a damaged, truncated, foreign or stale entry is rebuilt, not used.
func TestOptimizedCacheSameVectors(t *testing.T) {
	c := testCache(t)
	_, version, _ := Loaded()
	for _, name := range []string{"bge-small-en-v1.5-q", "all-minilm-l6-v2"} {
		t.Run(name, func(t *testing.T) {
			dir, spec := linkModel(t, c, name)
			want, how := embedWith(t, dir, spec, true)
			if how != cacheOff {
				t.Fatalf("NoCache session made %q", how)
			}
			if _, err := os.Stat(filepath.Join(dir, cacheDir)); !os.IsNotExist(err) {
				t.Fatalf("NoCache wrote a cache: %v", err)
			}
			got, how := embedWith(t, dir, spec, false)
			if how != cacheWritten {
				t.Fatalf("first load: %q, want %q", how, cacheWritten)
			}
			sameVectors(t, "first load", got, want)
			key, err := cacheKey(filepath.Join(dir, models.ModelFile), version)
			if err != nil {
				t.Fatal(err)
			}
			entry := cachePath(dir, key)
			good, err := os.ReadFile(entry)
			if err != nil {
				t.Fatal(err)
			}
			got, how = embedWith(t, dir, spec, false)
			if how != cacheHit {
				t.Fatalf("second load: %q, want %q", how, cacheHit)
			}
			sameVectors(t, "from cache", got, want)

			flipped := slices.Clone(good)
			flipped[len(flipped)/2] ^= 0x40
			for _, bad := range []struct {
				name string
				data []byte
			}{
				{"one byte flipped in the graph", flipped},
				{"truncated", good[:len(good)/3]},
				{"trailer cut off", good[:len(good)-3]},
				{"empty", nil},
				{"not a cache entry", []byte("garbage, not an optimized model\n")},
			} {
				if err := os.WriteFile(entry, bad.data, 0o644); err != nil {
					t.Fatal(err)
				}
				got, how = embedWith(t, dir, spec, false)
				if how != cacheWritten {
					t.Fatalf("%s: load %q, want the entry rebuilt", bad.name, how)
				}
				sameVectors(t, bad.name, got, want)
				if _, _, release, _, err := readCached(entry, key); err != nil {
					t.Fatalf("%s: entry not rebuilt whole: %v", bad.name, err)
				} else {
					release()
				}
			}

			// A stale entry (another key) is replaced by the current one.
			stale := cachePath(dir, "0123456789abcdef01234567")
			if err := os.Rename(entry, stale); err != nil {
				t.Fatal(err)
			}
			if _, how = embedWith(t, dir, spec, false); how != cacheWritten {
				t.Fatalf("after a model change: %q", how)
			}
			if _, err := os.Stat(stale); !os.IsNotExist(err) {
				t.Errorf("stale entry kept: %v", err)
			}
		})
	}
}

// TestOptimizedCacheKey checks that replacing the model file changes the
// key, so an entry made from another model is never used.
func TestOptimizedCacheKey(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, models.ModelFile)
	os.WriteFile(p, []byte("model one"), 0o644)
	k1, _ := cacheKey(p, "1.24.1")
	if k2, _ := cacheKey(p, "1.24.1"); k2 != k1 {
		t.Fatal("key is not stable")
	}
	if k2, _ := cacheKey(p, "1.25.0"); k2 == k1 {
		t.Error("another runtime version gives the same key")
	}
	os.WriteFile(p, []byte("model two, longer"), 0o644)
	if k2, _ := cacheKey(p, "1.24.1"); k2 == k1 {
		t.Error("a replaced model gives the same key")
	}
	if _, err := cacheKey(filepath.Join(dir, "missing.onnx"), "1.24.1"); err == nil {
		t.Error("no error for a missing model")
	}
}

// TestOptimizedCacheTempFiles checks that a killed writer's temporary file
// is removed once it is old, and a recent one (a load in progress) is not.
func TestOptimizedCacheTempFiles(t *testing.T) {
	modelDir := t.TempDir()
	dir := filepath.Join(modelDir, cacheDir)
	os.MkdirAll(dir, 0o755)
	old := filepath.Join(dir, ".model-abc-1-00.tmp")
	fresh := filepath.Join(dir, ".model-abc-2-00.tmp")
	os.WriteFile(old, []byte("half a graph"), 0o644)
	os.WriteFile(fresh, []byte("half a graph"), 0o644)
	past := time.Now().Add(-2 * time.Hour)
	os.Chtimes(old, past, past)
	p := newPending(modelDir, "abc")
	if p == nil {
		t.Fatal("no pending entry in a writable folder")
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("old temporary file kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("recent temporary file removed")
	}
	// A runtime that wrote nothing leaves no entry.
	os.WriteFile(p.tmp, nil, 0o644)
	if err := p.commit(&graphInfo{Inputs: []valueInfo{{Name: "input_ids"}}, Outputs: []valueInfo{{Name: "x"}}}); err == nil {
		t.Error("an empty graph was committed")
	}
	if _, err := os.Stat(p.final); !os.IsNotExist(err) {
		t.Error("entry published for an empty graph")
	}
}

// TestOptimizedCacheSameScores checks a cross-encoder the same way: scores
// from the cached graph equal the uncached model's exactly.
func TestOptimizedCacheSameScores(t *testing.T) {
	c := testCache(t)
	dir, spec := linkModel(t, c, "gno-test-cross-encoder")
	score := func(noCache bool) ([]float32, string) {
		r, err := OpenReranker(context.Background(), Options{ModelDir: dir, Spec: spec, NoCache: noCache})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		s, err := r.Score(context.Background(), "how do search engines rank", cacheTexts)
		if err != nil {
			t.Fatal(err)
		}
		return s, r.s.cache
	}
	want, _ := score(true)
	for _, wantHow := range []string{cacheWritten, cacheHit} {
		got, how := score(false)
		if how != wantHow || !slices.Equal(got, want) {
			t.Fatalf("%s load (%s): scores %v, uncached %v", wantHow, how, got, want)
		}
	}
}
