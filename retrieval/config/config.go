// Package config reads and writes gno's YAML configuration: collections,
// contexts, model choices and tuning knobs, one file per index.
//
// It owns the config file and an index's paths; it must not open the
// index or a model.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/config/dirs"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"gopkg.in/yaml.v3"
)

// DefaultPattern is the include glob of a collection whose config names
// none: Markdown only, as gno has always read such configs. `gno
// collection add` writes convert.DefaultPattern (every document format)
// into new collections instead.
const DefaultPattern = "**/*.md"

// DefaultMaxFileBytes caps the size of an indexed file.
const DefaultMaxFileBytes = 10 << 20

// DefaultMaxDocumentBytes caps the size of a converted document (PDF,
// office, mail, e-book): their bytes are mostly layout and images.
const DefaultMaxDocumentBytes = 64 << 20

// Config is the whole configuration of one index.
type Config struct {
	Version     int          `yaml:"version"`
	Collections []Collection `yaml:"collections,omitempty"`
	Contexts    []Context    `yaml:"contexts,omitempty"`
	Models      Models       `yaml:"models,omitempty"`
	Index       IndexOptions `yaml:"index,omitempty"`
	Search      Search       `yaml:"search,omitempty"`
	// Store is where the index lives when not in its SQLite file: a URL
	// a registered store driver opens (postgres://user@host/db). Its
	// password is best given by PGPASSFILE or the environment, not here.
	Store string `yaml:"store,omitempty"`
	// ReadStore sends the index's reads to a streaming replica of
	// Store's server (postgres://user@replica/db); writes and the writer
	// lock stay on Store.
	ReadStore string `yaml:"read_store,omitempty"`
}

// Collection is a folder of documents indexed under one name.
type Collection struct {
	Name      string   `yaml:"name"`
	Path      string   `yaml:"path"`
	Pattern   string   `yaml:"pattern,omitempty"`
	Include   []string `yaml:"include,omitempty"`
	Exclude   []string `yaml:"exclude,omitempty"`
	UpdateCmd string   `yaml:"updateCmd,omitempty"`
	// Lang is the default language of the collection's documents (BCP-47).
	Lang string `yaml:"lang,omitempty"`
	// Code makes the collection take source code files its patterns
	// match, each indexed as one fenced block of its language.
	Code bool `yaml:"code,omitempty"`
}

// Patterns returns the include globs: Pattern (or the default) plus Include.
func (c Collection) Patterns() []string {
	p := c.Pattern
	if p == "" {
		p = DefaultPattern
	}
	return append([]string{p}, c.Include...)
}

// Context is a human-written note attached to a collection or a path
// prefix inside one, returned with matching results.
type Context struct {
	// Target is "collection" or "collection/path/prefix", or "/" for all.
	Target string `yaml:"target"`
	Text   string `yaml:"text"`
}

// Models selects the models of each role and how they run.
type Models struct {
	// Embed names the embedding model (registry name).
	Embed string `yaml:"embed,omitempty"`
	// Rerank names the cross-encoder.
	Rerank string `yaml:"rerank,omitempty"`
	// Expand configures query expansion.
	Expand Backend `yaml:"expand,omitempty"`
	// Answer is the chat model `gno ask` writes answers with.
	Answer Backend `yaml:"answer,omitempty"`
	// EmbedBackend, when set, serves embeddings remotely instead of ONNX.
	EmbedBackend Backend `yaml:"embedBackend,omitempty"`
	// RerankBackend, when set, serves reranking remotely instead of ONNX.
	RerankBackend Backend `yaml:"rerankBackend,omitempty"`
	// ORTLib is the path of libonnxruntime.so.
	ORTLib string `yaml:"ortLib,omitempty"`
	// Threads is ONNX Runtime's intra-op thread count per forward pass;
	// 0 means 1, which measured fastest here (a second thread slowed
	// every model on 2 cores).
	Threads int `yaml:"threads,omitempty"`
	// Parallel is how many forward passes run side by side; 0 means one
	// per core.
	Parallel int `yaml:"parallel,omitempty"`
	// RerankMaxTokens caps the cross-encoder's sequence length (default
	// 128, to hold the default mode's budget).
	RerankMaxTokens int `yaml:"rerankMaxTokens,omitempty"`
	// Custom adds user models to the built-in registry.
	Custom []map[string]any `yaml:"custom,omitempty"`
}

