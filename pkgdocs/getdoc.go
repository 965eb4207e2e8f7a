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

// GetDocRequest reads a package's docs: its README, one section (a
// heading of the README or a doc file, a unit path, an API item), or the
// units that best answer a query.
type GetDocRequest struct {
	Package, Ecosystem, Version string
	Section                     string
	Query                       string
	Projects                    []string
	Auto                        bool
	// MaxTokens bounds the answer (default DefaultMaxTokens).
	MaxTokens int
	// Notes are added to the answer's notes before the budget applies
	// (a front end's word on where the project came from).
	Notes []string
}

// DocPage is the answer of GetDoc.
type DocPage struct {
	Package PackageInfo `json:"package"`
	// Section is what was served: "readme", a heading, a unit path, or
	// the query.
	Section string `json:"section"`
	Content string `json:"content"`
	// Units are the units the content comes from.
	Units []UnitRef `json:"units"`
	// Sections are headings and doc units one can ask for next.
	Sections []string `json:"sections,omitempty"`
	// Truncated is set when the content was cut for the budget;
	// TotalTokens is what the whole would have cost.
	Truncated   bool     `json:"truncated,omitempty"`
	TotalTokens int      `json:"totalTokens"`
	Notes       []string `json:"notes,omitempty"`

	// parts are the texts of Units, for the budget to drop whole units.
	parts []string
}

// maxSections bounds the section list of a page.
const maxSections = 60

