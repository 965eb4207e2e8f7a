package apidoc

import (
	"bufio"
	"encoding/json"
	"net/textproto"
	"path"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// metadata fills Docs.Meta from the package's manifest: package.json,
// a wheel's METADATA, Cargo.toml; the licence file where the manifest
// names none.
func metadata(x *extractor) {
	m := &x.docs.Meta
	switch x.pkg.Ecosystem {
	case Go:
		m.Repository = goRepo(x.pkg.Name)
	case NPM:
		npmMeta(x, m)
	case Python:
		pyMeta(x, m)
	case Rust:
		cargoMeta(x, m)
	}
	if m.License == "" {
		m.License = licenseFromFiles(x)
	}
}

// goRepo: a module path on a known forge is its repository.
func goRepo(mod string) string {
	parts := strings.Split(mod, "/")
	if len(parts) >= 3 {
		switch parts[0] {
		case "github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "git.sr.ht":
			return "https://" + strings.Join(parts[:3], "/")
		}
	}
	return ""
}

// packageJSON is the part of package.json Extract reads.
type packageJSON struct {
	Description string          `json:"description"`
	License     json.RawMessage `json:"license"`
	Homepage    string          `json:"homepage"`
	Repository  json.RawMessage `json:"repository"`
	Types       string          `json:"types"`
	Typings     string          `json:"typings"`
	Main        string          `json:"main"`
	Module      string          `json:"module"`
	Exports     json.RawMessage `json:"exports"`
}

func (x *extractor) packageJSON() *packageJSON {
	if x.pj != nil {
		return x.pj
	}
	x.pj = &packageJSON{}
	data, _, err := x.readFile("package.json", false)
	if err != nil {
		x.warn("package.json", "not read: %v", cleanErr(err))
		return x.pj
	}
	if err := json.Unmarshal(data, x.pj); err != nil {
		x.warn("package.json", "not valid JSON: %v", err)
	}
	return x.pj
}

func npmMeta(x *extractor, m *Meta) {
	pj := x.packageJSON()
	m.Summary = strings.TrimSpace(pj.Description)
	m.Homepage = pj.Homepage
	m.License = stringOrField(pj.License, "type")
	m.Repository = cleanRepoURL(stringOrField(pj.Repository, "url"))
}

// stringOrField reads a JSON value that is a string or an object with
// that string field (npm's "license" and "repository").
func stringOrField(raw json.RawMessage, field string) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o map[string]any
	if json.Unmarshal(raw, &o) == nil {
		if v, ok := o[field].(string); ok {
			return v
		}
	}
	return ""
}

func cleanRepoURL(u string) string {
	u = strings.TrimPrefix(u, "git+")
	u = strings.TrimSuffix(u, ".git")
	if strings.HasPrefix(u, "github:") {
		u = "https://github.com/" + strings.TrimPrefix(u, "github:")
	} else if !strings.Contains(u, ":") && strings.Count(u, "/") == 1 {
		u = "https://github.com/" + u // npm's "owner/repo" shorthand
	}
	if strings.HasPrefix(u, "git://") {
		u = "https://" + strings.TrimPrefix(u, "git://")
	}
	return u
}

// distInfo finds the package's *.dist-info folder in Dir (a site-packages
// folder or an unpacked wheel).
func (x *extractor) distInfo() string {
	if x.pyDist != nil {
		return *x.pyDist
	}
	found := ""
	names, _ := readDirNames(x.fsys, ".")
	want := pyNorm(x.pkg.Name)
	for _, n := range names {
		if !strings.HasSuffix(n, ".dist-info") {
			continue
		}
		base := strings.TrimSuffix(n, ".dist-info")
		name, ver, _ := strings.Cut(base, "-")
		if pyNorm(name) == want && (x.pkg.Version == "" || ver == x.pkg.Version || found == "") {
			found = n
		}
	}
	x.pyDist = &found
	return found
}

var pyNormRe = regexp.MustCompile(`[-_.]+`)

func pyNorm(s string) string { return strings.ToLower(pyNormRe.ReplaceAllString(s, "_")) }

