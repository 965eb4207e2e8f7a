package postgres

import (
	"context"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
)

// What the Postgres store does not implement yet: the package docs (a
// package-docs index stays a SQLite file). Each method answers
// store.ErrUnsupported, wrapped in words that name it and the server; the
// Postgres store embeds unsupported and overrides what it has.
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

func (u unsupported) DropUnusedPkgVersions(ctx context.Context) (dropped int, keep []string, err error) {
	return *new(int), *new([]string), u.no("DropUnusedPkgVersions")
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

func (u unsupported) PkgUnitTexts(ctx context.Context, versionID int64, kind, word string) (map[int64]string, error) {
	return nil, u.no("PkgUnitTexts")
}
