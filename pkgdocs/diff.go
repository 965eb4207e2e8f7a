package pkgdocs

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
	"github.com/gnosearch/gno/pkgdocs/packages"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// What changed between two versions of a dependency (`gno packages diff`,
// gno_package_changes): API items removed, with changed signatures,
// newly deprecated and added, computed from the two versions' stored
// units, and the package's changelog entries for the range. A version
// not stored is found in the package caches or fetched through its
// ecosystem's client, extracted and stored like any version (shared, and
// dropped by Cleanup when no project uses it).

// DiffRequest asks what changed in a package between two versions.
type DiffRequest struct {
	Package, Ecosystem string
	// From and To name the versions; empty ones default: the installed
	// version on one side, and on the other the newest other stored
	// version (with neither given) — the older of the two is From.
	From, To string
	Projects []string
	// Auto indexes a project never added (see SearchRequest).
	Auto bool
	// NoFetch finds a version not stored only in the package caches;
	// Offline lets the clients use their local caches only.
	NoFetch, Offline bool
	// MaxTokens bounds the answer (0: unbounded).
	MaxTokens int
	// Notes are added to the answer's notes (a front end's word).
	Notes []string
}

// DiffVersion is one side of a diff.
type DiffVersion struct {
	Version string `json:"version"`
	// Installed is set for the version the project uses.
	Installed bool `json:"installed"`
	// Fetched is set when this diff fetched and stored it.
	Fetched bool   `json:"fetched,omitempty"`
	URI     string `json:"uri"`
}

// APIChange is one API item that changed.
type APIChange struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Signature is the item's in To (in From for a removed item).
	Signature string `json:"signature,omitempty"`
	// Before is, for a changed item, its signature in From.
	Before string `json:"before,omitempty"`
	// Delta is, for a changed item whose signature spans lines (a
	// struct, a class, an interface), the lines only in From ("- ") and
	// only in To ("+ "), comments aside.
	Delta []string `json:"delta,omitempty"`
	// URI is the item's unit in To (in From for a removed item).
	URI string `json:"uri"`
}

// ChangeCounts counts each list before the budget cut it.
type ChangeCounts struct {
	Removed    int `json:"removed"`
	Changed    int `json:"changed"`
	Deprecated int `json:"deprecated"`
	Added      int `json:"added"`
	Changelog  int `json:"changelog"`
}

// ChangelogPart is the changelog's share of a diff.
type ChangelogPart struct {
	// File is the changelog read, in the version named by Version.
	File    string `json:"file"`
	Version string `json:"version"`
	// Known is false when its format was not recognised (no entries).
	Known   bool                    `json:"known"`
	Entries []apidoc.ChangelogEntry `json:"entries"`
}

