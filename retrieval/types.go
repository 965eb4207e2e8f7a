package retrieval

import (
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
)

// The types below are gno's output contract: their JSON is the
// structuredContent of the MCP tools and the --json output of the CLI.

// Source describes the file a document came from.
type Source struct {
	AbsPath    string `json:"absPath"`
	RelPath    string `json:"relPath"`
	Mime       string `json:"mime"`
	Ext        string `json:"ext"`
	ModifiedAt string `json:"modifiedAt,omitempty"`
	SizeBytes  int64  `json:"sizeBytes,omitempty"`
}

// LineRange is an inclusive, 1-based range of lines.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Result is one search hit: a document and its best chunk.
type Result struct {
	DocID      string    `json:"docid"`
	Score      float64   `json:"score"`
	URI        string    `json:"uri"`
	Title      string    `json:"title,omitempty"`
	Collection string    `json:"collection"`
	Snippet    string    `json:"snippet"`
	Lines      LineRange `json:"lines"`
	Headings   string    `json:"headings,omitempty"`
	// Page is the PDF page the hit's chunk starts on (1-based); 0 for
	// other formats.
	Page   int      `json:"page,omitempty"`
	Source Source   `json:"source"`
	Tags   []string `json:"tags,omitempty"`
	Lang   string   `json:"lang,omitempty"`
	// Context holds the human-written contexts of the document's
	// collection and path.
	Context []string `json:"context,omitempty"`
	// Content is the whole document, with --full.
	Content string   `json:"content,omitempty"`
	Explain *Explain `json:"explain,omitempty"`
	// Package and Symbol are set on results of the package-docs index:
	// the package version, and the API item a unit documents.
	Package *PackageRef `json:"package,omitempty"`
	Symbol  *Symbol     `json:"symbol,omitempty"`
}

// Explain shows how a result's score was made (--explain).
type Explain struct {
	BM25Rank    int     `json:"bm25Rank,omitempty"`
	BM25Score   float64 `json:"bm25Score,omitempty"`
	VectorRank  int     `json:"vectorRank,omitempty"`
	VectorScore float64 `json:"vectorScore,omitempty"`
	FusionRank  int     `json:"fusionRank,omitempty"`
	FusionScore float64 `json:"fusionScore,omitempty"`
	RerankScore float64 `json:"rerankScore,omitempty"`
	FinalScore  float64 `json:"finalScore"`
}

// Meta describes how a search ran.
type Meta struct {
	Query string `json:"query"`
	// Mode is bm25, vector, hybrid or bm25_only.
	Mode        string `json:"mode"`
	Expanded    bool   `json:"expanded"`
	Reranked    bool   `json:"reranked"`
	VectorsUsed bool   `json:"vectorsUsed"`
	// VectorIndex says what searched the vectors, when they were used:
	// "graph" (gno's own, in this process) or "store" (the index store's,
	// Postgres's HNSW index).
	VectorIndex  string `json:"vectorIndex,omitempty"`
	TotalResults int    `json:"totalResults"`
	// Notes say what degraded or was cut, and why.
	Notes []string `json:"notes,omitempty"`
	// Timings are per-stage milliseconds (--explain).
	Timings map[string]float64 `json:"timings,omitempty"`
	// RerankModel names the reranker used, and whether it is a test model.
	RerankModel string `json:"rerankModel,omitempty"`
	Expansion   any    `json:"expansion,omitempty"`
	// Embedded says how much of the index the vectors covered, when not
	// all of it (an embedding under way or cut short): the rest was
	// found by keywords only.
	Embedded *Coverage `json:"embedded,omitempty"`
	// Replica says how far behind its primary the streaming replica that
	// answered was; nil when the store answered.
	Replica *ReplicaLag `json:"replica,omitempty"`
}

// ReplicaLag is how far a read replica is behind its primary
// (store.ReplicaInfo): seconds since the last change it replayed (0 when
// caught up), and the bytes of WAL it has still to replay.
type ReplicaLag struct {
	LagSeconds float64 `json:"lagSeconds"`
	LagBytes   int64   `json:"lagBytes"`
}

// Coverage is how many of the index's chunks have a vector.
type Coverage struct {
	Vectors int `json:"vectors"`
	Chunks  int `json:"chunks"`
}

// SearchResults is the answer of search, vsearch and query.
type SearchResults struct {
	Results []Result `json:"results"`
	Meta    Meta     `json:"meta"`
}

// SearchRequest is a search of any mode.
type SearchRequest struct {
	Query      string
	Collection string
	Limit      int
	MinScore   float64
	Lang       string
	TagsAny    []string
	TagsAll    []string
	// Full returns each document's whole content.
	Full    bool
	Explain bool
	// AsYouType searches text as it is being typed (a command palette):
	// every word required, the last one a prefix unless the text ends in
	// a space (query.Keywords.AsYouType). BM25 only.
	AsYouType bool

	// scope, in a package-docs index, holds the package versions (keys)
	// searched; nil searches them all (Packages.Run sets it).
	scope []string
	// sides split its vector search (PackageSearch.Sides).
	sides []VectorSide
	// listsFor is PackageSearch.ListsFor.
	listsFor int
}

