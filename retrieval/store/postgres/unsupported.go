package postgres

import (
	"context"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/store"
)

// What the Postgres store does not implement yet: the link graph (links,
// names, candidates) and the package docs (a package-docs index stays a
// SQLite file). Each method answers store.ErrUnsupported, wrapped in
// words that name it and the server; the Postgres store embeds
// unsupported and overrides what it has. Writes of documents store no
// links.
type unsupported struct{ name string }

// no is the error of an unsupported method: store.ErrUnsupported to
// errors.Is, gnoerr.Unavailable to errors.As, one sentence to a user.
func (u unsupported) no(method string) error {
	return &unsupportedError{method: method, index: u.name}
}

type unsupportedError struct{ method, index string }

func (e *unsupportedError) Error() string {
	return e.method + " is not supported on PostgreSQL yet (index " + e.index + ")"
}

func (e *unsupportedError) Is(target error) bool { return target == store.ErrUnsupported }

func (e *unsupportedError) As(target any) bool {
	if p, ok := target.(**gnoerr.Error); ok {
		*p = gnoerr.New(gnoerr.Unavailable, "%s", e.Error())
		return true
	}
	return false
}

func (u unsupported) AttachmentsTo(ctx context.Context, id int64) ([]store.LinkRow, error) {
	return *new([]store.LinkRow), u.no("AttachmentsTo")
}

func (u unsupported) Candidates(ctx context.Context, keys []string) (map[string][]links.Candidate, error) {
	return *new(map[string][]links.Candidate), u.no("Candidates")
}

func (u unsupported) DocNames(ctx context.Context, collections []string) ([]store.DocName, error) {
	return *new([]store.DocName), u.no("DocNames")
}

func (u unsupported) DropUnusedPkgVersions(ctx context.Context) (dropped int, keep []string, err error) {
	return *new(int), *new([]string), u.no("DropUnusedPkgVersions")
}

func (u unsupported) LinkGraph(ctx context.Context, collections []string) ([]int64, [][2]int64, error) {
	return *new([]int64), *new([][2]int64), u.no("LinkGraph")
}

func (u unsupported) LinkStats(ctx context.Context) (map[string]*store.LinkStats, error) {
	return *new(map[string]*store.LinkStats), u.no("LinkStats")
}

func (u unsupported) LinksFrom(ctx context.Context, id int64) ([]store.LinkRow, error) {
	return *new([]store.LinkRow), u.no("LinksFrom")
}

func (u unsupported) LinksTo(ctx context.Context, id int64) ([]store.LinkRow, error) {
	return *new([]store.LinkRow), u.no("LinksTo")
}

func (u unsupported) NoteNames(ctx context.Context, collections []string) ([]store.NoteName, error) {
	return *new([]store.NoteName), u.no("NoteNames")
}

func (u unsupported) PkgFirstChunks(ctx context.Context, docIDs []int64) (map[int64]int64, error) {
	return *new(map[int64]int64), u.no("PkgFirstChunks")
}

func (u unsupported) PkgProject(ctx context.Context, dir string) (*store.PkgProject, error) {
	return *new(*store.PkgProject), u.no("PkgProject")
}

func (u unsupported) PkgProjectVersions(ctx context.Context, projectIDs []int64) ([]store.PkgProjectVersion, error) {
	return *new([]store.PkgProjectVersion), u.no("PkgProjectVersions")
}

func (u unsupported) PkgProjects(ctx context.Context) ([]*store.PkgProject, error) {
	return *new([]*store.PkgProject), u.no("PkgProjects")
}

func (u unsupported) PkgStats(ctx context.Context, model string) (store.PkgStats, error) {
	return *new(store.PkgStats), u.no("PkgStats")
}

func (u unsupported) PkgSymbol(ctx context.Context, versionID int64, name string) ([]store.PkgUnit, error) {
	return *new([]store.PkgUnit), u.no("PkgSymbol")
}

func (u unsupported) PkgSymbolsByLeaf(ctx context.Context, versionIDs []int64, leaves []string, limit int) ([]store.PkgUnit, error) {
	return *new([]store.PkgUnit), u.no("PkgSymbolsByLeaf")
}

func (u unsupported) PkgUnitCount(ctx context.Context, versionID int64, kind string) (int, error) {
	return *new(int), u.no("PkgUnitCount")
}

func (u unsupported) PkgUnitsOf(ctx context.Context, docIDs []int64) (map[int64]*store.PkgUnit, error) {
	return *new(map[int64]*store.PkgUnit), u.no("PkgUnitsOf")
}

func (u unsupported) PkgUnitsOfVersion(ctx context.Context, versionID int64, kind string) ([]store.PkgUnit, error) {
	return *new([]store.PkgUnit), u.no("PkgUnitsOfVersion")
}

func (u unsupported) PkgUnitsWhere(ctx context.Context, q store.PkgUnitQuery) ([]store.PkgUnit, error) {
	return *new([]store.PkgUnit), u.no("PkgUnitsWhere")
}

func (u unsupported) PkgVersionCount(ctx context.Context) (int, error) {
	return *new(int), u.no("PkgVersionCount")
}

func (u unsupported) PkgVersions(ctx context.Context, keys []string) (map[string]*store.PkgVersion, error) {
	return *new(map[string]*store.PkgVersion), u.no("PkgVersions")
}

func (u unsupported) PkgVersionsNamed(ctx context.Context, name, ecosystem string) ([]*store.PkgVersion, error) {
	return *new([]*store.PkgVersion), u.no("PkgVersionsNamed")
}

func (u unsupported) PutPkgVersion(ctx context.Context, v *store.PkgVersion, docs []*store.Document, units []store.PkgUnit) (int64, error) {
	return *new(int64), u.no("PutPkgVersion")
}

func (u unsupported) RemovePkgProject(ctx context.Context, dir string) (bool, error) {
	return *new(bool), u.no("RemovePkgProject")
}

func (u unsupported) SetPkgProject(ctx context.Context, p *store.PkgProject, keys map[string]bool) error {
	return u.no("SetPkgProject")
}

func (u unsupported) Unresolved(ctx context.Context, collection string, limit int) ([]store.LinkRow, error) {
	return *new([]store.LinkRow), u.no("Unresolved")
}

func (u unsupported) PkgUnitTexts(ctx context.Context, versionID int64, kind, word string) (map[int64]string, error) {
	return nil, u.no("PkgUnitTexts")
}