// PackageChanges is the answer of Diff.
type PackageChanges struct {
	Ecosystem string      `json:"ecosystem"`
	Name      string      `json:"name"`
	From      DiffVersion `json:"from"`
	To        DiffVersion `json:"to"`
	// The API changes, each sorted by name.
	Removed    []APIChange  `json:"removed"`
	Changed    []APIChange  `json:"changed"`
	Deprecated []APIChange  `json:"deprecated"`
	Added      []APIChange  `json:"added"`
	Counts     ChangeCounts `json:"counts"`
	// Changelog is nil when neither version ships one.
	Changelog *ChangelogPart `json:"changelog,omitempty"`
	Truncated bool           `json:"truncated,omitempty"`
	// Cut says what the budget left out.
	Cut   []string `json:"cut,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// Diff answers what changed in a dependency between two versions.
func (x *Index) Diff(ctx context.Context, req DiffRequest) (*PackageChanges, error) {
	if strings.TrimSpace(req.Package) == "" {
		return nil, gnoerr.New(gnoerr.InvalidInput, "package is required")
	}
	if req.From != "" && req.From == req.To {
		return nil, gnoerr.New(gnoerr.InvalidInput, "from and to are the same version (%s)", req.From)
	}
	s, err := x.scope(ctx, req.Projects, req.Package, req.Ecosystem, "", req.Auto)
	if err != nil {
		return nil, err
	}
	installed := s.one(req.Package)
	if installed.Name == packages.StdlibName {
		return nil, gnoerr.New(gnoerr.InvalidInput, "the standard library is indexed at the toolchain's one version: there is no other to compare it with")
	}
	if installed.ProjectID == 0 {
		return nil, gnoerr.New(gnoerr.NotFound, "package %s is not a dependency of %s: see `gno packages list`", req.Package, strings.Join(s.Projects, ", "))
	}
	res := &PackageChanges{Ecosystem: installed.Ecosystem, Name: installed.Name, Notes: slices.Clone(req.Notes)}
	res.Notes = append(res.Notes, s.notes...)
	from, to, err := x.diffSides(ctx, s, installed, req, res)
	if err != nil {
		return nil, err
	}
	if apidoc.CompareVersions(from.Version, to.Version) > 0 && req.From == "" && req.To == "" {
		from, to = to, from
	}
	res.From = DiffVersion{Version: from.Version, Installed: from.Key == installed.Key, Fetched: from.fetched, URI: unitURI(from.ProjectVersion, "")}
	res.To = DiffVersion{Version: to.Version, Installed: to.Key == installed.Key, Fetched: to.fetched, URI: unitURI(to.ProjectVersion, "")}
	// The changelog is read from files (found again by discovery when
	// needed): outside the read snapshot, which only the API reads need.
	x.changelog(ctx, s, from, to, res)
	sctx, end, err := x.pk.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	if err := x.apiChanges(sctx, from.ProjectVersion, to.ProjectVersion, res); err != nil {
		return nil, err
	}
	res.Counts = ChangeCounts{Removed: len(res.Removed), Changed: len(res.Changed), Deprecated: len(res.Deprecated), Added: len(res.Added)}
	if res.Changelog != nil {
		res.Counts.Changelog = len(res.Changelog.Entries)
	}
	if req.MaxTokens > 0 {
		res.fit(req.MaxTokens)
	}
	return res, nil
}

// side is one version of a diff: stored, and where its files are when
// this run found them.
type side struct {
	retrieval.ProjectVersion
	fetched bool
	pkg     *packages.Package // its folder, when known
}

// diffSides picks and, when needed, stores the two versions compared.
func (x *Index) diffSides(ctx context.Context, s *scoped, installed retrieval.ProjectVersion, req DiffRequest, res *PackageChanges) (from, to side, err error) {
	inst := side{ProjectVersion: installed}
	fromV, toV := normVersion(installed.Ecosystem, req.From), normVersion(installed.Ecosystem, req.To)
	if fromV == "" && toV == "" {
		stored, err := x.pk.VersionsNamed(ctx, installed.Name, installed.Ecosystem)
		if err != nil {
			return from, to, err
		}
		var other *retrieval.PackageVersion
		for _, v := range stored {
			if v.Name != installed.Name || v.Key == installed.Key {
				continue
			}
			if other == nil || apidoc.CompareVersions(v.Version, other.Version) > 0 {
				other = v
			}
		}
		if other == nil {
			return from, to, gnoerr.New(gnoerr.NotFound, "%s %s %s is the only version stored: name the other with --to VERSION or --from VERSION (fetched through %s's client)",
				installed.Ecosystem, installed.Name, installed.Version, installed.Ecosystem)
		}
		return inst, side{ProjectVersion: retrieval.ProjectVersion{PkgVersion: *other}}, nil
	}
	get := func(v string) (side, error) {
		if v == "" || v == installed.Version {
			return inst, nil
		}
		return x.diffVersion(ctx, s, installed, v, req, res)
	}
	if from, err = get(fromV); err != nil {
		return from, to, err
	}
	if to, err = get(toV); err != nil {
		return from, to, err
	}
	if from.Key == to.Key {
		return from, to, gnoerr.New(gnoerr.InvalidInput, "both sides are %s %s: name another version with --from or --to", installed.Name, from.Version)
	}
	return from, to, nil
}

// normVersion writes a version as its ecosystem stores it: Go's keep
// their "v".
func normVersion(eco, v string) string {
	v = strings.TrimSpace(v)
	if eco == string(packages.Go) && v != "" && v[0] >= '0' && v[0] <= '9' {
		return "v" + v
	}
	return v
}

// diffVersion returns a version of the installed package, storing it
// first when it is not: found in the package caches or fetched through
// the ecosystem's client, then extracted like any version.
func (x *Index) diffVersion(ctx context.Context, s *scoped, installed retrieval.ProjectVersion, version string, req DiffRequest, res *PackageChanges) (side, error) {
	k := retrieval.PackageKey(installed.Ecosystem, installed.Name, version)
	stored, err := x.pk.Versions(ctx, []string{k})
	if err != nil {
		return side{}, err
	}
	if v := stored[k]; v != nil {
		return side{ProjectVersion: retrieval.ProjectVersion{PkgVersion: *v}}, nil
	}
	opt := packages.Options{Fetch: !req.NoFetch, Offline: req.Offline, CacheDir: x.opt.CacheDir, Env: x.opt.Env}
	p, err := packages.FetchVersion(ctx, diffProject(s), opt, packages.Ecosystem(installed.Ecosystem), installed.Name, version)
	if err != nil {
		if errors.Is(err, packages.ErrNoVersion) {
			msg := strings.TrimPrefix(err.Error(), packages.ErrNoVersion.Error()+": ")
			if vs, _ := x.pk.VersionsNamed(ctx, installed.Name, installed.Ecosystem); len(vs) > 0 {
				var have []string
				for _, v := range vs {
					if v.Name == installed.Name {
						have = append(have, v.Version)
					}
				}
				slices.SortFunc(have, apidoc.CompareVersions)
				msg += "; versions stored here: " + strings.Join(have, ", ")
			}
			return side{}, gnoerr.New(gnoerr.NotFound, "%s", msg)
		}
		return side{}, err
	}
	if p.Version != version { // "latest", or a version the client wrote otherwise
		if v := x.storedVersion(ctx, key(*p)); v != nil {
			return side{ProjectVersion: retrieval.ProjectVersion{PkgVersion: *v}, pkg: p}, nil
		}
	}
	d, err := apidoc.Extract(ctx, apiPackage(*p), x.opt.Limits)
	if err != nil {
		return side{}, gnoerr.Wrap(gnoerr.Internal, err, "%s %s %s: not readable", p.Ecosystem, p.Name, p.Version)
	}
	x.extracted.Add(1)
	w, err := x.pk.Writer(ctx, x.opt.LockWait)
	if err != nil {
		return side{}, err
	}
	defer w.Close()
	v, units := versionDocs(*p, d)
	if err := w.Put(ctx, v, units); err != nil {
		return side{}, err
	}
	res.Notes = append(res.Notes, fmt.Sprintf("%s %s stored for this diff (not used by any project: `gno cleanup` drops it)", p.Name, p.Version))
	return side{ProjectVersion: retrieval.ProjectVersion{PkgVersion: *v}, fetched: true, pkg: p}, nil
}

// storedVersion is the stored version of key, nil when none (or
// unreadable: the caller then stores it again).
func (x *Index) storedVersion(ctx context.Context, k string) *retrieval.PackageVersion {
	vs, err := x.pk.Versions(ctx, []string{k})
	if err != nil {
		return nil
	}
	return vs[k]
}

// diffProject is the project folder whose client settings a fetch uses.
func diffProject(s *scoped) string {
	if len(s.Projects) > 0 {
		return s.Projects[0]
	}
	return "."
}

// apiItem is one symbol of one version: its units' signatures joined
// (overloads are one item), and the lines compared: comments dropped,
// whitespace collapsed (a reworded field comment or a reformatted
// declaration is no API change).
type apiItem struct {
	kind, sig string
	lines     []string
	docIDs    []int64
	path      string
}

// maxSigShown bounds a signature in the answer (a Go struct or a Python
// class can be thousands of characters); the whole is at the item's URI.
const maxSigShown = 400

// maxDelta bounds the lines of a changed item's delta.
const maxDelta = 16

// apiOf reads a version's API items by symbol.
func (x *Index) apiOf(ctx context.Context, v retrieval.ProjectVersion) (map[string]*apiItem, error) {
	us, err := x.pk.UnitsWhere(ctx, retrieval.UnitQuery{VersionID: v.ID, Kind: apidoc.KindAPI})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*apiItem, len(us))
	for _, u := range us {
		if u.Symbol == "" {
			continue
		}
		it := out[u.Symbol]
		if it == nil {
			it = &apiItem{kind: u.SymbolKind, path: u.Path}
			out[u.Symbol] = it
		}
		if lines := sigLines(u.Signature); len(lines) > 0 && !containsAll(it.lines, lines) {
			if it.sig != "" {
				it.sig += "\n"
			}
			it.sig += strings.TrimSpace(u.Signature)
			it.lines = append(it.lines, lines...)
		}
		it.docIDs = append(it.docIDs, u.DocID)
	}
	return out, nil
}

// deprecatedDoc recognises a deprecation in an item's doc as each
// ecosystem writes it: Go's "Deprecated:" paragraph, JSDoc's
// @deprecated, Sphinx's ".. deprecated::", a @deprecated or
// @typing_extensions.deprecated decorator, DeprecationWarning raised in
// a docstring's example, Rust's #[deprecated] (which extraction writes
// into the doc as rustdoc shows it: "Deprecated since 1.2: …").
var deprecatedDoc = regexp.MustCompile(`(?im)(^\s*(?://\s*)?Deprecated:\s*[^"\s])|^Deprecated since\b|@(?:\w+\.)*deprecated\b|\.\. deprecated::|#\[deprecated\b|\bDeprecationWarning\b|^\s*\*{1,2}deprecated\*{0,2}\s*[:.!-]|^deprecated\.\s*$|\[deprecated\]`)

// deprecatedCode is a deprecation written in the declaration itself: a
// decorator or attribute line. Inside code blocks only these count: a
// JSDoc @deprecated there sits on one parameter (zod's custom(…, fatal)),
// not on the item.
var deprecatedCode = regexp.MustCompile(`(?i)^\s*(?:@(?:\w+\.)*deprecated\b|#\[deprecated\b)`)

// isDeprecated reads an item's unit text: its prose by deprecatedDoc,
// its code blocks (the signature, examples) by deprecatedCode. A README
// section attached to an undocumented item is not read: its words
// (a "[deprecated]" option, a DeprecationWarning in an example) are the
// README's, not the item's doc.
func isDeprecated(text string) bool {
	var prose strings.Builder
	fenced := false
	for _, l := range strings.Split(apidoc.OwnDoc(text), "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			if deprecatedCode.MatchString(l) {
				return true
			}
			continue
		}
		prose.WriteString(l)
		prose.WriteByte('\n')
	}
	return deprecatedDoc.MatchString(prose.String())
}

// deprecatedIn returns the symbols whose docs mark them deprecated.
func (x *Index) deprecatedIn(ctx context.Context, v retrieval.ProjectVersion, api map[string]*apiItem) (map[string]bool, error) {
	texts, err := x.pk.UnitTexts(ctx, v.ID, apidoc.KindAPI, "deprecat")
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	if len(texts) == 0 {
		return out, nil
	}
	for sym, it := range api {
		for _, id := range it.docIDs {
			if t, ok := texts[id]; ok && isDeprecated(t) {
				out[sym] = true
			}
		}
	}
	return out, nil
}

// apiChanges compares the two versions' API items.
func (x *Index) apiChanges(ctx context.Context, from, to retrieval.ProjectVersion, res *PackageChanges) error {
	a, err := x.apiOf(ctx, from)
	if err != nil {
		return err
	}
	b, err := x.apiOf(ctx, to)
	if err != nil {
		return err
	}
	depA, err := x.deprecatedIn(ctx, from, a)
	if err != nil {
		return err
	}
	depB, err := x.deprecatedIn(ctx, to, b)
	if err != nil {
		return err
	}
	res.Removed, res.Changed, res.Deprecated, res.Added = []APIChange{}, []APIChange{}, []APIChange{}, []APIChange{}
	for sym, it := range a {
		if _, ok := b[sym]; !ok {
			res.Removed = append(res.Removed, APIChange{Name: sym, Kind: it.kind, Signature: clip(it.sig, maxSigShown), URI: unitURI(from, it.path)})
		}
	}
	for sym, it := range b {
		old, ok := a[sym]
		c := APIChange{Name: sym, Kind: it.kind, Signature: clip(it.sig, maxSigShown), URI: unitURI(to, it.path)}
		switch {
		case !ok:
			res.Added = append(res.Added, c)
		case !slices.Equal(old.lines, it.lines) || old.kind != it.kind:
			c.Before = clip(old.sig, maxSigShown)
			if len(old.lines) > 1 || len(it.lines) > 1 {
				c.Delta = delta(old.lines, it.lines)
				// The delta says it: the whole declarations would repeat it.
				c.Signature, c.Before = firstLine(it.sig), firstLine(old.sig)
			}
			res.Changed = append(res.Changed, c)
		}
		if ok && depB[sym] && !depA[sym] {
			res.Deprecated = append(res.Deprecated, APIChange{Name: sym, Kind: it.kind, Signature: c.Signature, URI: c.URI})
		}
	}
	for _, l := range [][]APIChange{res.Removed, res.Changed, res.Deprecated, res.Added} {
		slices.SortFunc(l, func(p, q APIChange) int { return strings.Compare(p.Name, q.Name) })
	}
	return nil
}
