package pkgdocs

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ref"
)

// DescribeRequest asks for one package's overview, or one of its API
// items with Symbol.
type DescribeRequest struct {
	Package, Ecosystem, Version string
	// Symbol names an API item: qualified ("Command.PersistentFlags") or
	// its last part ("PersistentFlags").
	Symbol   string
	Projects []string
	// Auto as in SearchRequest.
	Auto bool
	// MaxTokens bounds the answer (0: unbounded).
	MaxTokens int
	// Notes are added to the answer's notes before the budget applies
	// (a front end's word on where the project came from).
	Notes []string
}

// PackageInfo is a package version's metadata.
type PackageInfo struct {
	Ecosystem  string `json:"ecosystem"`
	Name       string `json:"name"`
	Version    string `json:"version"`
	Summary    string `json:"summary,omitempty"`
	License    string `json:"license,omitempty"`
	Homepage   string `json:"homepage,omitempty"`
	Repository string `json:"repository,omitempty"`
	// Direct is set for a dependency the project declares itself.
	Direct bool   `json:"direct"`
	Units  int    `json:"units"`
	URI    string `json:"uri"`
}

// APIItem is one API item in a list.
type APIItem struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Signature string `json:"signature,omitempty"`
	URI       string `json:"uri"`
}

// SymbolDoc is one API item in full.
type SymbolDoc struct {
	APIItem
	Doc      string   `json:"doc,omitempty"`
	Examples []string `json:"examples,omitempty"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
}

// UnitRef names a unit (a doc file, an example).
type UnitRef struct {
	Path  string `json:"path"`
	Title string `json:"title,omitempty"`
	Kind  string `json:"kind"`
	URI   string `json:"uri"`
}

// Description is the answer of Describe.
type Description struct {
	Package PackageInfo `json:"package"`
	// Install and Usage are the README's sections about them (its intro
	// when it has no usage section).
	Install string `json:"install,omitempty"`
	Usage   string `json:"usage,omitempty"`
	// API is the top-level API (no methods or fields), APITotal how many
	// items it has in all (methods included).
	API      []APIItem `json:"api"`
	APITotal int       `json:"apiTotal"`
	// Docs are the doc files and examples.
	Docs []UnitRef `json:"docs,omitempty"`
	// Symbol is the item asked for; Matches other items of that name.
	Symbol    *SymbolDoc `json:"symbol,omitempty"`
	Matches   []APIItem  `json:"matches,omitempty"`
	Truncated bool       `json:"truncated,omitempty"`
	Notes     []string   `json:"notes,omitempty"`
}

// maxAPIList bounds the top-level API listed by describe, maxDocList
// each of its doc and example lists.
const (
	maxAPIList = 150
	maxDocList = 100
)

// memberKinds are API items listed under their type, not at the top.
var memberKinds = map[string]bool{apidoc.SymMethod: true, apidoc.SymProperty: true, apidoc.SymConstructor: true, apidoc.SymPackage: true}

// Describe answers what a package is, how to install and use it and what
// its API is; with Symbol, one item's signature, doc and examples.
func (x *Index) Describe(ctx context.Context, req DescribeRequest) (*Description, error) {
	if strings.TrimSpace(req.Package) == "" {
		return nil, gnoerr.New(gnoerr.InvalidInput, "package is required")
	}
	s, err := x.scope(ctx, req.Projects, req.Package, req.Ecosystem, req.Version, req.Auto)
	if err != nil {
		return nil, err
	}
	ctx, end, err := x.pk.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	v := s.one(req.Package)
	d := &Description{Package: info(v), API: []APIItem{}}
	// Only what is shown is read: a large package (date-fns, zod) has
	// thousands of units.
	if d.APITotal, err = x.pk.UnitCount(ctx, v.ID, apidoc.KindAPI); err != nil {
		return nil, err
	}
	var members []string
	for k := range memberKinds {
		members = append(members, k)
	}
	top, err := x.pk.UnitsWhere(ctx, retrieval.UnitQuery{VersionID: v.ID, Kind: apidoc.KindAPI, NotSymbolKinds: members, Limit: maxAPIList})
	if err != nil {
		return nil, err
	}
	for _, u := range top {
		d.API = append(d.API, item(v, u))
	}
	for _, kind := range []string{apidoc.KindDoc, apidoc.KindExample} {
		us, err := x.pk.UnitsWhere(ctx, retrieval.UnitQuery{VersionID: v.ID, Kind: kind, Limit: maxDocList})
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			d.Docs = append(d.Docs, UnitRef{Path: u.Path, Title: u.Title, Kind: u.Kind, URI: unitURI(v, u.Path)})
		}
	}
	readme, err := x.pk.UnitsWhere(ctx, retrieval.UnitQuery{VersionID: v.ID, Kind: apidoc.KindReadme, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(readme) == 1 {
		text, err := x.pk.Text(ctx, readme[0].DocID)
		if err != nil {
			return nil, err
		}
		d.Install, d.Usage = installUsage(text)
	}
	if d.Usage == "" {
		// No README: a Go package comment says how to use it.
		pkgDocs, err := x.pk.UnitsWhere(ctx, retrieval.UnitQuery{VersionID: v.ID, Kind: apidoc.KindAPI, SymbolKind: apidoc.SymPackage, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(pkgDocs) == 1 {
			text, err := x.pk.Text(ctx, pkgDocs[0].DocID)
			if err != nil {
				return nil, err
			}
			d.Usage, _ = apiParts(text)
		}
	}
	if len(d.API) == maxAPIList {
		d.Notes = append(d.Notes, fmt.Sprintf("top-level API cut to its first %d items (of %d items with members): ask for one with symbol, or search", maxAPIList, d.APITotal))
	}
	if req.Symbol != "" {
		if err := x.describeSymbol(ctx, v, req.Symbol, d); err != nil {
			return nil, err
		}
	}
	d.Notes = append(append(s.notes, req.Notes...), d.Notes...)
	if req.MaxTokens > 0 {
		d.fit(req.MaxTokens)
	}
	return d, nil
}

func (x *Index) describeSymbol(ctx context.Context, v retrieval.ProjectVersion, name string, d *Description) error {
	us, err := x.pk.Symbol(ctx, v.ID, name)
	if err != nil {
		return err
	}
	if len(us) == 0 {
		// Written another way: "Command#PersistentFlags()", "cobra.Command.PersistentFlags",
		// "errgroup.SetLimit", "de::Deserialize" for a "." name.
		if us, err = x.symbolNamed(ctx, v, name); err != nil {
			return err
		}
	}
	if len(us) == 0 {
		return gnoerr.New(gnoerr.NotFound, "no API item %q in %s %s %s: try a search, or describe without symbol for the list", name, v.Ecosystem, v.Name, v.Version)
	}
	u := us[0]
	text, err := x.pk.Text(ctx, u.DocID)
	if err != nil {
		return err
	}
	doc, examples := apiParts(text)
	// Examples some ecosystems keep as units of their own (a Swift doc's
	// code blocks, a JSDoc @example): "example/NAME", "example/NAME~2".
	exs, err := x.pk.Units(ctx, v.ID, apidoc.KindExample)
	if err != nil {
		return err
	}
	for _, e := range exs {
		if base, _, _ := strings.Cut(e.Path, "~"); base == "example/"+u.Symbol {
			t, err := x.pk.Text(ctx, e.DocID)
			if err != nil {
				return err
			}
			examples = append(examples, strings.TrimSpace(t))
		}
	}
	d.Symbol = &SymbolDoc{APIItem: item(v, u), Doc: doc, Examples: examples, File: u.File, Line: u.Line}
	for _, o := range us[1:] {
		d.Matches = append(d.Matches, item(v, o))
	}
	// The overview is not what was asked for: keep the answer short.
	d.Install, d.Usage, d.API, d.Docs = "", "", []APIItem{}, nil
	return nil
}

func info(v retrieval.ProjectVersion) PackageInfo {
	return PackageInfo{Ecosystem: v.Ecosystem, Name: v.Name, Version: v.Version, Summary: v.Summary, License: v.License,
		Homepage: v.Homepage, Repository: v.Repository, Direct: v.Direct, Units: v.Units, URI: unitURI(v, "")}
}

func item(v retrieval.ProjectVersion, u retrieval.PackageUnit) APIItem {
	return APIItem{Name: u.Symbol, Kind: u.SymbolKind, Signature: u.Signature, URI: unitURI(v, u.Path)}
}

func unitURI(v retrieval.ProjectVersion, path string) string {
	return ref.PackageURI(v.Ecosystem, v.Name, v.Version, path)
}

// Words that title a README's install and usage sections.
var (
	installWords = []string{"install", "getting started", "quick start", "quickstart", "setup", "download"}
	usageWords   = []string{"usage", "example", "quick start", "quickstart", "getting started", "how to use", "tutorial", "basic", "overview", "guide", "api"}
)

// maxSectionBytes bounds install and usage.
const maxSectionBytes = 4000

// installUsage picks a README's install and usage sections.
func installUsage(text string) (install, usage string) {
	secs := sections(text)
	used := map[string]bool{}
	if s, ok := findSection(text, secs, installWords, nil); ok {
		install = clip(text[s.Start:s.End], maxSectionBytes)
		used[strings.ToLower(s.Title)] = true
	}
	if s, ok := findSection(text, secs, usageWords, used); ok {
		usage = clip(text[s.Start:s.End], maxSectionBytes)
	} else {
		usage = clip(intro(text, secs), maxSectionBytes)
	}
	return strings.TrimSpace(install), strings.TrimSpace(usage)
}

// clip cuts s to about n bytes at a line boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutTokens(s, n/4)
}

// fit shortens a description to the budget: usage and install, then
// the doc list, the API list from its end, the symbol's examples and doc,
// and last the notes.
func (d *Description) fit(maxTokens int) {
	over := func() int { return tokensOf(d) - maxTokens }
	if over() <= 0 {
		return
	}
	d.Truncated = true
	d.Notes = append(d.Notes, fmt.Sprintf("truncated to fit %d tokens: ask for a symbol, or read a unit with gno_get_package_doc", maxTokens))
	shrink := func(f *string) {
		for i := 0; i < 8 && over() > 0 && *f != ""; i++ {
			n := chunk.EstimateTokens(*f) - over() - 10
			if n < 20 {
				*f = ""
				return
			}
			*f = cutTokens(*f, n)
		}
	}
	shrink(&d.Usage)
	shrink(&d.Install)
	if over() > 0 {
		docs := d.Docs
		d.Docs = docs[:keepFitting(len(docs), func(k int) bool { d.Docs = docs[:k]; return over() <= 0 })]
	}
	if over() > 0 {
		api := d.API
		d.API = api[:keepFitting(len(api), func(k int) bool { d.API = api[:k]; return over() <= 0 })]
	}
	if s := d.Symbol; s != nil {
		if over() > 0 {
			ex := s.Examples
			s.Examples = ex[:keepFitting(len(ex), func(k int) bool { s.Examples = ex[:k]; return over() <= 0 })]
		}
		shrink(&s.Doc)
	}
	for over() > 0 && len(d.Notes) > 1 {
		d.Notes = d.Notes[1:]
	}
}

// Text is the human form of a description.
func (d *Description) Text() string {
	var b strings.Builder
	p := d.Package
	fmt.Fprintf(&b, "%s %s %s", p.Ecosystem, p.Name, p.Version)
	if !p.Direct {
		b.WriteString(" (transitive)")
	}
	b.WriteByte('\n')
	for _, kv := range [][2]string{{"", p.Summary}, {"licence: ", p.License}, {"homepage: ", p.Homepage}, {"repository: ", p.Repository}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "%s%s\n", kv[0], kv[1])
		}
	}
	if s := d.Symbol; s != nil {
		fmt.Fprintf(&b, "\n%s %s\n%s\n", s.Kind, s.Name, s.URI)
		if s.Signature != "" {
			fmt.Fprintf(&b, "\n%s\n", s.Signature)
		}
		if s.Doc != "" {
			fmt.Fprintf(&b, "\n%s\n", s.Doc)
		}
		for i, e := range s.Examples {
			fmt.Fprintf(&b, "\nExample %d:\n%s\n", i+1, e)
		}
		for _, m := range d.Matches {
			fmt.Fprintf(&b, "\nalso: %s %s  %s", m.Kind, m.Name, m.URI)
		}
	}
	if d.Install != "" {
		fmt.Fprintf(&b, "\n== Install ==\n%s\n", d.Install)
	}
	if d.Usage != "" {
		fmt.Fprintf(&b, "\n== Usage ==\n%s\n", d.Usage)
	}
	if len(d.API) > 0 {
		fmt.Fprintf(&b, "\n== API (%d top-level of %d items) ==\n", len(d.API), d.APITotal)
		for _, a := range d.API {
			sig := a.Signature
			if sig == "" {
				sig = a.Kind + " " + a.Name
			}
			fmt.Fprintf(&b, "%s\n", oneLine(firstLine(sig), 200))
		}
	}
	if len(d.Docs) > 0 {
		b.WriteString("\n== Docs and examples ==\n")
		for _, u := range d.Docs {
			fmt.Fprintf(&b, "%s  %s\n", u.URI, oneLine(u.Title, 80))
		}
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "\nNote: %s", n)
	}
	return strings.TrimRight(b.String(), "\n")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