// MaxQueryBytes bounds a query string: longer ones are not searches but
// pasted documents, and would only slow the index down.
const MaxQueryBytes = 4096

// Validate checks what every front end (CLI, MCP, REST, web) must refuse
// alike: a query over MaxQueryBytes, an empty query, a minimum score
// outside 0-1. The engine's searches call it too.
func (r *SearchRequest) Validate() error {
	if len(r.Query) > MaxQueryBytes {
		return gnoerr.New(gnoerr.InvalidInput, "query is too long (%d bytes; at most %d)", len(r.Query), MaxQueryBytes)
	}
	if strings.TrimSpace(r.Query) == "" {
		return gnoerr.New(gnoerr.InvalidInput, "empty query")
	}
	if r.MinScore < 0 || r.MinScore > 1 {
		return gnoerr.New(gnoerr.InvalidInput, "minScore must be between 0 and 1")
	}
	return nil
}

// QueryRequest is a hybrid query.
type QueryRequest struct {
	SearchRequest
	Fast     bool
	Thorough bool
	// Rerank nil means the mode's default.
	Rerank *bool
	Expand bool
	// Candidates is how many fused documents are reranked (default 30).
	Candidates int
}

// Document is a whole document as returned by get.
type Document struct {
	DocID         string    `json:"docid"`
	URI           string    `json:"uri"`
	Title         string    `json:"title"`
	Collection    string    `json:"collection"`
	Content       string    `json:"content"`
	TotalLines    int       `json:"totalLines"`
	ReturnedLines LineRange `json:"returnedLines"`
	Truncated     bool      `json:"truncated,omitempty"`
	Source        Source    `json:"source"`
	Tags          []string  `json:"tags,omitempty"`
	Lang          string    `json:"lang,omitempty"`
	Context       []string  `json:"context,omitempty"`
	// Generation is the sync generation that last changed the document.
	Generation int64 `json:"generation"`
	// Package and Symbol as in Result, for a unit of a dependency's docs.
	Package *PackageRef `json:"package,omitempty"`
	Symbol  *Symbol     `json:"symbol,omitempty"`
}

// GetRequest reads one document.
type GetRequest struct {
	Ref       string
	FromLine  int
	LineCount int
}

// MultiGetRequest reads several documents by refs or a glob.
type MultiGetRequest struct {
	Refs     []string
	Pattern  string
	MaxBytes int
}

// Skipped is a document multi-get did not return, and why.
type Skipped struct {
	Ref    string `json:"ref"`
	Reason string `json:"reason"`
}

// MultiGetMeta counts a multi-get.
type MultiGetMeta struct {
	Requested int `json:"requested"`
	Returned  int `json:"returned"`
	Skipped   int `json:"skipped"`
}

// MultiGetResult is the answer of multi-get.
type MultiGetResult struct {
	Documents []Document   `json:"documents"`
	Skipped   []Skipped    `json:"skipped"`
	Meta      MultiGetMeta `json:"meta"`
}

// CollectionStatus is one collection in status.
type CollectionStatus struct {
	Name          string `json:"name"`
	Path          string `json:"path"`
	DocumentCount int    `json:"documentCount"`
	ChunkCount    int    `json:"chunkCount"`
	EmbeddedCount int    `json:"embeddedCount"`
	Available     bool   `json:"available"`
	// Skipped counts, by reason, the files the last syncs could not
	// convert (encrypted, no text, over limits...).
	Skipped map[string]int `json:"skipped,omitempty"`
}

// Status is the health of the index.
type Status struct {
	IndexName        string             `json:"indexName"`
	ConfigPath       string             `json:"configPath"`
	DBPath           string             `json:"dbPath"`
	Collections      []CollectionStatus `json:"collections"`
	TotalDocuments   int                `json:"totalDocuments"`
	TotalChunks      int                `json:"totalChunks"`
	EmbeddingBacklog int                `json:"embeddingBacklog"`
	Generation       int64              `json:"generation"`
	// Links counts stored links; UnresolvedLinks those naming no document.
	Links           int      `json:"links"`
	UnresolvedLinks int      `json:"unresolvedLinks"`
	EmbedModel      string   `json:"embedModel,omitempty"`
	RerankModel     string   `json:"rerankModel,omitempty"`
	Healthy         bool     `json:"healthy"`
	Issues          []string `json:"issues,omitempty"`
	// Embedding is the progress of an embedding run under way (in any
	// process), nil when none runs.
	Embedding *EmbedRun `json:"embedding,omitempty"`
	// Server describes the database server of an index on one
	// (Postgres): its version, pgvector, TLS, the writer lock's holder,
	// and the streaming replica the reads go to with how far behind its
	// primary it is. Nil for a SQLite index.
	Server *store.ServerInfo `json:"server,omitempty"`
}

// Entry is one document in a listing.
type Entry struct {
	DocID      string   `json:"docid"`
	URI        string   `json:"uri"`
	Title      string   `json:"title"`
	Collection string   `json:"collection"`
	RelPath    string   `json:"relPath"`
	SizeBytes  int64    `json:"sizeBytes"`
	ModifiedAt string   `json:"modifiedAt"`
	Tags       []string `json:"tags,omitempty"`
}
