package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// pkgSchema holds the package-docs index (schema 4). Its documents are the
// ordinary documents, chunks and vectors tables: a package version's units
// are documents whose collection is the version's key
// ("go:github.com/spf13/cobra@v1.8.1") and whose path is the unit's
// ("api/Command.PersistentFlags"). The tables below add what a search
// result and `describe` need of a unit, which versions are stored, and
// which projects use which versions. They are empty in a notes index.
const pkgSchema = `
CREATE TABLE IF NOT EXISTS pkg_versions(
	id INTEGER PRIMARY KEY,
	key TEXT NOT NULL UNIQUE,
	ecosystem TEXT NOT NULL,
	name TEXT NOT NULL,
	version TEXT NOT NULL,
	summary TEXT NOT NULL DEFAULT '',
	license TEXT NOT NULL DEFAULT '',
	homepage TEXT NOT NULL DEFAULT '',
	repository TEXT NOT NULL DEFAULT '',
	units INTEGER NOT NULL DEFAULT 0,
	bytes INTEGER NOT NULL DEFAULT 0,
	warnings TEXT NOT NULL DEFAULT '',
	extractor INTEGER NOT NULL DEFAULT 0,
	added_ns INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS pkg_versions_name ON pkg_versions(name COLLATE NOCASE, ecosystem);
-- One row per unit document: its kind and, for an API item, its symbol.
-- leaf is the symbol's last name part, lowercased ("persistentflags"),
-- so describe --symbol finds Command.PersistentFlags by PersistentFlags.
CREATE TABLE IF NOT EXISTS pkg_units(
	doc_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
	version_id INTEGER NOT NULL REFERENCES pkg_versions(id) ON DELETE CASCADE,
	kind TEXT NOT NULL,
	symbol TEXT NOT NULL DEFAULT '',
	symbol_kind TEXT NOT NULL DEFAULT '',
	signature TEXT NOT NULL DEFAULT '',
	leaf TEXT NOT NULL DEFAULT '',
	file TEXT NOT NULL DEFAULT '',
	line INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS pkg_units_version ON pkg_units(version_id, kind);
CREATE INDEX IF NOT EXISTS pkg_units_symbol ON pkg_units(version_id, symbol COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS pkg_units_leaf ON pkg_units(version_id, leaf);
CREATE TABLE IF NOT EXISTS pkg_projects(
	id INTEGER PRIMARY KEY,
	dir TEXT NOT NULL UNIQUE,
	fingerprint TEXT NOT NULL,
	options TEXT NOT NULL DEFAULT '',
	state TEXT NOT NULL DEFAULT '',
	updated_ns INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS pkg_project_versions(
	project_id INTEGER NOT NULL REFERENCES pkg_projects(id) ON DELETE CASCADE,
	version_id INTEGER NOT NULL REFERENCES pkg_versions(id),
	direct INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY(project_id, version_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS pkg_project_versions_version ON pkg_project_versions(version_id);
`

// PkgVersion is one stored package version.
type PkgVersion struct {
	ID int64
	// Key is "ecosystem:name@version", the collection of its units.
	Key                                    string
	Ecosystem, Name, Version               string
	Summary, License, Homepage, Repository string
	Units                                  int
	Bytes                                  int64
	Warnings                               []string
	// Extractor is the version of the extraction that made the docs; a
	// newer gno re-extracts older ones.
	Extractor int
	AddedNS   int64
}

// PkgUnit is one unit of a stored package version.
type PkgUnit struct {
	DocID     int64
	VersionID int64
	// Path and Title are the unit document's.
	Path, Title string
	// Kind is readme, doc, example or api.
	Kind string
	// Symbol, SymbolKind and Signature are set on API items.
	Symbol, SymbolKind, Signature string
	File                          string
	Line                          int
}

// PkgProject is a project folder whose dependencies are indexed.
type PkgProject struct {
	ID  int64
	Dir string
	// Fingerprint is packages.Fingerprint of Dir at the last indexing.
	Fingerprint string
	// Options are the discovery options it was indexed with, and State
	// what that run left to say (missing packages, warnings), both as
	// the caller encodes them.
	Options, State string
	UpdatedNS      int64
}

// PkgProjectVersion is a version a project uses.
type PkgProjectVersion struct {
	PkgVersion
	ProjectID int64
	Direct    bool
}

const pkgVersionCols = "id, key, ecosystem, name, version, summary, license, homepage, repository, units, bytes, warnings, extractor, added_ns"

