package onnx

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gnosearch/gno/models"
)

// sameEncodings fails unless got and want encode tokTexts (alone and as
// pairs) identically.
func sameEncodings(t *testing.T, what string, got, want *Tokenizer) {
	t.Helper()
	if got.VocabSize() != want.VocabSize() || got.stripAccents != want.stripAccents || got.cleanSpace != want.cleanSpace {
		t.Fatalf("%s: vocabulary %d / normalisation %v %v, want %d %v %v", what,
			got.VocabSize(), got.stripAccents, got.cleanSpace, want.VocabSize(), want.stripAccents, want.cleanSpace)
	}
	for _, text := range tokTexts {
		g, gerr := got.Encode(text)
		w, werr := want.Encode(text)
		if (gerr == nil) != (werr == nil) || !slices.Equal(g.IDs, w.IDs) || !slices.Equal(g.TypeIDs, w.TypeIDs) || g.Truncated != w.Truncated {
			t.Fatalf("%s: %.30q encodes as %v (%v), want %v (%v)", what, text, head(g.IDs), gerr, head(w.IDs), werr)
		}
		gp, _ := got.EncodePair(text, "a second passage")
		wp, _ := want.EncodePair(text, "a second passage")
		if !slices.Equal(gp.IDs, wp.IDs) || !slices.Equal(gp.TypeIDs, wp.TypeIDs) {
			t.Fatalf("%s: %.30q pair encodes differently", what, text)
		}
	}
}

// TestTokenizerCacheSameIDs checks that a tokenizer read from the
// parsed-vocabulary cache encodes exactly as one parsed from its
// tokenizer.json, for every installed model, and that a damaged, foreign
// or stale entry is rebuilt rather than used.
func TestTokenizerCacheSameIDs(t *testing.T) {
	dir, err := models.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", models.TokenizerFile))
	if len(paths) == 0 {
		t.Skip("skipping: no installed model (run `make models`)")
	}
	for _, p := range paths {
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) {
			cache := t.TempDir()
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			entry := tokCachePath(cache, sha256.Sum256(raw))
			want, err := LoadTokenizer(p, 128)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := loadTokenizer(p, 128, cache); err != nil {
				t.Fatal(err)
			}
			good, err := os.ReadFile(entry)
			if err != nil {
				t.Fatalf("no cache entry written: %v", err)
			}
			if _, hit := readTokenizerCache(cache, raw); !hit {
				t.Fatal("the entry just written does not read back")
			}
			got, err := loadTokenizer(p, 128, cache)
			if err != nil {
				t.Fatal(err)
			}
			sameEncodings(t, "from cache", got, want)

			flipped := slices.Clone(good)
			flipped[len(flipped)/2] ^= 1
			for _, bad := range []struct {
				name string
				data []byte
			}{
				{"one byte flipped", flipped},
				{"truncated", good[:len(good)/2]},
				{"empty", nil},
				{"garbage", []byte("not a cache entry at all, but long enough to be read as one.......")},
			} {
				os.WriteFile(entry, bad.data, 0o644)
				got, err := loadTokenizer(p, 128, cache)
				if err != nil {
					t.Fatalf("%s: %v", bad.name, err)
				}
				sameEncodings(t, bad.name, got, want)
				if _, hit := readTokenizerCache(cache, raw); !hit {
					t.Fatalf("%s: entry not rebuilt", bad.name)
				}
			}
			// An entry made from another tokenizer.json, under this one's
			// name, is refused; a stale entry is removed on the next write.
			other := append(slices.Clone(raw), ' ')
			if _, hit := readTokenizerCache(cache, other); hit {
				t.Fatal("entry used for a different tokenizer.json")
			}
			os.WriteFile(tokCachePath(cache, sha256.Sum256(other)), good, 0o644)
			if _, hit := readTokenizerCache(cache, other); hit {
				t.Fatal("entry with another file's checksum used")
			}
			stale := filepath.Join(cache, "tokenizer-000000000000000000000000.bin")
			os.WriteFile(stale, good, 0o644)
			os.Remove(entry)
			if _, err := loadTokenizer(p, 128, cache); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(stale); !os.IsNotExist(err) {
				t.Error("stale entry kept")
			}
		})
	}
}

// FuzzDecodeTokCache checks that no entry, however damaged, crashes the
// reader.
func FuzzDecodeTokCache(f *testing.F) {
	sum := sha256.Sum256([]byte("{}"))
	tf := &tokenizerFile{WordPiece: &wordPieceModel{UnkToken: "[UNK]", MaxInputCharsPerWord: 100.0,
		Vocab: map[string]int{"[UNK]": 0, "a": 1, "##b": 2, "é": 3}}}
	good, err := encodeTokCache(sum, tf)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)-5])
	f.Add([]byte("gnotok01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if tf, err := decodeTokCache(data, sum); err == nil && tf.WordPiece == nil {
			t.Fatal("decoded without a vocabulary")
		}
	})
}

// FuzzParseCached checks the optimized-model entry reader the same way.
func FuzzParseCached(f *testing.F) {
	graph := []byte("an optimised graph")
	gi := graphInfo{Inputs: []valueInfo{{Name: "input_ids", ElemType: 7}}, Outputs: []valueInfo{{Name: "x", ElemType: 1, Dims: []int64{-1, 384}}}}
	dir := f.TempDir()
	p := &pendingCache{tmp: filepath.Join(dir, "t.tmp"), final: filepath.Join(dir, "model-k.onnx"), key: "k"}
	os.WriteFile(p.tmp, graph, 0o644)
	if err := p.commit(&gi); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(p.final)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[len(graph):])
	f.Fuzz(func(t *testing.T, data []byte) {
		g, info, err := parseCached(data, "k")
		if err == nil && (len(g) > len(data) || info == nil) {
			t.Fatal("accepted an entry it cannot describe")
		}
	})
}
