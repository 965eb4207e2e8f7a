package onnx

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/model/wordpiece"
	"github.com/sugarme/tokenizer/pretrained"
	"github.com/sugarme/tokenizer/util"
)

// tokenizerFile is a parsed tokenizer.json: the library's config for
// everything but the model, and the model either as a WordPiece vocabulary
// with its options (every model gno ships) or, for other kinds, raw.
type tokenizerFile struct {
	Config    tokenizer.Config // Model left nil
	WordPiece *wordPieceModel
	Model     json.RawMessage // the model section when WordPiece is nil
}

// wordPieceModel is a WordPiece model section: what pretrained's
// createWordPiece reads from it.
type wordPieceModel struct {
	UnkToken             any            `json:"unk_token"`
	MaxInputCharsPerWord any            `json:"max_input_chars_per_word"`
	Vocab                map[string]int `json:"vocab"`
}

// parseTokenizerJSON parses a tokenizer.json. The model section (the
// vocabulary: nearly all of the file) is kept raw by the first pass and
// decoded once, typed, by the second.
func parseTokenizerJSON(raw []byte) (*tokenizerFile, error) {
	var cfg struct {
		tokenizer.Config
		Model json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	if len(cfg.Model) == 0 || cfg.Model[0] != '{' {
		return nil, errors.New(`no "model" section; not a tokenizer.json`)
	}
	tf := &tokenizerFile{Config: cfg.Config, Model: cfg.Model}
	var wp struct {
		Type string `json:"type"`
		wordPieceModel
	}
	if json.Unmarshal(cfg.Model, &wp) != nil {
		return tf, nil // left to pretrained.CreateModel, which reports it
	}
	typ := wp.Type
	if typ == "" && cfg.Decoder != nil && cfg.Decoder["type"] == "WordPiece" {
		typ = "WordPiece" // CreateModel guesses the same way
	}
	if typ == "WordPiece" && wp.Vocab != nil {
		tf.WordPiece, tf.Model = &wp.wordPieceModel, nil
	}
	return tf, nil
}

// build assembles a tokenizer from a parsed tokenizer.json the way
// pretrained.FromReader does, with the same constructors in the same order,
// so it encodes identically. It exists because FromReader decodes the whole
// file into interface values, the vocabulary included (30,000 boxed numbers
// for a BERT model), which made loading a tokenizer cost more than running
// the model on a query. Truncation and padding are left unset: they are
// applied per call and per batch.
func build(tf *tokenizerFile) (*tokenizer.Tokenizer, error) {
	m, err := newModel(tf)
	if err != nil {
		return nil, fmt.Errorf("CreateModel: %w", err)
	}
	cfg := &tf.Config
	tk := tokenizer.NewTokenizer(m)
	n, err := pretrained.CreateNormalizer(cfg.Normalizer)
	if err != nil {
		return nil, fmt.Errorf("CreateNormalizer: %w", err)
	}
	tk.WithNormalizer(n)
	pre, err := pretrained.CreatePreTokenizer(cfg.PreTokenizer)
	if err != nil {
		return nil, fmt.Errorf("CreatePreTokenizer: %w", err)
	}
	tk.WithPreTokenizer(pre)
	post, err := pretrained.CreatePostProcessor(cfg.PostProcessor)
	if err != nil {
		return nil, fmt.Errorf("CreatePostProcessor: %w", err)
	}
	tk.WithPostProcessor(post)
	dec, err := pretrained.CreateDecoder(cfg.Decoder)
	if err != nil {
		return nil, fmt.Errorf("CreateDecoder: %w", err)
	}
	tk.WithDecoder(dec)
	special, added := pretrained.CreateAddedTokens(cfg.AddedTokens)
	if len(special) > 0 {
		tk.AddSpecialTokens(special)
	}
	if len(added) > 0 {
		tk.AddTokens(added)
	}
	return tk, nil
}

// newModel builds the tokenizer's model. WordPiece is built here with the
// options pretrained's createWordPiece passes (it reads
// continuing_subword_prefix but never passes it on, so the library default
// "##" applies there too); any other kind goes through
// pretrained.CreateModel.
func newModel(tf *tokenizerFile) (tokenizer.Model, error) {
	if wp := tf.WordPiece; wp != nil {
		opts := util.NewParams(nil)
		if v, ok := wp.UnkToken.(string); ok {
			opts.Set("unk_token", v)
		}
		if v, ok := wp.MaxInputCharsPerWord.(float64); ok {
			opts.Set("max_input_chars_per_word", int(v))
		}
		return wordpiece.New(wp.Vocab, opts)
	}
	var generic map[string]any
	if err := json.Unmarshal(tf.Model, &generic); err != nil {
		return nil, err
	}
	return pretrained.CreateModel(&tokenizer.Config{Model: generic, Decoder: tf.Config.Decoder})
}