// Backend configures a remote model server for one role.
type Backend struct {
	// Kind is "ollama" or "openai"; empty means in-process (or none for
	// expansion).
	Kind   string `yaml:"kind,omitempty"`
	URL    string `yaml:"url,omitempty"`
	Model  string `yaml:"model,omitempty"`
	APIKey string `yaml:"apiKey,omitempty"`
}

// IndexOptions tune ingestion and chunking.
type IndexOptions struct {
	MaxFileBytes int64 `yaml:"maxFileBytes,omitempty"`
	// MaxDocumentBytes caps converted documents (PDF, DOCX, ...) instead.
	MaxDocumentBytes int64 `yaml:"maxDocumentBytes,omitempty"`
	// ConvertTimeout bounds the conversion of one file (default 30s).
	ConvertTimeout Duration `yaml:"convertTimeout,omitempty"`
	// ChunkTokens is the target chunk size in tokens-equivalent.
	ChunkTokens int `yaml:"chunkTokens,omitempty"`
	// ChunkOverlap is the share of a chunk repeated in the next one.
	ChunkOverlap float64 `yaml:"chunkOverlap,omitempty"`
}

// Search tunes the query pipeline.
type Search struct {
	RRFK float64 `yaml:"rrfK,omitempty"`
	// BM25Weight and VectorWeight scale the original query's lists in
	// fusion (defaults in retrieval).
	BM25Weight   float64 `yaml:"bm25Weight,omitempty"`
	VectorWeight float64 `yaml:"vectorWeight,omitempty"`
	Candidates   int     `yaml:"candidates,omitempty"`
	// Budgets per mode ("fast", "default", "thorough").
	Budgets map[string]Duration `yaml:"budgets,omitempty"`
}

// Duration is a time.Duration written as "250ms" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: invalid duration %q", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as a string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// Load reads the config file; a missing file gives an empty config.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse decodes config text; errors name the file and line.
func Parse(path string, data []byte) (*Config, error) {
	c := &Config{}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(c); err != nil {
			return nil, fmt.Errorf("config %s: %s", path, strings.TrimPrefix(strings.ReplaceAll(err.Error(), "\n ", ""), "yaml: "))
		}
	}
	if c.Version == 0 {
		c.Version = 1
	}
	seen := map[string]bool{}
	for i := range c.Collections {
		col := &c.Collections[i]
		col.Name = strings.ToLower(col.Name)
		if err := ValidName(col.Name); err != nil {
			return nil, fmt.Errorf("config %s: collection %d: %w", path, i+1, err)
		}
		if seen[col.Name] {
			return nil, fmt.Errorf("config %s: collection %q defined twice", path, col.Name)
		}
		seen[col.Name] = true
		if !filepath.IsAbs(col.Path) {
			return nil, fmt.Errorf("config %s: collection %q: path %q is not absolute", path, col.Name, col.Path)
		}
		for _, g := range append(col.Patterns(), col.Exclude...) {
			if !validGlob(g) {
				return nil, fmt.Errorf("config %s: collection %q: invalid glob %q", path, col.Name, g)
			}
		}
	}
	return c, nil
}

// Save writes the config atomically (temp file + rename).
func (c *Config) Save(path string) error {
	data, err := yaml.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	return WriteFileAtomic(path, data, 0o644)
}

// WriteFileAtomic writes data to a temp file beside path and renames it
// over path, so a crash never leaves a half-written file.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, perm)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	// The rename is durable only once the folder is synced; without it a
	// power cut can bring back the old file (or none) after we said done.
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// ValidName checks a (lowercased) collection name.
func ValidName(name string) error {
	if !dirs.IsName(name) {
		return gnoerr.New(gnoerr.InvalidInput, "invalid collection name %q: use letters, digits, '.', '_' or '-' (at most 64)", name)
	}
	return nil
}

// Collection returns the collection named name (case-insensitive).
func (c *Config) Collection(name string) (*Collection, bool) {
	name = strings.ToLower(name)
	for i := range c.Collections {
		if c.Collections[i].Name == name {
			return &c.Collections[i], true
		}
	}
	return nil, false
}

// CollectionNames lists the configured collection names (never nil).
func (c *Config) CollectionNames() []string {
	out := make([]string, 0, len(c.Collections))
	for _, col := range c.Collections {
		out = append(out, col.Name)
	}
	return out
}
