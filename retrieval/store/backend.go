package store

import (
	"context"
	"errors"
	"time"

	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/query"
)

// Backend is the store's contract: every read and write of gno's index,
// as the engine and pkgdocs call them. *Store (SQLite, the embedded
// default) and the Postgres store (retrieval/store/postgres) implement it,
// and one test suite (retrieval/store/storetest) holds both to it; the
// engine holds a Backend and never asks which one it has.
//
// The methods are those of *Store; their doc comments there are the
// contract. Reads made with a context from Read or Snapshot see one
// committed state of the index, on either backend.
type Backend interface {
	// Lifetime and identity.
	Close() error
	Path() string
	// PathProblem says, in a short phrase, why this backend cannot hold
	// a document at rel ("" when it can): a sync skips such a file with
	// that reason, and a read by such a path finds nothing.
	PathProblem(rel string) string
	Meta(ctx context.Context, key string) (string, error)
	SetMeta(ctx context.Context, key, value string) error
	Generation(ctx context.Context) (int64, error)
	// Server describes the database server (server.go); nil for SQLite.
	Server(ctx context.Context) (*ServerInfo, error)

	// Read snapshots (snapshot.go).
	Read(ctx context.Context, fn func(ctx context.Context) error) error
	Snapshot(ctx context.Context) (context.Context, func(), error)
	Detach(ctx context.Context) context.Context

	// Writes of a sync: one batch is one transaction (write.go).
	Begin(ctx context.Context, gen int64) (WriteBatch, error)
	DocStates(ctx context.Context, collection string) (map[string]DocState, error)
	DocStatesOf(ctx context.Context, collection string, rels []string) (map[string]DocState, error)
	DocStateList(ctx context.Context, collection string) (*StateList, error)
	Cleanup(ctx context.Context, keep []string) (int, error)
	BeginBulk(ctx context.Context) error
	MergeSegmented(ctx context.Context) error
	EndBulk(ctx context.Context) error
	// BuildPostings builds the word index's own search postings where
	// they are missing (and, with behind, far behind the index: SQLite's
	// block-max postings, impacts.go), with progress; it reports whether
	// it built. A no-op where the backend has none (Postgres).
	BuildPostings(ctx context.Context, behind bool, progress func(done, total int)) (bool, error)
	SkipStates(ctx context.Context, collection string) (map[string]SkipState, error)
	SkipCounts(ctx context.Context, collection string) (map[string]int, error)
	DocCount(ctx context.Context, collection string) (int, error)

	// Documents and chunks (read.go).
	Chunks(ctx context.Context, ids []int64) (map[int64]*ChunkRow, error)
	Docs(ctx context.Context, ids []int64) (map[int64]*DocMeta, error)
	DocByPath(ctx context.Context, collection, rel string) (*DocMeta, error)
	DocByHashPrefix(ctx context.Context, prefix string) (*DocMeta, error)
	Content(ctx context.Context, id int64) (string, error)
	List(ctx context.Context, collections []string, prefix string, limit, offset int) ([]*DocMeta, error)
	// ListAfter pages through one collection by id (keyset): up to limit
	// documents whose id is above afterID, in id order.
	ListAfter(ctx context.Context, collection string, afterID int64, limit int) ([]*DocMeta, error)
	Stats(ctx context.Context, model string) (map[string]*CollectionStats, error)
	FilterDocs(ctx context.Context, f Filter) (map[int64]bool, error)
	CollectionNames(ctx context.Context) ([]string, error)
	LangCounts(ctx context.Context) (map[string]int, error)
	NoteNames(ctx context.Context, collections []string) ([]NoteName, error)
	NoteNamesOf(ctx context.Context, ids []int64) ([]NoteName, error)

	// BM25 (fts.go, prune.go).
	SearchFTS(ctx context.Context, q query.Keywords, f Filter, limit int) ([]ChunkHit, error)

	// Vectors (vectors.go).
	DropVectors(ctx context.Context, keepModel string) error
	EmbedQueue(ctx context.Context, collection string, except ...string) ([]Queued, error)
	ChunkTexts(ctx context.Context, ids []int64) (map[int64]ChunkText, error)
	ChunkCount(ctx context.Context) (int, error)
	VectorsOf(ctx context.Context, model string, chunks []int64) ([][]float32, error)
	Unembedded(ctx context.Context, collection string, except ...string) ([]ChunkText, error)
	UnembeddedCount(ctx context.Context, collection string, except ...string) (int, error)
	PutVectors(ctx context.Context, model string, ids []int64, vecs [][]float32) error
	VectorCount(ctx context.Context, model string) (count, dims int, err error)
	EachVector(ctx context.Context, model string, afterVer int64, fn func(chunk int64, vec []float32)) error
	VectorChunks(ctx context.Context, model string) (map[int64]bool, error)
	DocVectors(ctx context.Context, doc int64) ([]DocVector, error)
	VectorModel(ctx context.Context) (string, error)

	// The change feed and earlier texts (changes.go, versions.go).
	ChangedSince(ctx context.Context, collection string, since int64) ([]ChangedDoc, error)
	RemovedSince(ctx context.Context, collection string, since int64) ([]RemovedDoc, error)
	TextAt(ctx context.Context, collection, rel string, gen int64) (string, TextState, error)
	VersionsSize(ctx context.Context) (rows, bytes int64, err error)
	DropVersions(ctx context.Context) error

	// Tags (tags.go).
	TagCounts(ctx context.Context, collection, prefix string) ([]TagCount, error)
	AddUserTag(ctx context.Context, doc int64, tag string) error
	RemoveTag(ctx context.Context, doc int64, tag string) (bool, error)
	RestoreUserTags(ctx context.Context, tags []UserTag) error
	DocTags(ctx context.Context) (map[int64][]string, error)
	DocTagsOf(ctx context.Context, ids []int64) (map[int64][]string, error)

	// Links and governing notes (linkread.go, governs.go).
	LinkVersion(ctx context.Context) (string, error)
	LinksFrom(ctx context.Context, id int64) ([]LinkRow, error)
	LinksTo(ctx context.Context, id int64) ([]LinkRow, error)
	AttachmentsTo(ctx context.Context, id int64) ([]LinkRow, error)
	Unresolved(ctx context.Context, collection string, limit int) ([]LinkRow, error)
	UnresolvedFrom(ctx context.Context, ids []int64) ([]LinkRow, error)
	LinkStats(ctx context.Context) (map[string]*LinkStats, error)
	LinkGraph(ctx context.Context, collections []string) ([]int64, [][2]int64, error)
	LinkGraphSince(ctx context.Context, base uint64, touched []int64) (*LinkGraphDelta, error)
	// LinkGraphAmong takes ids in any order (linkgraph.go).
	LinkGraphAmong(ctx context.Context, ids []int64) ([][2]int64, error)
	Candidates(ctx context.Context, keys []string) (map[string][]links.Candidate, error)
	DocNames(ctx context.Context, collections []string) ([]DocName, error)
	GoverningNotes(ctx context.Context) ([]*GoverningNote, error)

	// The status counts' cache (countscache.go): what CountsCache
	// returns is what PutCountsCache last stored (nil: nothing), for any
	// process on the index; it is a cache, so a failed put loses nothing.
	CountsCache(ctx context.Context) ([]byte, error)
	PutCountsCache(ctx context.Context, body []byte) error

	// The reconcile cache (reconcile.go).
	MarkReconciled(ctx context.Context, cursor string, files []Reconciled) (int, error)
	ClearReconciled(ctx context.Context, cursor string) (int, error)
	ReconciledHashes(ctx context.Context, cursor, collection string) (map[string]string, error)

	// Access tokens of a shared index (access.go).
	AccessTokens(ctx context.Context) ([]AccessToken, error)
	AccessTokenByHash(ctx context.Context, sha256 string) (AccessToken, bool, error)
	PutAccessToken(ctx context.Context, t AccessToken) (bool, error)
	DeleteAccessToken(ctx context.Context, id string) (bool, error)
	TouchAccessTokens(ctx context.Context, used map[string]time.Time) error

	// Background jobs, seen by every server of the index (jobs.go).
	PutJob(ctx context.Context, j SharedJob) error
	Job(ctx context.Context, id string) (SharedJob, bool, error)
	Jobs(ctx context.Context, limit int) ([]SharedJob, error)
	DropJobs(ctx context.Context, before time.Time, keep int) error

	// Package docs (pkgread.go, pkgwrite.go, pkgsymbols.go).
	PkgVersions(ctx context.Context, keys []string) (map[string]*PkgVersion, error)
	PkgVersionsNamed(ctx context.Context, name, ecosystem string) ([]*PkgVersion, error)
	PkgProject(ctx context.Context, dir string) (*PkgProject, error)
	PkgProjects(ctx context.Context) ([]*PkgProject, error)
	SetPkgProject(ctx context.Context, p *PkgProject, keys map[string]bool) error
	RemovePkgProject(ctx context.Context, dir string) (bool, error)
	PkgProjectVersions(ctx context.Context, projectIDs []int64) ([]PkgProjectVersion, error)
	PkgUnitsOf(ctx context.Context, docIDs []int64) (map[int64]*PkgUnit, error)
	PkgUnitsOfVersion(ctx context.Context, versionID int64, kind string) ([]PkgUnit, error)
	PkgUnitsWhere(ctx context.Context, q PkgUnitQuery) ([]PkgUnit, error)
	PkgUnitCount(ctx context.Context, versionID int64, kind string) (int, error)
	PkgUnitTexts(ctx context.Context, versionID int64, kind, word string) (map[int64]string, error)
	PkgSymbol(ctx context.Context, versionID int64, name string) ([]PkgUnit, error)
	DropUnusedPkgVersions(ctx context.Context) (dropped int, keep []string, err error)
	PkgVersionCount(ctx context.Context) (int, error)
	PkgStats(ctx context.Context, model string) (PkgStats, error)
	PkgSymbolsByLeaf(ctx context.Context, versionIDs []int64, leaves []string, limit int) ([]PkgUnit, error)
	PkgFirstChunks(ctx context.Context, docIDs []int64) (map[int64]int64, error)
	PutPkgVersion(ctx context.Context, v *PkgVersion, docs []*Document, units []PkgUnit) (int64, error)

	// Health (check.go): the full check (`gno doctor`) and the bounded
	// one `gno status` runs.
	Check(ctx context.Context) ([]string, error)
	QuickCheck(ctx context.Context, budget time.Duration) string
}