func scanPkgVersion(sc interface{ Scan(...any) error }, extra ...any) (*PkgVersion, error) {
	v := &PkgVersion{}
	var warnings string
	dst := append([]any{&v.ID, &v.Key, &v.Ecosystem, &v.Name, &v.Version, &v.Summary, &v.License, &v.Homepage, &v.Repository,
		&v.Units, &v.Bytes, &warnings, &v.Extractor, &v.AddedNS}, extra...)
	if err := sc.Scan(dst...); err != nil {
		return nil, err
	}
	if warnings != "" {
		v.Warnings = strings.Split(warnings, "\n")
	}
	return v, nil
}

// PkgVersions returns the stored versions among keys, by key, in one
// snapshot.
func (s *Store) PkgVersions(ctx context.Context, keys []string) (map[string]*PkgVersion, error) {
	return readIn(ctx, s, func(ctx context.Context) (map[string]*PkgVersion, error) { return s.pkgVersions(ctx, keys) })
}

func (s *Store) pkgVersions(ctx context.Context, keys []string) (map[string]*PkgVersion, error) {
	out := map[string]*PkgVersion{}
	for len(keys) > 0 {
		n := min(len(keys), 500)
		args := make([]any, n)
		for i, k := range keys[:n] {
			args[i] = k
		}
		keys = keys[n:]
		rows, err := s.db.QueryContext(ctx, "SELECT "+pkgVersionCols+" FROM pkg_versions WHERE key IN ("+placeholders(n)+")", args...)
		if err != nil {
			return nil, fmt.Errorf("read package versions: %w", err)
		}
		for rows.Next() {
			v, err := scanPkgVersion(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[v.Key] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PkgVersionsNamed returns the stored versions of packages named name
// (case-insensitive), or whose last path element it is ("cobra" for
// github.com/spf13/cobra, "core" for @scope/core), of ecosystem when not
// empty, exact names first, newest added first.
func (s *Store) PkgVersionsNamed(ctx context.Context, name, ecosystem string) ([]*PkgVersion, error) {
	esc := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(name)
	q := "SELECT " + pkgVersionCols + ` FROM pkg_versions WHERE (name = ? COLLATE NOCASE OR name LIKE ? ESCAPE '\')`
	args := []any{name, "%/" + esc}
	if ecosystem != "" {
		q += " AND ecosystem = ?"
		args = append(args, ecosystem)
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY name != ? COLLATE NOCASE, added_ns DESC, id DESC", append(args, name)...)
	if err != nil {
		return nil, fmt.Errorf("read package versions: %w", err)
	}
	defer rows.Close()
	var out []*PkgVersion
	for rows.Next() {
		v, err := scanPkgVersion(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// symbolLeaf is the last part of a qualified name, lowercased:
// "Command.PersistentFlags", "de::Deserializer", "a.b.c.get".
func symbolLeaf(name string) string { return strings.ToLower(symbolLast(name)) }

// symbolLast is a symbol's last name part, as written.
func symbolLast(name string) string {
	if i := strings.LastIndexAny(name, ".:#/"); i >= 0 {
		name = name[i+1:]
	}
	return name
}

const pkgProjectCols = "id, dir, fingerprint, options, state, updated_ns"

func scanPkgProject(sc interface{ Scan(...any) error }) (*PkgProject, error) {
	p := &PkgProject{}
	return p, sc.Scan(&p.ID, &p.Dir, &p.Fingerprint, &p.Options, &p.State, &p.UpdatedNS)
}

// PkgProject returns the project indexed for dir, or ErrNotFound.
func (s *Store) PkgProject(ctx context.Context, dir string) (*PkgProject, error) {
	p, err := scanPkgProject(s.db.QueryRowContext(ctx, "SELECT "+pkgProjectCols+" FROM pkg_projects WHERE dir = ?", dir))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read project %s: %w", dir, err)
	}
	return p, nil
}

// PkgProjects lists every indexed project, by folder.
func (s *Store) PkgProjects(ctx context.Context) ([]*PkgProject, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+pkgProjectCols+" FROM pkg_projects ORDER BY dir")
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	defer rows.Close()
	var out []*PkgProject
	for rows.Next() {
		p, err := scanPkgProject(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SetPkgProject records that the project p.Dir uses the stored versions
// of keys (true for a direct dependency), replacing what it used before,
// in one transaction. Keys not stored are refused.
func (s *Store) SetPkgProject(ctx context.Context, p *PkgProject, keys map[string]bool) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record project %s: %w", p.Dir, err)
	}
	defer tx.Rollback()
	if p.UpdatedNS == 0 {
		p.UpdatedNS = time.Now().UnixNano()
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO pkg_projects(dir, fingerprint, options, state, updated_ns) VALUES(?,?,?,?,?)
		ON CONFLICT(dir) DO UPDATE SET fingerprint = excluded.fingerprint, options = excluded.options, state = excluded.state, updated_ns = excluded.updated_ns
		RETURNING id`, p.Dir, p.Fingerprint, p.Options, p.State, p.UpdatedNS).Scan(&p.ID)
	if err != nil {
		return fmt.Errorf("record project %s: %w", p.Dir, err)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM pkg_project_versions WHERE project_id = ?", p.ID); err != nil {
		return fmt.Errorf("record project %s: %w", p.Dir, err)
	}
	st, err := tx.PrepareContext(ctx, "INSERT INTO pkg_project_versions(project_id, version_id, direct) SELECT ?, id, ? FROM pkg_versions WHERE key = ?")
	if err != nil {
		return fmt.Errorf("record project %s: %w", p.Dir, err)
	}
	defer st.Close()
	for k, direct := range keys {
		res, err := st.ExecContext(ctx, p.ID, direct, k)
		if err != nil {
			return fmt.Errorf("record project %s: %w", p.Dir, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("record project %s: version %s is not stored", p.Dir, k)
		}
	}
	if err := bumpWrites(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// RemovePkgProject forgets a project; the versions it used stay until
// DropUnusedPkgVersions. It reports whether the project was there.
func (s *Store) RemovePkgProject(ctx context.Context, dir string) (bool, error) {
	res, err := s.db.ExecContext(ctx, "DELETE FROM pkg_projects WHERE dir = ?", dir)
	if err != nil {
		return false, fmt.Errorf("remove project %s: %w", dir, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// PkgProjectVersions returns the versions the projects use, sorted by
// ecosystem, name and version (a version used by two projects is listed
// twice, once per project).
func (s *Store) PkgProjectVersions(ctx context.Context, projectIDs []int64) ([]PkgProjectVersion, error) {
	if len(projectIDs) == 0 {
		return nil, nil
	}
	args := make([]any, len(projectIDs))
	for i, id := range projectIDs {
		args[i] = id
	}
	cols := strings.ReplaceAll(", "+pkgVersionCols, ", ", ", v.")[2:]
	rows, err := s.db.QueryContext(ctx, "SELECT "+cols+", pv.project_id, pv.direct FROM pkg_project_versions pv JOIN pkg_versions v ON v.id = pv.version_id WHERE pv.project_id IN ("+
		placeholders(len(args))+") ORDER BY v.ecosystem, v.name, v.version, pv.project_id", args...)
	if err != nil {
		return nil, fmt.Errorf("read project versions: %w", err)
	}
	defer rows.Close()
	var out []PkgProjectVersion
	for rows.Next() {
		var pv PkgProjectVersion
		v, err := scanPkgVersion(rows, &pv.ProjectID, &pv.Direct)
		if err != nil {
			return nil, err
		}
		pv.PkgVersion = *v
		out = append(out, pv)
	}
	return out, rows.Err()
}

const pkgUnitCols = "u.doc_id, u.version_id, d.rel_path, d.title, u.kind, u.symbol, u.symbol_kind, u.signature, u.file, u.line"

func (s *Store) pkgUnits(ctx context.Context, where string, args ...any) ([]PkgUnit, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+pkgUnitCols+" FROM pkg_units u JOIN documents d ON d.id = u.doc_id WHERE "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read package units: %w", err)
	}
	defer rows.Close()
	var out []PkgUnit
	for rows.Next() {
		var u PkgUnit
		if err := rows.Scan(&u.DocID, &u.VersionID, &u.Path, &u.Title, &u.Kind, &u.Symbol, &u.SymbolKind, &u.Signature, &u.File, &u.Line); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// PkgUnitsOf returns the units of documents by id (for search results).
func (s *Store) PkgUnitsOf(ctx context.Context, docIDs []int64) (map[int64]*PkgUnit, error) {
	out := map[int64]*PkgUnit{}
	if len(docIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(docIDs))
	for i, id := range docIDs {
		args[i] = id
	}
	us, err := s.pkgUnits(ctx, "u.doc_id IN ("+placeholders(len(args))+")", args...)
	for i := range us {
		out[us[i].DocID] = &us[i]
	}
	return out, err
}

// PkgUnitsOfVersion returns a version's units of kind ("" for all), in
// path order.
func (s *Store) PkgUnitsOfVersion(ctx context.Context, versionID int64, kind string) ([]PkgUnit, error) {
	if kind == "" {
		return s.pkgUnits(ctx, "u.version_id = ? ORDER BY d.rel_path", versionID)
	}
	return s.pkgUnits(ctx, "u.version_id = ? AND u.kind = ? ORDER BY d.rel_path", versionID, kind)
}

// PkgUnitQuery selects units of one version.
type PkgUnitQuery struct {
	VersionID int64
	// Kind is readme, doc, example or api ("" for all).
	Kind string
	// SymbolKind keeps API items of this kind only; NotSymbolKinds
	// leaves out those of these kinds (methods...).
	SymbolKind     string
	NotSymbolKinds []string
	// Limit bounds the rows (0: all), in path order.
	Limit int
}

// PkgUnitsWhere returns the units q selects, by path.
func (s *Store) PkgUnitsWhere(ctx context.Context, q PkgUnitQuery) ([]PkgUnit, error) {
	where := "u.version_id = ?"
	args := []any{q.VersionID}
	if q.Kind != "" {
		where += " AND u.kind = ?"
		args = append(args, q.Kind)
	}
	if q.SymbolKind != "" {
		where += " AND u.symbol_kind = ?"
		args = append(args, q.SymbolKind)
	}
	if len(q.NotSymbolKinds) > 0 {
		where += " AND u.symbol_kind NOT IN (" + placeholders(len(q.NotSymbolKinds)) + ")"
		for _, k := range q.NotSymbolKinds {
			args = append(args, k)
		}
	}
	where += " ORDER BY d.rel_path"
	if q.Limit > 0 {
		where += " LIMIT ?"
		args = append(args, q.Limit)
	}
	return s.pkgUnits(ctx, where, args...)
}

// PkgUnitCount counts a version's units of kind ("" for all).
func (s *Store) PkgUnitCount(ctx context.Context, versionID int64, kind string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM pkg_units WHERE version_id = ? AND (? = '' OR kind = ?)", versionID, kind, kind).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count package units: %w", err)
	}
	return n, nil
}

// PkgSymbol finds a version's API items named name: the qualified name
// (case-insensitive, the exact case first), else those whose last name
// part is name's, any case: those whose last part has name's exact case
// first ("click.decorators.command" is the function click.command, not
// the class click.Command), then the shortest.
func (s *Store) PkgSymbol(ctx context.Context, versionID int64, name string) ([]PkgUnit, error) {
	us, err := s.pkgUnits(ctx, "u.version_id = ? AND u.kind = 'api' AND u.symbol = ? COLLATE NOCASE ORDER BY u.symbol != ?, d.rel_path", versionID, name, name)
	if err != nil || len(us) > 0 {
		return us, err
	}
	// leaf is the symbol's last part lowercased, so the symbol ends with
	// that part: its last length(last) characters.
	last := symbolLast(name)
	return s.pkgUnits(ctx, "u.version_id = ? AND u.kind = 'api' AND u.leaf = ? ORDER BY substr(u.symbol, -length(?)) != ?, length(u.symbol), d.rel_path", versionID, strings.ToLower(last), last, last)
}

// DropUnusedPkgVersions forgets the versions no project uses and returns
// the keys of those that stay; Cleanup(ctx, keep) then drops the unit
// documents of the others and compacts the database.
func (s *Store) DropUnusedPkgVersions(ctx context.Context) (dropped int, keep []string, err error) {
	res, err := s.db.ExecContext(ctx, "DELETE FROM pkg_versions WHERE id NOT IN (SELECT version_id FROM pkg_project_versions)")
	if err != nil {
		return 0, nil, fmt.Errorf("drop unused package versions: %w", err)
	}
	n, _ := res.RowsAffected()
	rows, err := s.db.QueryContext(ctx, "SELECT key FROM pkg_versions ORDER BY key")
	if err != nil {
		return int(n), nil, fmt.Errorf("drop unused package versions: %w", err)
	}
	defer rows.Close()
	keep = []string{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return int(n), nil, err
		}
		keep = append(keep, k)
	}
	return int(n), keep, rows.Err()
}

// PkgVersionCount counts the stored versions.
func (s *Store) PkgVersionCount(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM pkg_versions").Scan(&n); err != nil {
		return 0, fmt.Errorf("count package versions: %w", err)
	}
	return n, nil
}

// PkgStats counts the stored versions, their unit documents, chunks and
// the chunks embedded with model, and the projects.
type PkgStats struct {
	Projects, Versions, Units, Chunks, Embedded int
}

// PkgStats counts what the package-docs index holds.
func (s *Store) PkgStats(ctx context.Context, model string) (PkgStats, error) {
	var st PkgStats
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM pkg_projects), (SELECT count(*) FROM pkg_versions),
		(SELECT count(*) FROM pkg_units), (SELECT count(*) FROM chunks),
		(SELECT count(*) FROM vectors WHERE model = ?)`, model).Scan(&st.Projects, &st.Versions, &st.Units, &st.Chunks, &st.Embedded)
	if err != nil {
		return st, fmt.Errorf("package index stats: %w", err)
	}
	return st, nil
}
