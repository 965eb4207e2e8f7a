package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/pkgdocs"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/display"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server/auth"
	"github.com/mark3labs/mcp-go/mcp"
)

// The package-docs tools are always registered (a `gno mcp install` user
// has them with no extra step) and read-only: a project never added is
// indexed on first use from what is installed (no client is run, nothing
// is fetched), which writes only gno's own package index.
func packageTools() []toolDef {
	return []toolDef{
		{name: "gno_search_package_docs", title: "Search dependency docs", input: searchPackageDocsInput, output: searchPackageDocsOutput,
			desc: "Search the docs of the project's dependencies at the exact versions it uses (Go, npm, Python, Rust, Swift): API items with signatures and doc comments, README sections, docs and examples; the standard library of its toolchain too, as package \"stdlib\" (Go, Python with its built-ins, Node via @types/node, Rust). " +
				"A query that names an item (PersistentFlags, errgroup.SetLimit, z.string().email()) returns it first. Each result names its package {ecosystem, name, version} and, for an API item, its symbol {name, kind, signature}; its snippet is the whole unit (doc and first example, or the prose passage). " +
				"Narrow with package or ecosystem, or pass path (the file you are editing) to search its language's packages; read a hit with gno_get (its gno://pkg/ URI), or its whole section with gno_get_package_doc (section: the URI#L<line> or the headings).",
			readOnly: true, idempotent: true, run: (*Server).searchPackageDocs},
		{name: "gno_describe_package", title: "Describe a dependency", input: describePackageInput, output: describePackageOutput,
			desc: "A dependency of the project at its installed version: summary, licence, install and usage from its README, and its top-level API as signatures. " +
				"With symbol: that one API item's signature, doc comment and examples. The standard library is package \"stdlib\" with its ecosystem.",
			readOnly: true, idempotent: true, run: (*Server).describePackage},
		{name: "gno_get_package_doc", title: "Read dependency docs", input: getPackageDocInput, output: getPackageDocOutput,
			desc: "Read a dependency's docs within a token budget: its README (filtered to install, usage, API and examples), one section (a heading, a doc file, an API item), or the units best matching a query. " +
				"Lists the sections one can ask for; says when the content was truncated.",
			readOnly: true, idempotent: true, run: (*Server).getPackageDoc},
		{name: "gno_package_changes", title: "What changed in a dependency", input: packageChangesInput, output: packageChangesOutput,
			desc: "What changed in a dependency between two versions, for an upgrade: API items removed, with changed signatures, newly deprecated and added, and the package's changelog entries for that range. " +
				"Compares the installed version with `to` (or `from`), default the newest other version stored; a version not stored is fetched through the ecosystem's client (go, npm, pip, cargo) and stored (with a read-only access token: only versions stored or in the package caches). " +
				"Both versions are always named; what the budget cuts goes removed last, changelog first, and is listed in cut.",
			readOnly: true, idempotent: true, run: (*Server).packageChanges},
	}
}

// packages opens the package-docs index on first use.
func (s *Server) packages(ctx context.Context) (*pkgdocs.Index, error) {
	s.pkgMu.Lock()
	defer s.pkgMu.Unlock()
	if s.pkgs != nil {
		return s.pkgs, nil
	}
	if s.opts.OpenPackages == nil {
		return nil, gnoerr.New(gnoerr.Unavailable, "package docs are not configured in this server")
	}
	x, err := s.opts.OpenPackages(ctx)
	if err != nil {
		return nil, fmt.Errorf("open package index: %w", err)
	}
	s.pkgs = x
	return x, nil
}

func (s *Server) searchPackageDocs(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	req := pkgdocs.SearchRequest{Query: a.str("query"), Package: a.str("package"), Ecosystem: a.str("ecosystem"),
		Path: a.str("path"), Limit: a.int("limit", 5), Mode: a.str("mode"), MaxTokens: a.int("maxTokens", pkgdocs.DefaultMaxTokens), Auto: true}
	if err := (&retrieval.SearchRequest{Query: req.Query}).Validate(); err != nil {
		return nil, "", err
	}
	x, err := s.packages(ctx)
	if err != nil {
		return nil, "", err
	}
	req.Projects, req.Notes = s.projectDirs(ctx, a)
	res, err := x.Search(ctx, req)
	if err != nil {
		return nil, "", err
	}
	return res, res.Text(), nil
}

func (s *Server) describePackage(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	x, err := s.packages(ctx)
	if err != nil {
		return nil, "", err
	}
	req := pkgdocs.DescribeRequest{Package: a.str("package"), Ecosystem: a.str("ecosystem"), Version: a.str("version"),
		Symbol: a.str("symbol"), MaxTokens: a.int("maxTokens", pkgdocs.DefaultMaxTokens), Auto: true}
	req.Projects, req.Notes = s.projectDirs(ctx, a)
	d, err := x.Describe(ctx, req)
	if err != nil {
		return nil, "", err
	}
	return d, d.Text(), nil
}

func (s *Server) getPackageDoc(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	x, err := s.packages(ctx)
	if err != nil {
		return nil, "", err
	}
	req := pkgdocs.GetDocRequest{Package: a.str("package"), Ecosystem: a.str("ecosystem"), Version: a.str("version"),
		Section: a.str("section"), Query: a.str("query"), MaxTokens: a.int("maxTokens", pkgdocs.DefaultMaxTokens), Auto: true}
	req.Projects, req.Notes = s.projectDirs(ctx, a)
	p, err := x.GetDoc(ctx, req)
	if err != nil {
		return nil, "", err
	}
	return p, p.Text(), nil
}

func (s *Server) packageChanges(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	x, err := s.packages(ctx)
	if err != nil {
		return nil, "", err
	}
	req := pkgdocs.DiffRequest{Package: a.str("package"), Ecosystem: a.str("ecosystem"), From: a.str("from"), To: a.str("to"),
		MaxTokens: a.int("maxTokens", pkgdocs.DefaultMaxTokens), Auto: true,
		// A read-only token reads what is stored or in the package caches:
		// fetching runs the ecosystem's client and writes the index.
		NoFetch: !auth.CanWrite(ctx)}
	req.Projects, req.Notes = s.projectDirs(ctx, a)
	d, err := x.Diff(ctx, req)
	if err != nil {
		return nil, "", err
	}
	return d, d.Text(), nil
}

// getPackageUnit serves gno_get and resources/read for a gno://pkg/ URI.
func (s *Server) getPackageUnit(ctx context.Context, req retrieval.GetRequest) (*retrieval.Document, error) {
	x, err := s.packages(ctx)
	if err != nil {
		return nil, err
	}
	return x.Packages().Get(ctx, req)
}

// getPackage is gno_get for a unit of a dependency's docs.
func (s *Server) getPackage(ctx context.Context, a args) (any, string, error) {
	d, err := s.getPackageUnit(ctx, retrieval.GetRequest{Ref: a.str("ref"), FromLine: a.int("fromLine", 0), LineCount: a.int("lineCount", 0)})
	if err != nil {
		return nil, "", err
	}
	text := d.Content
	if a.bool("lineNumbers", true) {
		text = strings.TrimSuffix(display.NumberLines(d.Content, d.ReturnedLines.Start), "\n")
	}
	return d, text, nil
}