// WriteBatch is one write transaction of a sync: either all of its changes
// land or none do. *Batch is SQLite's.
type WriteBatch interface {
	// Put may hold d's slices (chunks, tags, links) until Commit: a
	// backend writes documents in groups; the caller leaves them as
	// they are.
	Put(ctx context.Context, d *Document) error
	Touch(ctx context.Context, id, size, mtimeNS int64) error
	Remove(ctx context.Context, id int64) error
	PutSkip(ctx context.Context, collection, rel string, st SkipState) error
	DeleteSkip(ctx context.Context, collection, rel string) error
	Commit() error
	Rollback() error
}

// VectorSearcher is a backend that answers vector searches itself, from
// an index it keeps (Postgres: pgvector's HNSW over halfvec), so a gno
// process needs no graph of its own: an optional capability, as
// database/sql's drivers have optional interfaces. The engine asks a
// backend for it and builds its own graph only without it.
type VectorSearcher interface {
	// SearchVectors returns the best chunk of each of the top k
	// documents passing f, by cosine similarity of model's vectors to q
	// (Score), best first; approximate, as a graph is.
	SearchVectors(ctx context.Context, model string, q []float32, f Filter, k int) ([]ChunkHit, error)
}

// Lock is a held writer lock (LockWriter, Driver.LockWriter).
type Lock interface {
	Unlock() error
}

var (
	_ Backend    = (*Store)(nil)
	_ WriteBatch = (*Batch)(nil)
	_ Lock       = (*WriteLock)(nil)
)

// ErrUnsupported is what a backend's method answers when that backend does
// not implement it yet; the error wrapping it names the method and the
// backend, in words a user can read.
var ErrUnsupported = errors.New("not supported by this index store yet")

// MergeHits joins the hits of the word and the segmented index, keeping
// each document's better hit, best first, at most limit: every backend
// merges its two indexes' answers as SQLite's SearchFTS does.
func MergeHits(a, b []ChunkHit, limit int) []ChunkHit { return mergeHits(a, b, limit) }

// TopHits orders hits as SearchFTS returns them (score, then document)
// and keeps the first limit.
func TopHits(h []ChunkHit, limit int) []ChunkHit {
	sortHits(h)
	if len(h) > limit {
		h = h[:limit]
	}
	return h
}