// GetDoc reads a package's docs within a token budget.
func (x *Index) GetDoc(ctx context.Context, req GetDocRequest) (*DocPage, error) {
	if strings.TrimSpace(req.Package) == "" {
		return nil, gnoerr.New(gnoerr.InvalidInput, "package is required")
	}
	if req.MaxTokens <= 0 {
		req.MaxTokens = DefaultMaxTokens
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
	units, err := x.pk.Units(ctx, v.ID, "")
	if err != nil {
		return nil, err
	}
	page := &DocPage{Package: info(v), Units: []UnitRef{}}
	texts := map[int64]string{}
	text := func(u retrieval.PackageUnit) (string, error) {
		if t, ok := texts[u.DocID]; ok {
			return t, nil
		}
		t, err := x.pk.Text(ctx, u.DocID)
		texts[u.DocID] = t
		return t, err
	}
	var readme *retrieval.PackageUnit
	for i, u := range units {
		if u.Kind == apidoc.KindReadme && readme == nil {
			readme = &units[i]
		}
	}
	// Sections to offer: README headings, then doc files.
	for _, u := range units {
		if u.Kind == apidoc.KindReadme {
			t, err := text(u)
			if err != nil {
				return nil, err
			}
			for _, sec := range sections(t) {
				if sec.Level <= 3 && len(page.Sections) < maxSections {
					page.Sections = append(page.Sections, sec.Title)
				}
			}
		}
	}
	for _, u := range units {
		if u.Kind == apidoc.KindDoc && len(page.Sections) < maxSections {
			page.Sections = append(page.Sections, u.Path)
		}
	}
	var body strings.Builder
	switch {
	case req.Section != "":
		if err := x.section(ctx, v, units, req.Section, text, page, &body); err != nil {
			return nil, err
		}
	case req.Query != "":
		res, err := x.pk.Run(ctx, retrieval.ModeQuery, retrieval.PackageSearch{
			QueryRequest: retrieval.QueryRequest{SearchRequest: retrieval.SearchRequest{Query: req.Query, Limit: 5}, Fast: true},
			Versions:     []string{v.Key}})
		if err != nil {
			return nil, err
		}
		page.Section = "query: " + req.Query
		byURI := map[string]retrieval.PackageUnit{}
		for _, u := range units {
			byURI[unitURI(v, u.Path)] = u
		}
		// A query that names an item, alone or among other words ("how
		// to use PersistentFlags"), serves it first.
		named, err := x.symbolsReferred(ctx, v, symbolRefs(req.Query, func(w string) bool { return nameMatches(v.Name, w) }))
		if err != nil {
			return nil, err
		}
		if len(named) > 0 {
			res.Results = append([]retrieval.Result{{URI: unitURI(v, named[0].Path)}}, res.Results...)
		}
		seen := map[string]bool{}
		for _, r := range res.Results {
			u, ok := byURI[r.URI]
			if !ok || seen[r.URI] {
				continue
			}
			seen[r.URI] = true
			t, err := text(u)
			if err != nil {
				return nil, err
			}
			part := fmt.Sprintf("<!-- %s -->\n%s\n\n", r.URI, strings.TrimSpace(t))
			body.WriteString(part)
			page.parts = append(page.parts, part)
			page.Units = append(page.Units, UnitRef{Path: u.Path, Title: u.Title, Kind: u.Kind, URI: r.URI})
		}
		if len(page.Units) == 0 {
			page.Notes = append(page.Notes, fmt.Sprintf("nothing in %s %s matches %q", v.Name, v.Version, req.Query))
		}
	case readme != nil:
		t, err := text(*readme)
		if err != nil {
			return nil, err
		}
		page.Section = "readme"
		body.WriteString(t)
		page.Units = append(page.Units, UnitRef{Path: readme.Path, Title: readme.Title, Kind: readme.Kind, URI: unitURI(v, readme.Path)})
	default:
		page.Section = "readme"
		page.Notes = append(page.Notes, "the package has no README: describe it for its API, or ask for a section")
	}
	page.Content = body.String()
	page.TotalTokens = chunk.EstimateTokens(page.Content)
	page.Notes = append(append(s.notes, req.Notes...), page.Notes...)
	page.fit(req.MaxTokens)
	return page, nil
}

// section serves one section: a unit path, an API item, or a heading of
// the README or a doc file.
func (x *Index) section(ctx context.Context, v retrieval.ProjectVersion, units []retrieval.PackageUnit, want string,
	text func(retrieval.PackageUnit) (string, error), page *DocPage, body *strings.Builder) error {
	page.Section = want
	serve := func(u retrieval.PackageUnit, t string) {
		body.WriteString(t)
		page.Units = append(page.Units, UnitRef{Path: u.Path, Title: u.Title, Kind: u.Kind, URI: unitURI(v, u.Path)})
	}
	// A search hit: its unit's URI, with "#L<line>" for the section
	// around that line of a README or doc file.
	if ref.IsPackageURI(want) {
		return x.hitSection(v, units, want, text, page, body)
	}
	for _, u := range units {
		if strings.EqualFold(u.Path, want) || strings.EqualFold(u.Path, "api/"+want) {
			t, err := text(u)
			if err != nil {
				return err
			}
			serve(u, t)
			return nil
		}
	}
	if us, err := x.pk.Symbol(ctx, v.ID, want); err != nil {
		return err
	} else if len(us) > 0 {
		t, err := text(us[0])
		if err != nil {
			return err
		}
		serve(us[0], t)
		return nil
	}
	// A heading path as a hit shows it ("User Guide > Working with Flags >
	// Persistent Flags"): the last heading, under the others.
	// find serves the first section of a README or doc file that match
	// picks.
	find := func(match func([]section) (section, bool)) (bool, error) {
		for _, u := range units {
			if u.Kind != apidoc.KindReadme && u.Kind != apidoc.KindDoc {
				continue
			}
			t, err := text(u)
			if err != nil {
				return false, err
			}
			if sec, ok := match(sections(t)); ok {
				serve(u, t[sec.Start:sec.End])
				page.Section = sec.Title
				return true, nil
			}
		}
		return false, nil
	}
	path := strings.Split(want, " > ")
	if len(path) > 1 {
		if ok, err := find(func(secs []section) (section, bool) { return sectionAt(secs, path) }); ok || err != nil {
			return err
		}
		want = path[len(path)-1]
	}
	// A heading: an exact title first, else one containing the words.
	lw := strings.ToLower(strings.TrimSpace(strings.TrimLeft(want, "#")))
	for pass := 0; pass < 2; pass++ {
		ok, err := find(func(secs []section) (section, bool) {
			for _, sec := range secs {
				title := strings.ToLower(sec.Title)
				if pass == 0 && title == lw || pass == 1 && strings.Contains(title, lw) {
					return sec, true
				}
			}
			return section{}, false
		})
		if ok || err != nil {
			return err
		}
	}
	return gnoerr.New(gnoerr.NotFound, "no section %q in %s %s %s: sections are %s", want, v.Ecosystem, v.Name, v.Version, strings.Join(page.Sections, "; "))
}

// fit cuts a page to the budget: the sections offered down to ten, whole
// units from the end (a query's), the content, the rest of the sections,
// and last the notes.
func (p *DocPage) fit(maxTokens int) {
	over := func() int { return tokensOf(p) - maxTokens }
	if over() <= 0 {
		return
	}
	p.Truncated = true
	p.Notes = append(p.Notes, fmt.Sprintf("content truncated to fit %d tokens (the whole is about %d): ask for a section (see sections) or narrow with query", maxTokens, p.TotalTokens))
	for over() > 0 && len(p.Sections) > 10 {
		p.Sections = p.Sections[:len(p.Sections)/2]
	}
	if over() > 0 && len(p.parts) > 1 {
		parts, units := p.parts, p.Units
		k := keepFitting(len(parts), func(k int) bool {
			p.Units, p.Content = units[:k], strings.Join(parts[:k], "")
			return over() <= 0
		})
		k = max(k, 1)
		p.parts, p.Units, p.Content = parts[:k], units[:k], strings.Join(parts[:k], "")
	}
	// JSON escaping costs more than the text: cut by what is over, again
	// until it fits.
	for i := 0; i < 12 && over() > 0 && p.Content != ""; i++ {
		n := chunk.EstimateTokens(p.Content) - over() - 10
		if n < 10 {
			p.Content = ""
			break
		}
		p.Content = cutTokens(p.Content, n)
	}
	if over() > 0 {
		secs := p.Sections
		p.Sections = secs[:keepFitting(len(secs), func(k int) bool { p.Sections = secs[:k]; return over() <= 0 })]
	}
	for over() > 0 && len(p.Notes) > 1 {
		p.Notes = p.Notes[1:]
	}
}

// Text is the human form of a page.
func (p *DocPage) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s — %s\n\n", p.Package.Ecosystem, p.Package.Name, p.Package.Version, p.Section)
	b.WriteString(strings.TrimRight(p.Content, "\n"))
	b.WriteByte('\n')
	if len(p.Sections) > 0 {
		fmt.Fprintf(&b, "\nSections: %s\n", strings.Join(p.Sections, "; "))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "\nNote: %s", n)
	}
	return strings.TrimRight(b.String(), "\n")
}

