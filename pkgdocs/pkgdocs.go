// Package pkgdocs makes the docs of a project's dependencies, at the
// versions the project really uses, searchable through gno's engine: the
// flow discover (pkgdocs/packages) → extract (pkgdocs/apidoc) → store
// (retrieval.Packages) → embed, and the reads the front ends share —
// search, describe, get — with their token budgets. The CLI (`gno
// packages`) and the MCP tools (gno_search_package_docs,
// gno_describe_package, gno_get_package_doc, gno_package_changes) are
// thin over it.
//
// # The room
//
// Everything of package docs is found from here:
//   - pkgdocs: Add, Search, Describe, GetDoc, List, Diff (what changed
//     between two versions: diff.go, diff_out.go), the scope of a read
//     (scope.go), exact symbol lookup (symbols.go), whole-unit hits
//     (hits.go), the result order after fusion (overview.go,
//     foldexamples.go, rescore.go), sections (sections.go), the standard library's
//     policy (stdlib.go), token budgets;
//   - pkgdocs/packages: which dependencies a project has, at which
//     versions, in which folders; fetching a missing one through its
//     ecosystem's client; fingerprints; each toolchain's standard library;
//   - pkgdocs/apidoc: one installed version → units (README, docs,
//     examples, one unit per public API item) for Go, npm, Python, Rust,
//     Swift and the standard libraries;
//   - retrieval/pkgindex*.go: the index they fill (retrieval.Packages, an
//     Engine over a database of its own), its writer and symbol reads;
//   - retrieval/store/pkg*.go: its tables and SQL (SQL lives in the store).
//
// # Where the docs live, and why
//
// A dedicated package-docs index: its own SQLite database inside the
// index folder (config.Paths.Packages), opened as a retrieval.Packages,
// which is a retrieval.Engine underneath. So BM25, vectors, fusion,
// reranking, the modes, budgets, degradation and meta are the engine's
// own, while `gno search` over the user's notes never returns cobra's API
// and a package search never returns a note; the two have separate writer
// locks (adding packages never blocks a notes sync) and separate vector
// graphs (a search of one never loads the other's). Putting the units in
// the notes database under reserved collections would have needed a
// filter in every notes read (search, list, graph, change feed, status,
// MCP resources) to keep them out; a second database needs none.
//
// Docs of one package version are immutable: stored once under the key
// "ecosystem:name@version" (the documents' collection) and shared by
// every project that resolves to that version. A project is a row naming
// its folder, the fingerprint of its manifests and lockfiles
// (packages.Fingerprint) and the set of versions it uses. So:
//   - re-running on an unchanged project compares one fingerprint (a few
//     milliseconds) and stops;
//   - a bumped version extracts and stores only the new version; the old
//     one stays for other projects;
//   - versions no project uses any more are dropped by Cleanup
//     (`gno cleanup`).
//
// Each unit is a document: the README (filtered), doc and example files,
// and one document per API item, with its symbol name, kind and
// signature in pkg_units (results carry them; describe reads them). The
// item's own name split on case boundaries is indexed with its title
// ("PersistentFlags" also as "persistent flags"; dots, colons and
// underscores the word index splits already), and so is the package's
// short name. Only the item's own name: a member indexed under its
// container's words outranked the container (CircuitBreaker.State above
// CircuitBreaker for "circuit breaker").
//
// # URIs
//
// A unit is gno://pkg/ECOSYSTEM/NAME@VERSION/UNIT (ref.PackageURI), e.g.
// gno://pkg/go/github.com/spf13/cobra@v1.8.1/api/Command.PersistentFlags;
// `gno get` and the MCP gno_get tool and resources serve it.
//
// # Budgets
//
// Agents complain most about answers that flood their context. Every
// read here takes a token budget (default 5,000, estimated as
// chunk.EstimateTokens does); what does not fit is cut at an entry or
// line boundary and the answer says so (truncated, and a note naming how
// to get the rest).
package pkgdocs

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
	"github.com/gnosearch/gno/retrieval"
)

// extractorVersion is stored with each version; raising it makes the
// next add re-extract versions stored by an older gno. 3: two branches
// had each set 2 for different changes; data from either is re-read.
// 4: Python names defined under `if __name__ == "__main__":` are no
// longer units. 5: a plain Python module without __all__ no longer lists
// the names it imports as its own (rich.markdown.Syntax). 6: an API
// item without a doc comment takes the README section documenting it
// (apidoc/readmedoc.go). 7: that README text ends with a marker (the
// diff's deprecation check skips it) and its heading is one short line.
const extractorVersion = 7

// DefaultMaxTokens is the token budget of a read when the caller gives
// none.
const DefaultMaxTokens = 5000

// Options open an Index.
type Options struct {
	// Index and ConfigFile name the gno index (as retrieval.Options).
	Index      string
	ConfigFile string
	// CacheDir is where packages fetched through npm and pip are
	// unpacked; default: "fetched" in the package index folder.
	CacheDir string
	// Env is the environment discovery reads and gives the clients; nil
	// means the process's.
	Env []string
	// Limits bound the extraction of one package version.
	Limits apidoc.Limits
	// NoStdlib leaves the standard libraries out of every add, auto
	// index and refresh of this Index (AddOptions.NoStdlib for one add).
	NoStdlib bool
	// LockWait is how long a write waits for another writer (default
	// 30 s).
	LockWait time.Duration
}

// Index is the package-docs index with its discovery settings. It is
// safe for concurrent use; writes take the index's writer lock.
type Index struct {
	pk  *retrieval.Packages
	opt Options

	// extracted counts package versions extracted by this Index (tests
	// check that an unchanged re-run extracts none).
	extracted atomic.Int64

	// lastCheck is when a read last made sure a project was current.
	checkMu   sync.Mutex
	lastCheck map[string]time.Time
}

// Open opens the package-docs index of opt.Index. Nothing is read until
// a call needs it.
func Open(ctx context.Context, opt Options) (*Index, error) {
	pk, err := retrieval.OpenPackages(ctx, retrieval.Options{Index: opt.Index, ConfigFile: opt.ConfigFile})
	if err != nil {
		return nil, err
	}
	if opt.CacheDir == "" {
		opt.CacheDir = filepath.Join(pk.Paths().IndexDir, "fetched")
	}
	if opt.LockWait <= 0 {
		opt.LockWait = 30 * time.Second
	}
	return &Index{pk: pk, opt: opt}, nil
}

// Close releases the database and models.
func (x *Index) Close() error { return x.pk.Close() }

// Packages is the underlying index (models, embedding, raw reads).
func (x *Index) Packages() *retrieval.Packages { return x.pk }

// Extracted is the number of package versions this Index extracted.
func (x *Index) Extracted() int64 { return x.extracted.Load() }

// Ref names a package version in answers.
type Ref = retrieval.PackageRef
