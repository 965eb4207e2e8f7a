package models

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FromExport describes a Hugging Face ONNX export folder (config.json,
// tokenizer.json, model.onnx or onnx/model.onnx) as a model gno can run,
// for models that are not in the registry. A config whose architecture is
// *ForSequenceClassification is a cross-encoder reranker; anything else is
// taken as a mean-pooled embedder. Checksums are not pinned: the import
// records what it finds.
func FromExport(dir, name string) (Model, error) {
	cfgPath := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		return Model{}, fmt.Errorf("read export %s: %w", dir, err)
	}
	var cfg struct {
		Architectures []string `json:"architectures"`
		HiddenSize    int      `json:"hidden_size"`
		MaxPositions  int      `json:"max_position_embeddings"`
		ModelType     string   `json:"model_type"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return Model{}, fmt.Errorf("read %s: %w", cfgPath, err)
	}
	m := Model{
		Name:        name,
		Role:        RoleEmbed,
		Description: fmt.Sprintf("imported %s export from %s", cfg.ModelType, dir),
		MaxTokens:   512,
		Files:       []File{{Name: ModelFile}, {Name: TokenizerFile}},
	}
	if cfg.MaxPositions > 0 && cfg.MaxPositions < m.MaxTokens {
		m.MaxTokens = cfg.MaxPositions
	}
	if cfg.ModelType == "roberta" || cfg.ModelType == "xlm-roberta" {
		// RoBERTa position ids start after the padding index.
		if cfg.MaxPositions > 2 && cfg.MaxPositions-2 < m.MaxTokens {
			m.MaxTokens = cfg.MaxPositions - 2
		}
	}
	for _, a := range cfg.Architectures {
		if strings.HasSuffix(a, "ForSequenceClassification") {
			m.Role = RoleRerank
		}
	}
	if m.Role == RoleEmbed {
		if cfg.HiddenSize <= 0 {
			return Model{}, fmt.Errorf("read %s: no hidden_size, cannot tell the embedding dimension", cfgPath)
		}
		m.Dims = cfg.HiddenSize
		m.Pooling = PoolMean
	}
	return m, m.Validate()
}

// ImportExport installs a Hugging Face ONNX export folder under name.
func (c Cache) ImportExport(ctx context.Context, dir, name string) (Model, error) {
	m, err := FromExport(dir, name)
	if err != nil {
		return Model{}, err
	}
	if err := c.Import(ctx, m, []string{dir}); err != nil {
		return Model{}, err
	}
	return c.Installed(name)
}
