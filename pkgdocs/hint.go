package pkgdocs

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// EcosystemOfPath is the ecosystem whose packages a file of that name is
// written against: by its extension (".go", ".ts", ".py", ".rs",
// ".swift"…) or, for a manifest, by its name ("go.mod", "package.json",
// "pyproject.toml", "Cargo.toml"…). "" when the name says nothing (a
// README, a Makefile).
func EcosystemOfPath(path string) string {
	base := filepath.Base(strings.TrimSpace(filepath.FromSlash(path)))
	switch strings.ToLower(base) {
	case "go.mod", "go.sum", "go.work":
		return "go"
	case "package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "tsconfig.json", "jsconfig.json":
		return "npm"
	case "pyproject.toml", "setup.cfg", "pipfile", "pipfile.lock", "poetry.lock", "uv.lock":
		return "python"
	case "cargo.toml", "cargo.lock":
		return "rust"
	case "package.resolved":
		return "swift"
	}
	if strings.HasPrefix(strings.ToLower(base), "requirements") && strings.HasSuffix(base, ".txt") {
		return "python"
	}
	switch strings.ToLower(filepath.Ext(base)) {
	case ".go":
		return "go"
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".vue", ".svelte":
		return "npm"
	case ".py", ".pyi", ".pyw":
		return "python"
	case ".rs":
		return "rust"
	case ".swift":
		return "swift"
	}
	return ""
}

// searchScope resolves a search's scope. Without an ecosystem but with
// the path of the file the caller is editing, the file's ecosystem
// narrows the search, as if it had been given: a question asked while
// writing Go wants Go's answer, and in a project of several languages
// another ecosystem's item of the same meaning (tokio's Semaphore for a
// Go question) otherwise ranks first (bench/RESULTS.md, "the caller's
// ecosystem"). The hint never empties a search: when the projects have no
// package of that ecosystem (or not the named package in it), the whole
// scope is searched and a note says so.
func (x *Index) searchScope(ctx context.Context, req SearchRequest) (*scoped, error) {
	hint := ""
	if req.Ecosystem == "" && req.Path != "" {
		hint = EcosystemOfPath(req.Path)
	}
	if hint == "" {
		return x.scope(ctx, req.Projects, req.Package, req.Ecosystem, "", req.Auto)
	}
	s, err := x.scope(ctx, req.Projects, req.Package, hint, "", req.Auto)
	if err != nil && !gnoerr.Is(err, gnoerr.NotFound) {
		return nil, err
	}
	if err == nil && len(s.versions) > 0 {
		s.notes = append(s.notes, fmt.Sprintf("searched the %s packages only (the ecosystem of %s); pass ecosystem to choose another", hint, filepath.Base(req.Path)))
		return s, nil
	}
	var notes []string
	if s != nil {
		notes = s.notes // what the first resolution did (a project indexed on first use)
	}
	if s, err = x.scope(ctx, req.Projects, req.Package, "", "", req.Auto); err != nil {
		return nil, err
	}
	s.notes = append(append(notes, s.notes...), fmt.Sprintf("no %s package in scope for %s: searched every ecosystem", hint, filepath.Base(req.Path)))
	return s, nil
}
