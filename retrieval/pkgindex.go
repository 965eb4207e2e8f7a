package retrieval

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// Packages is the package-docs index of an index: the docs of the
// dependencies of the user's projects, one document per unit (README, doc
// file, example, API item), in a database of its own beside the notes
// (config.Paths.Packages). It is an Engine underneath — the same BM25,
// vectors, fusion, reranking, modes, budgets and meta — whose collections
// are package versions ("go:github.com/spf13/cobra@v1.8.1", immutable
// once stored, shared by every project using them) and whose URIs are
// gno://pkg/ ones (ref.PackageURI).
//
// It stores and reads; finding packages, extracting their docs and
// deciding what to re-index is the job of package pkgdocs above.
type Packages struct {
	e *Engine
	// embedded caches which versions have vectors (VersionsEmbedded).
	embedded embeddedVersions
}

// Aliases of the store's package rows: they are the index's answer as is.
type (
	// PackageVersion is a stored package version.
	PackageVersion = store.PkgVersion
	// PackageUnit is one unit of a stored version.
	PackageUnit = store.PkgUnit
	// PackageProject is a project whose dependencies are indexed.
	PackageProject = store.PkgProject
	// ProjectVersion is a version a project uses.
	ProjectVersion = store.PkgProjectVersion
	// PackageStats counts what the index holds.
	PackageStats = store.PkgStats
)

// PackageRef names a package version in results.
type PackageRef struct {
	Ecosystem string `json:"ecosystem"`
	Name      string `json:"name"`
	Version   string `json:"version"`
}

// Symbol is the API item a unit documents.
type Symbol struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Signature string `json:"signature,omitempty"`
}

// PackageKey is the key a version is stored under: "ecosystem:name@version".
func PackageKey(ecosystem, name, version string) string {
	return ecosystem + ":" + name + "@" + version
}

// ParsePackageKey reads a key made by PackageKey.
func ParsePackageKey(key string) (PackageRef, bool) {
	eco, rest, ok := strings.Cut(key, ":")
	if !ok || len(rest) < 3 {
		return PackageRef{}, false
	}
	i := strings.IndexByte(rest[1:], '@')
	if i < 0 {
		return PackageRef{}, false
	}
	return PackageRef{Ecosystem: eco, Name: rest[:i+1], Version: rest[i+2:]}, true
}

// OpenPackages opens the package-docs index of the index opt names. The
// database is created on first use.
func OpenPackages(ctx context.Context, opt Options) (*Packages, error) {
	e, err := Open(ctx, opt)
	if err != nil {
		return nil, err
	}
	e.Paths = e.Paths.Packages()
	e.pkgs = true
	return &Packages{e: e}, nil
}

// Close releases the database and models.
func (p *Packages) Close() error { return p.e.Close() }

// Paths are the index's paths (IndexDir and DBFile are the package
// index's own).
func (p *Packages) Paths() config.Paths { return p.e.Paths }

// Exists reports whether the database was ever created (cleanup and
// status need not create it).
func (p *Packages) Exists() bool {
	_, err := os.Stat(p.e.Paths.DBFile)
	return err == nil
}

// Models returns the part that opens the index's models.
func (p *Packages) Models() *Models { return p.e.models }

// PackageSearch is a search of the package docs.
type PackageSearch struct {
	QueryRequest
	// Versions are the keys of the versions searched (a project's);
	// nil searches every stored version, empty none.
	Versions []string
	// Sides, when set, split the vector search: each side's versions
	// get their own nearest-neighbour list, as deep as the one list
	// would be, fused as a list of its own (the first named "vector").
	// A side of many compact vectors (an embedded standard library)
	// then cannot push another side's documents out of the one list
	// and take their vector vote. Name a later side only with versions
	// that have vectors (VersionsEmbedded): every side is searched. A
	// side whose list comes back empty is left out of the fusion. When
	// Versions is nil (every stored version), the sides must cover every
	// stored version: the last side past the first is then read as every
	// document the others do not hold, so a version in no side is
	// searched with it. Each side past the first needs its own Name (an
	// unnamed one gets "vector<i>"): two lists may not share a name.
	Sides []VectorSide
	// ListsFor, when set, is the limit the fused lists are made deep for
	// (max(50, ListsFor) each, in query mode), where Limit asks for more
	// results than that to re-order after the search: a caller's pool
	// then costs no deeper lists than its own limit would (0: Limit).
	ListsFor int
}

