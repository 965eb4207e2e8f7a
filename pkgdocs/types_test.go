package pkgdocs

import (
	"context"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
	"github.com/gnosearch/gno/pkgdocs/packages"
	"github.com/gnosearch/gno/pkgdocs/pkgtest"
	"github.com/gnosearch/gno/retrieval"
)

// TestTypesCurrent: a stored npm version is re-read only when the
// @types package paired with it now would read it better (types where
// there were none, newer types): two projects pairing one version with
// different @types never re-read it in turn.
func TestTypesCurrent(t *testing.T) {
	read := &retrieval.PackageVersion{Warnings: []string{"lib/x.js: minified", apidoc.TypesNote + "@types/express@4.17.21: the package ships no declarations"}}
	plain := &retrieval.PackageVersion{Warnings: []string{"lib/x.js: minified"}}
	for _, c := range []struct {
		v    *retrieval.PackageVersion
		from string
		want bool
	}{
		{read, "@types/express@4.17.21", true},
		{read, "@types/express@4.17.22", false},  // @types upgraded
		{read, "@types/express@4.17.20", true},   // an older @types elsewhere
		{read, "", true},                         // @types removed, or a project without
		{read, "@types/express@4.17.9", true},    // numerically older
		{plain, "@types/express@4.17.21", false}, // @types installed since
		{plain, "", true},
	} {
		if got := typesCurrent(c.v, packages.Package{TypesFrom: c.from}); got != c.want {
			t.Errorf("stored %v, paired %q: %v, want %v", c.v.Warnings, c.from, got, c.want)
		}
	}
}

// TestTypesSharedVersion: express 4.21.2 read from @types/express in one
// project is reused, not re-read without types, by a project that has no
// @types/express: two such projects no longer re-extract it in turn.
func TestTypesSharedVersion(t *testing.T) {
	needClients(t)
	x := newIndex(t)
	typed := project(t, pkgtest.Project{NPM: []string{"express@4.21.2", "@types/express@4.17.21"}})
	plain := project(t, pkgtest.Project{NPM: []string{"express@4.21.2"}})
	res := add(t, x, typed, AddOptions{})
	if refs(res.Indexed) != "npm:express@4.21.2" {
		t.Fatalf("typed project indexed %s", refs(res.Indexed))
	}
	n := x.Extracted()
	if res := add(t, x, plain, AddOptions{}); len(res.Indexed) != 0 || x.Extracted() != n {
		t.Errorf("the project without @types re-read express: indexed %s", refs(res.Indexed))
	}
	d, err := x.Describe(context.Background(), DescribeRequest{Package: "express", Projects: []string{plain}})
	if err != nil || d.APITotal < 10 {
		t.Errorf("express for the project without @types: %d API items, %v", d.APITotal, err)
	}
}
