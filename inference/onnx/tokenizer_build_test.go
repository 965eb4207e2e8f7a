package onnx

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"

	"github.com/gnosearch/gno/models"
)

// fromReaderReference is how LoadTokenizer built the library tokenizer
// before build: the whole file decoded, adjusted, re-encoded and handed to
// pretrained.FromReader.
func fromReaderReference(t *testing.T, path string, maxLen int) *tokenizer.Tokenizer {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if n, ok := cfg["normalizer"].(map[string]any); ok && n["type"] == "BertNormalizer" {
		n["strip_accents"] = false
	}
	delete(cfg, "truncation")
	delete(cfg, "padding")
	fixed, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := pretrained.FromReader(bytes.NewReader(fixed))
	if err != nil {
		t.Fatal(err)
	}
	tk.WithPadding(nil)
	tk.WithTruncation(&tokenizer.TruncationParams{MaxLength: maxLen, Strategy: tokenizer.LongestFirst})
	return tk
}

// tokTexts exercise the normaliser, the pre-tokenizer, unknown words,
// added tokens and truncation.
var tokTexts = []string{
	"microstructural development of human newborn cerebral white matter",
	"Héllo, Wörld! Ça va? naïve café — ½ ﬁ ｶﾀｶﾅ",
	"数据库设计与实现：SQLite 的 WAL 模式",
	"[CLS] [SEP] [MASK] [PAD] [UNK] tokens in text",
	"supercalifragilisticexpialidocious antidisestablishmentarianism " + strings.Repeat("x", 120),
	"tabs\tand\nnewlines\r\nand\u00a0nbsp\u2003em space",
	"emoji 🙂👍🏽 and symbols ∑∫√ and ❤️",
	"", " ", "a",
	strings.Repeat("the quick brown fox jumps over the lazy dog ", 200),
}

// TestTokenizerMatchesFromReader checks that the tokenizer LoadTokenizer
// builds gives the same ids as the library's own loader for every
// installed model, on texts that exercise the normaliser, the
// pre-tokenizer, unknown words, added tokens and truncation.
func TestTokenizerMatchesFromReader(t *testing.T) {
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
			got, err := LoadTokenizer(p, 128)
			if err != nil {
				t.Fatal(err)
			}
			want := fromReaderReference(t, p, 128)
			if g, w := got.tk.GetVocabSize(true), want.GetVocabSize(true); g != w {
				t.Fatalf("vocabulary size %d, library %d", g, w)
			}
			for _, text := range tokTexts {
				g, gerr := got.tk.EncodeSingle(text, true)
				w, werr := want.EncodeSingle(text, true)
				if (gerr == nil) != (werr == nil) {
					t.Fatalf("%.30q: error %v, library %v", text, gerr, werr)
				}
				if gerr != nil {
					continue
				}
				if !slices.Equal(g.Ids, w.Ids) || !slices.Equal(g.TypeIds, w.TypeIds) || len(g.Overflowing) != len(w.Overflowing) {
					t.Errorf("%.30q: ids %v, library %v", text, g.Ids, w.Ids)
				}
				pg, _ := got.tk.EncodePair(text, "a second passage", true)
				pw, _ := want.EncodePair(text, "a second passage", true)
				if pg == nil || pw == nil || !slices.Equal(pg.Ids, pw.Ids) || !slices.Equal(pg.TypeIds, pw.TypeIds) {
					t.Errorf("%.30q: pair ids differ from the library's", text)
				}
			}
		})
	}
}