// VectorSide is one side of a split vector search (PackageSearch.Sides).
type VectorSide struct {
	// Name names the side's list in fusion and explanations.
	Name string
	// Versions are the keys of the side's versions.
	Versions []string
	// Weight multiplies the vector list's weight for this side (0: 1).
	Weight float64
}

// Run runs a search of mode over the versions of req.
func (p *Packages) Run(ctx context.Context, mode Mode, req PackageSearch) (*SearchResults, error) {
	q := req.QueryRequest
	q.scope = req.Versions
	q.sides = req.Sides
	q.listsFor = req.ListsFor
	if q.scope != nil && len(q.scope) == 0 {
		q.scope = []string{""} // matches nothing
	}
	return p.e.Run(ctx, mode, q)
}

// listLimit is the limit the fused lists are made deep for
// (PackageSearch.ListsFor, else the request's).
func (q QueryRequest) listLimit() int {
	if q.listsFor > 0 {
		return q.listsFor
	}
	return q.Limit
}

// Get reads one unit by its gno://pkg/ URI or #docid.
func (p *Packages) Get(ctx context.Context, req GetRequest) (*Document, error) {
	return readAs(ctx, p.e, func(ctx context.Context) (*Document, error) { return p.get(ctx, req) })
}

func (p *Packages) get(ctx context.Context, req GetRequest) (*Document, error) {
	d, err := p.e.Get(ctx, req)
	if err != nil {
		return nil, err
	}
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	m, err := p.e.resolve(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	if pr, ok := ParsePackageKey(m.Collection); ok {
		d.Package = &pr
	}
	us, err := st.PkgUnitsOf(ctx, []int64{m.ID})
	if err != nil {
		return nil, err
	}
	if u := us[m.ID]; u != nil && u.Symbol != "" {
		d.Symbol = &Symbol{Name: u.Symbol, Kind: u.SymbolKind, Signature: u.Signature}
	}
	return d, nil
}

// Snapshot opens one read snapshot of the package index: every read of p
// made with the returned context sees the same committed state (a Put or
// Cleanup meanwhile is seen whole or not at all) until end is called. A
// read that spans several calls (describe, get-doc, list) takes one after
// any auto-indexing write.
func (p *Packages) Snapshot(ctx context.Context) (_ context.Context, end func(), err error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, nil, err
	}
	return st.Snapshot(ctx)
}

// Versions returns the stored versions among keys, by key.
func (p *Packages) Versions(ctx context.Context, keys []string) (map[string]*PackageVersion, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	return st.PkgVersions(ctx, keys)
}

// VersionsNamed returns the stored versions of a package name (any
// project's), newest first.
func (p *Packages) VersionsNamed(ctx context.Context, name, ecosystem string) ([]*PackageVersion, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	return st.PkgVersionsNamed(ctx, name, ecosystem)
}

// Project returns the indexed project of dir; nil when it was never
// added.
func (p *Packages) Project(ctx context.Context, dir string) (*PackageProject, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	pr, err := st.PkgProject(ctx, dir)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return pr, err
}

// Projects lists the indexed projects.
func (p *Packages) Projects(ctx context.Context) ([]*PackageProject, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	return st.PkgProjects(ctx)
}

// ProjectVersions returns the versions the projects use.
func (p *Packages) ProjectVersions(ctx context.Context, projectIDs ...int64) ([]ProjectVersion, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	return st.PkgProjectVersions(ctx, projectIDs)
}

// Units returns a version's units of kind ("" for all), by path.
func (p *Packages) Units(ctx context.Context, versionID int64, kind string) ([]PackageUnit, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	return st.PkgUnitsOfVersion(ctx, versionID, kind)
}

// UnitQuery selects units of one version (store.PkgUnitQuery).
type UnitQuery = store.PkgUnitQuery

// UnitsWhere returns the units q selects, by path.
func (p *Packages) UnitsWhere(ctx context.Context, q UnitQuery) ([]PackageUnit, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	return st.PkgUnitsWhere(ctx, q)
}