// pyMeta reads METADATA: headers for the metadata, the body (the long
// description, usually the README) for the README when no file has it.
func pyMeta(x *extractor, m *Meta) {
	di := x.distInfo()
	if di == "" {
		return
	}
	name := di + "/METADATA"
	data, _, err := x.readFile(name, false)
	if err != nil {
		x.warn(name, "not read: %v", cleanErr(err))
		return
	}
	s := validUTF8(x, name, data)
	r := textproto.NewReader(bufio.NewReader(strings.NewReader(s)))
	h, err := r.ReadMIMEHeader()
	if err != nil && len(h) == 0 {
		x.warn(name, "headers not parsed: %v", err)
		return
	}
	m.Summary = h.Get("Summary")
	m.License = h.Get("License-Expression")
	if m.License == "" {
		if l := h.Get("License"); l != "" && !strings.Contains(l, "\n") && len(l) < 100 {
			m.License = l
		}
	}
	if m.License == "" {
		for _, c := range h.Values("Classifier") {
			if strings.HasPrefix(c, "License ::") {
				parts := strings.Split(c, "::")
				m.License = strings.TrimSpace(parts[len(parts)-1])
			}
		}
	}
	m.Homepage = h.Get("Home-Page")
	for _, pu := range h.Values("Project-Url") {
		label, u, ok := strings.Cut(pu, ",")
		if !ok {
			continue
		}
		label, u = strings.ToLower(strings.TrimSpace(label)), strings.TrimSpace(u)
		switch {
		case strings.Contains(label, "source") || strings.Contains(label, "repository") || strings.Contains(label, "code"):
			if m.Repository == "" {
				m.Repository = u
			}
		case strings.Contains(label, "homepage") || strings.Contains(label, "documentation"):
			if m.Homepage == "" {
				m.Homepage = u
			}
		}
	}
	if i := strings.Index(s, "\n\n"); i >= 0 {
		x.readmeText = s[i+2:]
		x.readmeFrom = name
		x.readmeKind = "txt"
		ct := strings.ToLower(h.Get("Description-Content-Type"))
		switch {
		case strings.Contains(ct, "markdown"):
			x.readmeKind = "md"
		case strings.Contains(ct, "x-rst") || ct == "":
			x.readmeKind = "rst"
		}
	}
}

// cargoMeta reads the [package] table of Cargo.toml.
func cargoMeta(x *extractor, m *Meta) {
	data, _, err := x.readFile("Cargo.toml", false)
	if err != nil {
		x.warn("Cargo.toml", "not read: %v", cleanErr(err))
		return
	}
	var c struct {
		Package struct {
			Description   string `toml:"description"`
			License       string `toml:"license"`
			Homepage      string `toml:"homepage"`
			Repository    string `toml:"repository"`
			Documentation string `toml:"documentation"`
		} `toml:"package"`
	}
	if err := toml.Unmarshal(data, &c); err != nil {
		x.warn("Cargo.toml", "not parsed: %v", err)
		return
	}
	m.Summary = strings.Join(strings.Fields(c.Package.Description), " ")
	m.License = c.Package.License
	m.Homepage = c.Package.Homepage
	if m.Homepage == "" {
		m.Homepage = c.Package.Documentation
	}
	m.Repository = c.Package.Repository
}

// licenses are recognised by a phrase of their text.
var licenses = []struct{ id, phrase string }{
	{"Apache-2.0", "apache license"},
	{"MIT", "permission is hereby granted, free of charge"},
	{"BSD-3-Clause", "neither the name"},
	{"BSD-2-Clause", "redistribution and use in source and binary forms"},
	{"ISC", "permission to use, copy, modify, and/or distribute"},
	{"MPL-2.0", "mozilla public license"},
	{"LGPL", "gnu lesser general public license"},
	{"GPL", "gnu general public license"},
	{"Unlicense", "this is free and unencumbered software"},
}

// licenseFromFiles names the licences of LICENSE*, LICENCE* and COPYING*
// at the root, "MIT OR Apache-2.0" for Rust's usual pair.
func licenseFromFiles(x *extractor) string {
	names, _ := readDirNames(x.fsys, ".")
	var ids []string
	seen := map[string]bool{}
	for _, n := range names {
		l := strings.ToLower(n)
		if !strings.HasPrefix(l, "license") && !strings.HasPrefix(l, "licence") && !strings.HasPrefix(l, "copying") {
			continue
		}
		if e := path.Ext(l); e != "" && e != ".md" && e != ".txt" && !strings.Contains(l, "-") {
			continue
		}
		data, _, err := x.readFile(n, false)
		if err != nil || isBinary(data) {
			continue
		}
		if len(data) > 4096 {
			data = data[:4096]
		}
		t := strings.Join(strings.Fields(strings.ToLower(string(data))), " ")
		for _, lc := range licenses {
			if strings.Contains(t, lc.phrase) {
				if !seen[lc.id] {
					seen[lc.id] = true
					ids = append(ids, lc.id)
				}
				break
			}
		}
	}
	return strings.Join(ids, " OR ")
}
