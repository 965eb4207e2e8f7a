package onnx

import (
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"golang.org/x/text/unicode/norm"
)

// Tokenizer turns text into model input ids the way the Hugging Face
// `tokenizers` library does for the same tokenizer.json, with truncation to
// the model's maximum length and no padding (padding is per batch).
//
// It wraps github.com/sugarme/tokenizer and fixes, before text reaches it,
// the two places where that library departs from the reference for BERT
// normalisers: accent stripping without NFD decomposition (and ignored when
// `strip_accents` is null, which means "same as lowercase"), and a narrower
// notion of whitespace.
type Tokenizer struct {
	tk           *tokenizer.Tokenizer
	path         string
	maxLen       int
	vocabSize    int
	stripAccents bool
	cleanSpace   bool
}

// Encoded is one tokenized input.
type Encoded struct {
	IDs       []int64
	TypeIDs   []int64
	Truncated bool // the text had more tokens than the model's maximum length
}

// LoadTokenizer reads a tokenizer.json and truncates every encoding to
// maxLen tokens, special tokens included.
func LoadTokenizer(path string, maxLen int) (*Tokenizer, error) {
	return loadTokenizer(path, maxLen, "")
}

// loadTokenizer is LoadTokenizer with a cache folder for the parsed
// vocabulary (tokcache.go); "" means none.
func loadTokenizer(path string, maxLen int, cacheDir string) (*Tokenizer, error) {
	if maxLen < 4 {
		return nil, fmt.Errorf("load tokenizer %s: max length %d is too small", path, maxLen)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	tf, hit := readTokenizerCache(cacheDir, raw)
	if !hit {
		if tf, err = parseTokenizerJSON(raw); err != nil {
			return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
		}
	}
	t := &Tokenizer{path: path, maxLen: maxLen}
	if n := tf.Config.Normalizer; n != nil && n["type"] == "BertNormalizer" {
		lower, _ := n["lowercase"].(bool)
		strip, set := n["strip_accents"].(bool)
		if !set {
			strip = lower // the reference treats null as "follow lowercase"
		}
		t.stripAccents = strip
		t.cleanSpace, _ = n["clean_text"].(bool)
	}
	if !hit && cacheDir != "" {
		writeTokenizerCache(cacheDir, raw, tf) // before build changes the normaliser's config
	}
	if n := tf.Config.Normalizer; n != nil && n["type"] == "BertNormalizer" {
		n["strip_accents"] = false // done here, with NFD, before the library sees the text
	}
	tk, err := build(tf)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	tk.WithPadding(nil)
	tk.WithTruncation(&tokenizer.TruncationParams{MaxLength: maxLen, Strategy: tokenizer.LongestFirst})
	t.tk = tk
	t.vocabSize = tk.GetVocabSize(true)
	return t, nil
}

// VocabSize counts the ids the tokenizer can produce, added tokens included.
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// MaxLen is the truncation length in tokens, special tokens included.
func (t *Tokenizer) MaxLen() int { return t.maxLen }

// Path is the tokenizer.json this tokenizer was loaded from.
func (t *Tokenizer) Path() string { return t.path }

// Encode tokenizes one text with the model's special tokens.
func (t *Tokenizer) Encode(text string) (Encoded, error) {
	short, cut := t.cutLong(text)
	enc, err := t.tk.EncodeSingle(t.normalize(short), true)
	if err == nil && cut && len(enc.Overflowing) == 0 {
		// The cut left fewer tokens than the model takes (a text of mostly
		// spaces): tokenize the whole text to stay exact.
		enc, err = t.tk.EncodeSingle(t.normalize(text), true)
	}
	if err != nil {
		return Encoded{}, fmt.Errorf("tokenize with %s: %w", t.path, err)
	}
	return t.result(enc, cut), nil
}

// EncodePair tokenizes a (query, passage) pair for a cross-encoder; the
// longer side is truncated first, as the reference's longest-first strategy
// does.
func (t *Tokenizer) EncodePair(a, b string) (Encoded, error) {
	a, cutA := t.cutLong(a)
	b, cutB := t.cutLong(b)
	enc, err := t.tk.EncodePair(t.normalize(a), t.normalize(b), true)
	if err != nil {
		return Encoded{}, fmt.Errorf("tokenize pair with %s: %w", t.path, err)
	}
	return t.result(enc, cutA || cutB), nil
}

func (t *Tokenizer) result(enc *tokenizer.Encoding, cut bool) Encoded {
	out := Encoded{
		IDs:       make([]int64, len(enc.Ids)),
		TypeIDs:   make([]int64, len(enc.TypeIds)),
		Truncated: cut || len(enc.Overflowing) > 0,
	}
	for i, id := range enc.Ids {
		out.IDs[i] = int64(id)
	}
	for i, id := range enc.TypeIds {
		out.TypeIDs[i] = int64(id)
	}
	return out
}

// cutLong shortens very long texts before tokenizing them, so a 1 MB chunk
// costs no more than a long one. The cut is at whitespace, where BERT-style
// pre-tokenizers split anyway, and keeps far more characters than the model
// can take, so the tokens kept are those the whole text would give.
func (t *Tokenizer) cutLong(text string) (string, bool) {
	limit := t.maxLen * 64
	if len(text) <= limit {
		return text, false
	}
	i := limit
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	if j := strings.LastIndexFunc(text[:i], unicode.IsSpace); j > limit/2 {
		i = j
	}
	return text[:i], true
}

// normalize applies the normalisation steps the wrapped library gets wrong.
func (t *Tokenizer) normalize(text string) string {
	if t.stripAccents {
		text = stripMarks(norm.NFD.String(text))
	}
	if t.cleanSpace {
		text = strings.Map(func(r rune) rune {
			if r != ' ' && unicode.IsSpace(r) {
				return ' '
			}
			return r
		}, text)
	}
	return text
}

func stripMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, s)
}