// UnitCount counts a version's units of kind ("" for all).
func (p *Packages) UnitCount(ctx context.Context, versionID int64, kind string) (int, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return 0, err
	}
	return st.PkgUnitCount(ctx, versionID, kind)
}

// Symbol finds a version's API items by qualified name, or by last name
// part ("PersistentFlags" finds "Command.PersistentFlags").
func (p *Packages) Symbol(ctx context.Context, versionID int64, name string) ([]PackageUnit, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	return st.PkgSymbol(ctx, versionID, name)
}

// Text returns a unit document's Markdown.
func (p *Packages) Text(ctx context.Context, docID int64) (string, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return "", err
	}
	return st.Content(ctx, docID)
}

// VersionCount is how many versions are stored.
func (p *Packages) VersionCount(ctx context.Context) (int, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return 0, err
	}
	return st.PkgVersionCount(ctx)
}

// Stats counts what the index holds (embedded chunks: of the configured
// embedder).
func (p *Packages) Stats(ctx context.Context) (PackageStats, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return PackageStats{}, err
	}
	return st.PkgStats(ctx, p.e.models.EmbedModel())
}

// packageFilter is prepare's filter for a package-docs index: the scope
// of the request, never the config's collections.
func (e *Engine) packageFilter(req *SearchRequest, f store.Filter) (store.Filter, error) {
	if req.Collection != "" || len(req.TagsAny) > 0 || len(req.TagsAll) > 0 {
		return f, gnoerr.New(gnoerr.InvalidInput, "package docs have no collections or tags: filter by package or ecosystem")
	}
	f.Collections = req.scope
	return f, nil
}

// uri is a document's URI: gno://collection/path, or gno://pkg/... in a
// package-docs index.
func (e *Engine) uri(m *store.DocMeta) string {
	if e.pkgs {
		if pr, ok := ParsePackageKey(m.Collection); ok {
			return ref.PackageURI(pr.Ecosystem, pr.Name, pr.Version, m.RelPath)
		}
	}
	return ref.URI(m.Collection, m.RelPath)
}

// resolvePackage finds the unit a gno://pkg/ URI or #docid names.
func (e *Engine) resolvePackage(ctx context.Context, s string) (*store.DocMeta, error) {
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	var m *store.DocMeta
	if strings.HasPrefix(strings.TrimSpace(s), "#") {
		r, err := ref.Parse(s)
		if err != nil {
			return nil, err
		}
		m, err = st.DocByHashPrefix(ctx, r.DocID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	} else {
		r, err := ref.ParsePackageURI(s)
		if err != nil {
			return nil, err
		}
		if r.Unit == "" {
			r.Unit = "readme.md"
		}
		m, err = st.DocByPath(ctx, PackageKey(r.Ecosystem, r.Name, r.Version), r.Unit)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	if m == nil {
		return nil, gnoerr.New(gnoerr.NotFound, "package doc not found: %s", s)
	}
	return m, nil
}

// addPackageInfo fills the package and symbol of results.
func (e *Engine) addPackageInfo(ctx context.Context, st store.Backend, results []Result, docs map[int64]*store.DocMeta) error {
	byURI := map[string]int64{}
	ids := make([]int64, 0, len(docs))
	for id, m := range docs {
		byURI[e.uri(m)] = id
		ids = append(ids, id)
	}
	units, err := st.PkgUnitsOf(ctx, ids)
	if err != nil {
		return err
	}
	for i := range results {
		r := &results[i]
		id := byURI[r.URI]
		if m := docs[id]; m != nil {
			if pr, ok := ParsePackageKey(m.Collection); ok {
				r.Package = &pr
			}
		}
		if u := units[id]; u != nil && u.Symbol != "" {
			r.Symbol = &Symbol{Name: u.Symbol, Kind: u.SymbolKind, Signature: u.Signature}
		}
	}
	return nil
}

// Unembedded counts the chunks without a vector outside the versions
// in except.
func (p *Packages) Unembedded(ctx context.Context, except []string) (int, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return 0, err
	}
	return st.UnembeddedCount(ctx, "", except...)
}
