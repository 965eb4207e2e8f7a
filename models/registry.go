// Package models knows which models gno can run, where their files come
// from, and how they are installed into the local model cache.
//
// The built-in registry (registry.json, embedded) pins every file by
// sha256; a pull downloads or imports the files, verifies them and only
// then moves them into place, so the cache never holds a half-written or
// unverified model.
package models

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Role is what a model is used for.
type Role string

const (
	// RoleEmbed models turn text into vectors.
	RoleEmbed Role = "embed"
	// RoleRerank models score (query, passage) pairs.
	RoleRerank Role = "rerank"
)

// Pooling says how token vectors become one sentence vector.
type Pooling string

const (
	// PoolMean averages the token vectors under the attention mask.
	PoolMean Pooling = "mean"
	// PoolCLS takes the first ([CLS]) token's vector.
	PoolCLS Pooling = "cls"
	// PoolNone means the output is already one vector per text.
	PoolNone Pooling = "none"
)

// File names every installed model has, whatever its source calls them.
const (
	ModelFile     = "model.onnx"
	TokenizerFile = "tokenizer.json"
)

// Model describes one supported model: what it is, how to run it, and
// where its files come from.
type Model struct {
	Name        string `json:"name"`
	Role        Role   `json:"role"`
	Description string `json:"description,omitempty"`
	// Dims is the embedding dimension (embedders only).
	Dims int `json:"dims,omitempty"`
	// MaxTokens is the truncation length, special tokens included.
	MaxTokens int `json:"max_tokens"`
	// Pooling and Output say which graph output holds the result and how
	// to reduce it; Output empty means the model's only or first output.
	Pooling Pooling `json:"pooling,omitempty"`
	Output  string  `json:"output,omitempty"`
	// QueryPrefix and DocPrefix are prepended to queries and passages, as
	// the model was trained.
	QueryPrefix string   `json:"query_prefix,omitempty"`
	DocPrefix   string   `json:"doc_prefix,omitempty"`
	Quantized   bool     `json:"quantized,omitempty"`
	Languages   []string `json:"languages,omitempty"`
	License     string   `json:"license,omitempty"`
	Homepage    string   `json:"homepage,omitempty"`
	// Test marks an untrained model built for tests; it is never made
	// active and never ranks a user's results.
	Test    bool     `json:"test,omitempty"`
	Files   []File   `json:"files"`
	Mirrors []Mirror `json:"mirrors,omitempty"`
}

// File is one file of a model.
type File struct {
	// Name is the file's name in the cache (model.onnx, tokenizer.json).
	Name string `json:"name"`
	// URL is the primary download source.
	URL string `json:"url,omitempty"`
	// SHA256 pins the content; empty means the source publishes no
	// checksum gno could pin, and a pull records what it got.
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size,omitempty"`
	// Aliases are the file's names inside mirror artifacts and exports,
	// which `pull --from DIR` also accepts.
	Aliases []string `json:"aliases,omitempty"`
}

// Mirror is a package-registry artifact that carries the model's files,
// for machines that cannot reach the primary URLs.
type Mirror struct {
	// Kind is the ecosystem: maven, pypi, or build for test models made
	// by a script in this repository.
	Kind     string `json:"kind"`
	Artifact string `json:"artifact"`
	// Paths maps a cache file name to its path inside the artifact.
	Paths map[string]string `json:"paths"`
}

// Covers reports whether the model was trained for text in lang (an ISO
// 639-1 code). An empty lang (undetermined, e.g. Latin-script text gno does
// not try to name) and a model that declares no languages count as
// covered: gno only refuses what it knows does not fit.
func (m *Model) Covers(lang string) bool {
	if lang == "" || len(m.Languages) == 0 {
		return true
	}
	for _, l := range m.Languages {
		if strings.EqualFold(l, lang) {
			return true
		}
	}
	return false
}