// sectionAt finds the section a heading path names: its last title, each
// earlier one a title of an enclosing section (any case, in order; the
// path may skip levels).
func sectionAt(secs []section, path []string) (section, bool) {
	last := strings.TrimSpace(path[len(path)-1])
	for i, sec := range secs {
		if !strings.EqualFold(sec.Title, last) {
			continue
		}
		// Walk the enclosing sections outwards, matching the path from its
		// end.
		k, level := len(path)-2, sec.Level
		for j := i - 1; j >= 0 && k >= 0; j-- {
			if secs[j].Level < level && secs[j].End >= sec.End {
				if strings.EqualFold(secs[j].Title, strings.TrimSpace(path[k])) {
					k--
				}
				level = secs[j].Level
			}
		}
		if k < 0 {
			return sec, true
		}
	}
	return section{}, false
}

// hitSection serves what a search hit's URI names: with "#L<line>" (or
// ":<line>") the section of a README or doc file around that line, else
// the whole unit.
func (x *Index) hitSection(v retrieval.ProjectVersion, units []retrieval.PackageUnit, uri string,
	text func(retrieval.PackageUnit) (string, error), page *DocPage, body *strings.Builder) error {
	line := 0
	if i := strings.LastIndex(uri, "#L"); i > 0 {
		n, rest := 0, uri[i+2:]
		for j := 0; j < len(rest) && rest[j] >= '0' && rest[j] <= '9' && n < 1<<24; j++ {
			n = n*10 + int(rest[j]-'0')
		}
		line, uri = n, uri[:i]
	}
	r, err := ref.ParsePackageURI(uri)
	if err != nil {
		return err
	}
	if !strings.EqualFold(r.Ecosystem, v.Ecosystem) || !nameMatches(v.Name, r.Name) || r.Version != v.Version {
		return gnoerr.New(gnoerr.InvalidInput, "section %s is not a unit of %s %s %s", uri, v.Ecosystem, v.Name, v.Version)
	}
	if r.Unit == "" {
		r.Unit = "readme.md"
	}
	for _, u := range units {
		if u.Path != r.Unit {
			continue
		}
		t, err := text(u)
		if err != nil {
			return err
		}
		page.Units = append(page.Units, UnitRef{Path: u.Path, Title: u.Title, Kind: u.Kind, URI: unitURI(v, u.Path)})
		if line > 0 && (u.Kind == apidoc.KindReadme || u.Kind == apidoc.KindDoc) {
			if sec, ok := sectionOfLine(sections(t), t, line); ok {
				body.WriteString(t[sec.Start:sec.End])
				page.Section = sec.Title
				return nil
			}
		}
		body.WriteString(t)
		return nil
	}
	return gnoerr.New(gnoerr.NotFound, "no unit %q in %s %s %s", r.Unit, v.Ecosystem, v.Name, v.Version)
}

// sectionOfLine is the innermost section holding line (1-based) of t.
func sectionOfLine(secs []section, t string, line int) (section, bool) {
	off, n := 0, 1
	for n < line {
		i := strings.IndexByte(t[off:], '\n')
		if i < 0 {
			return section{}, false
		}
		off += i + 1
		n++
	}
	var best section
	found := false
	for _, sec := range secs {
		if sec.Start <= off && off < sec.End && (!found || sec.Level >= best.Level) {
			best, found = sec, true
		}
	}
	return best, found
}
