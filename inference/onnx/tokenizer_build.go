package onnx

import (
	"encoding/json"
	"fmt"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/model/wordpiece"
	"github.com/sugarme/tokenizer/pretrained"
	"github.com/sugarme/tokenizer/util"
)

// build assembles a tokenizer from a parsed tokenizer.json the way
// pretrained.FromReader does, with the same constructors in the same order,
// so it encodes identically. It exists because FromReader decodes the whole
// file into interface values, the vocabulary included (30,000 boxed numbers
// for a BERT model), which made loading a tokenizer cost more than running
// the model on a query: here a WordPiece vocabulary (every model gno ships)
// is decoded straight into the map the model keeps. Truncation and padding
// are left unset: they are applied per call and per batch.
func build(cfg *tokenizer.Config, model json.RawMessage) (*tokenizer.Tokenizer, error) {
	m, err := newModel(cfg, model)
	if err != nil {
		return nil, fmt.Errorf("CreateModel: %w", err)
	}
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
func newModel(cfg *tokenizer.Config, raw json.RawMessage) (tokenizer.Model, error) {
	var wp struct {
		Type                 string         `json:"type"`
		UnkToken             any            `json:"unk_token"`
		MaxInputCharsPerWord any            `json:"max_input_chars_per_word"`
		Vocab                map[string]int `json:"vocab"`
	}
	typ := ""
	if err := json.Unmarshal(raw, &wp); err == nil {
		typ = wp.Type
		if typ == "" && cfg.Decoder != nil && cfg.Decoder["type"] == "WordPiece" {
			typ = "WordPiece" // CreateModel guesses the same way
		}
	}
	if typ == "WordPiece" && wp.Vocab != nil {
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
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, err
	}
	return pretrained.CreateModel(&tokenizer.Config{Model: generic, Decoder: cfg.Decoder})
}