// LanguageList renders a language list for a table: short lists in full,
// long (multilingual) ones as a count.
func LanguageList(langs []string) string {
	switch {
	case len(langs) == 0:
		return "-"
	case len(langs) > 4:
		return fmt.Sprintf("%d languages", len(langs))
	}
	return strings.Join(langs, ",")
}

// File returns the model's file with the given cache name.
func (m *Model) File(name string) (File, bool) {
	for _, f := range m.Files {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

// Size is the total size of the model's files in bytes, 0 when unknown.
func (m *Model) Size() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

var (
	nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	shaRE  = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// Validate reports the first thing wrong with a model description.
func (m *Model) Validate() error {
	if !nameRE.MatchString(m.Name) {
		return fmt.Errorf("model %q: name must be lower-case letters, digits, '.', '_' or '-'", m.Name)
	}
	switch m.Role {
	case RoleEmbed:
		switch m.Pooling {
		case PoolMean, PoolCLS, PoolNone:
		default:
			return fmt.Errorf("model %s: pooling %q is not mean, cls or none", m.Name, m.Pooling)
		}
		if m.Dims <= 0 {
			return fmt.Errorf("model %s: embedders need dims", m.Name)
		}
	case RoleRerank:
	default:
		return fmt.Errorf("model %s: role %q is not embed or rerank", m.Name, m.Role)
	}
	if m.MaxTokens < 8 {
		return fmt.Errorf("model %s: max_tokens %d is too small", m.Name, m.MaxTokens)
	}
	for _, want := range []string{ModelFile, TokenizerFile} {
		if _, ok := m.File(want); !ok {
			return fmt.Errorf("model %s: no %s in files", m.Name, want)
		}
	}
	for _, f := range m.Files {
		if f.SHA256 != "" && !shaRE.MatchString(f.SHA256) {
			return fmt.Errorf("model %s: file %s: sha256 %q is not 64 lower-case hex digits", m.Name, f.Name, f.SHA256)
		}
	}
	return nil
}

//go:embed registry.json
var registryJSON []byte

// Registry is a set of models by name: the built-in ones plus any the
// user's config adds.
type Registry struct {
	byName map[string]Model
}

// Builtin returns the registry of models gno supports out of the box.
func Builtin() *Registry {
	r, err := parseRegistry(registryJSON)
	if err != nil {
		panic("models: built-in registry.json is invalid: " + err.Error())
	}
	return r
}

func parseRegistry(b []byte) (*Registry, error) {
	var doc struct {
		Models []Model `json:"models"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	r := &Registry{byName: map[string]Model{}}
	for _, m := range doc.Models {
		if err := r.Add(m); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add validates m and adds it, replacing a model of the same name (so a
// config entry can override a built-in one).
func (r *Registry) Add(m Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	r.byName[m.Name] = m
	return nil
}

// Lookup returns the model called name.
func (r *Registry) Lookup(name string) (Model, error) {
	m, ok := r.byName[name]
	if !ok {
		return Model{}, fmt.Errorf("unknown model %q (known: %s)", name, strings.Join(r.Names(), ", "))
	}
	return m, nil
}

// Names lists the registry's model names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All returns every model, sorted by role then name.
func (r *Registry) All() []Model {
	out := make([]Model, 0, len(r.byName))
	for _, n := range r.Names() {
		out = append(out, r.byName[n])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Role < out[j].Role })
	return out
}

// DefaultEmbedder is the embedding model gno uses when config names none;
// MODELS.md says why it was chosen.
const DefaultEmbedder = "bge-small-en-v1.5-q"

// AddConfig adds user model entries from gno's config (YAML maps with the
// same keys as registry.json), so users can run models gno does not ship.
func (r *Registry) AddConfig(entries []map[string]any) error {
	for i, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("config model %d: %w", i+1, err)
		}
		var m Model
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			return fmt.Errorf("config model %d: %w", i+1, err)
		}
		if err := r.Add(m); err != nil {
			return fmt.Errorf("config model %d: %w", i+1, err)
		}
	}
	return nil
}
