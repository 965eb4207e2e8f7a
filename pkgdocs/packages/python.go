package packages

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// pyDist is one installed distribution.
type pyDist struct {
	name, norm, version string
	info                string // its .dist-info or .egg-info, real path
	site                string
	meta                pyMetadata
	requires            []pyRequirement
}

// scanSite reads the distributions installed in site-packages folders.
func (d *discovery) scanSite(sites []string) map[string]*pyDist {
	dists := map[string]*pyDist{}
	for _, site := range sites {
		real, ents, err := d.read.readDir(site)
		if err != nil {
			d.warn(site, "cannot list: %v", err)
			continue
		}
		for _, e := range ents {
			n := e.Name()
			var metaFile string
			switch {
			case strings.HasSuffix(n, ".dist-info"):
				metaFile = filepath.Join(real, n, "METADATA")
			case strings.HasSuffix(n, ".egg-info"):
				metaFile = filepath.Join(real, n, "PKG-INFO")
				if e.Type().IsRegular() {
					metaFile = filepath.Join(real, n)
				}
			default:
				continue
			}
			info := filepath.Join(real, n)
			if _, err := d.read.resolve(info); err != nil {
				d.warn(info, "%v", err)
				continue
			}
			data, err := d.read.readFile(metaFile, maxManifest)
			if err != nil {
				d.warn(metaFile, "cannot read: %v", danglingError(metaFile, err))
				continue
			}
			m := parseMetadata(data)
			dist := &pyDist{name: m.get("name"), version: m.get("version"), info: info, site: real, meta: m}
			if dist.name == "" || dist.version == "" {
				d.warn(metaFile, "no Name or Version field, skipped")
				continue
			}
			dist.norm = normalizePyName(dist.name)
			for _, rd := range m.headers["requires-dist"] {
				if r, ok := parseRequirement(rd); ok {
					dist.requires = append(dist.requires, r)
				}
			}
			if old, ok := dists[dist.norm]; ok {
				d.warn(info, "%s is installed twice (also %s): the first kept", dist.name, d.rel(old.info))
				continue
			}
			dists[dist.norm] = dist
		}
	}
	return dists
}

// discoverPython finds the project's environment and reports the
// distributions installed there that it declares (or all the ones they
// need, with --all).
func discoverPython(ctx context.Context, d *discovery) (bool, []Package) {
	decl := d.readPyDecls()
	env := d.findPyEnv(decl.name)
	if !decl.found && env == nil {
		return false, nil
	}
	var dists map[string]*pyDist
	if env != nil {
		dists = d.scanSite(env.site)
	}
	self := normalizePyName(decl.name)
	menv := env.markers()
	type want struct {
		req    pyRequirement
		direct bool
	}
	var queue []want
	if len(decl.reqs) > 0 {
		for _, r := range decl.reqs {
			queue = append(queue, want{req: r, direct: true})
		}
	} else {
		// Nothing declared: the distributions no other one requires
		// are the direct ones (pip's seed packages aside). A
		// requirement counts only when its marker holds without extras:
		// httpx's `rich; extra == "cli"` leaves rich a direct package.
		needed := map[string]bool{}
		for _, x := range dists {
			for _, r := range x.requires {
				if markerHolds(r.marker, menv) {
					needed[normalizePyName(r.name)] = true
				}
			}
		}
		for _, n := range sortedKeys(dists) {
			if !needed[n] && n != self && !slices.Contains([]string{"pip", "setuptools", "wheel", "distribute"}, n) {
				queue = append(queue, want{req: pyRequirement{name: dists[n].name}, direct: true})
			}
		}
	}
	var pkgs []*Package
	byNorm := map[string]*Package{}
	extrasDone := map[string]bool{}
	var missing []pyMissing
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		norm := normalizePyName(w.req.name)
		if norm == self {
			continue
		}
		dist := dists[norm]
		p := byNorm[norm]
		if p == nil {
			if dist == nil {
				if w.req.optional || w.req.marker != "" && !w.direct || w.req.url != "" && !w.direct {
					continue // for another platform, or not from an index
				}
				p = &Package{Ecosystem: Python, Name: w.req.name, Version: decl.locked[norm], Direct: w.direct, Missing: "not installed"}
				if p.Version == "" {
					p.Version = w.req.pinned()
				}
				switch {
				case env == nil:
					p.Missing = "no Python environment found (.venv, venv, $VIRTUAL_ENV, Poetry)"
				case w.req.url != "":
					p.Missing = "not installed (from " + w.req.url + ")"
				case w.req.marker != "":
					p.Missing = "not installed (environment marker: " + w.req.marker + ")"
				}
				byNorm[norm] = p
				pkgs = append(pkgs, p)
				if w.req.url == "" && w.req.marker == "" {
					missing = append(missing, pyMissing{p, w.req})
				}
				continue
			}
			p = d.pyPackage(dist)
			if p == nil {
				continue
			}
			byNorm[norm] = p
			pkgs = append(pkgs, p)
		}
		p.Direct = p.Direct || w.direct
		if !d.opt.All || dist == nil {
			continue
		}
		// Follow Requires-Dist: those whose marker holds without an
		// extra, and those of the extras this dependency was asked with.
		for _, extra := range append([]string{""}, w.req.extras...) {
			key := norm + "[" + normalizePyName(extra) + "]"
			if extrasDone[key] {
				continue
			}
			extrasDone[key] = true
			for _, r := range dist.requires {
				ex := markerExtras(r.marker)
				if (extra == "" && len(ex) == 0) || (extra != "" && slices.Contains(ex, normalizePyName(extra))) {
					if !markerHolds(r.marker, menv.with(extra)) {
						continue // a platform or Python-version condition that does not apply
					}
					if dists[normalizePyName(r.name)] == nil && r.marker != "" {
						continue // a condition not known here, and not installed
					}
					queue = append(queue, want{req: r})
				}
			}
		}
	}
	d.pyFromCache(missing)
	if d.opt.Fetch {
		d.pyFetch(ctx, env, missing)
	}
	out := make([]Package, 0, len(pkgs))
	for _, p := range pkgs {
		if p.Version == "" && p.Dir == "" {
			p.Version = "latest"
		}
		out = append(out, *p)
	}
	return true, out
}

// pyMissing is a declared distribution that is not installed, with the
// requirement to fetch it by.
type pyMissing struct {
	p   *Package
	req pyRequirement
}

// pyPackage builds a Package from an installed distribution: metadata,
// and its source files from RECORD.
func (d *discovery) pyPackage(dist *pyDist) *Package {
	m := dist.meta
	home, repo := m.homeAndRepo()
	p := &Package{Ecosystem: Python, Name: dist.name, Version: dist.version, Summary: m.summaryLine(),
		License: m.license(), Homepage: home, Repository: repo,
		Description: m.description(), DescriptionType: m.get("description-content-type")}
	if editable := d.pyEditable(dist); editable != "" {
		p.Missing = editable
		return p
	}
	files, top := d.pyFiles(dist)
	p.Files = files
	p.Dir = dist.site
	if top != "" {
		if real, err := d.read.dir(filepath.Join(dist.site, top)); err == nil {
			p.Dir = real
		}
	}
	return p
}

// pyEditable says why an editable install is not read ("" when the dist
// is an ordinary install): its sources are a folder of the user's.
func (d *discovery) pyEditable(dist *pyDist) string {
	data, err := d.read.readFile(filepath.Join(dist.info, "direct_url.json"), 1<<20)
	if err != nil {
		return ""
	}
	var du struct {
		URL     string `json:"url"`
		DirInfo struct {
			Editable bool `json:"editable"`
		} `json:"dir_info"`
	}
	if json.Unmarshal(data, &du) != nil || !du.DirInfo.Editable {
		return ""
	}
	src := du.URL
	if u, err := url.Parse(du.URL); err == nil && u.Scheme == "file" {
		src = u.Path
	}
	return "editable install of " + src + ": not read"
}

// pyFiles lists a dist's Python sources from its RECORD (paths relative
// to site-packages; "../../bin/x" scripts and anything leaving
// site-packages are dropped) and picks its main import package: the
// top-level folder named like the dist, else the one with most files.
func (d *discovery) pyFiles(dist *pyDist) (files []string, top string) {
	rec := filepath.Join(dist.info, "RECORD")
	var paths []string
	if data, err := d.read.readFile(rec, maxLockfile); err == nil {
		paths = parseRecord(data)
	} else if data, err := d.read.readFile(filepath.Join(dist.info, "top_level.txt"), 1<<20); err == nil {
		for _, l := range strings.Fields(string(data)) {
			return nil, l // an egg-info: no file list, its top-level package only
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		d.warn(rec, "cannot read: %v", err)
	}
	count := map[string]int{}
	for _, rp := range paths {
		rel := filepath.FromSlash(rp)
		if !filepath.IsLocal(rel) || !(strings.HasSuffix(rel, ".py") || strings.HasSuffix(rel, ".pyi")) {
			continue
		}
		first, _, nested := strings.Cut(filepath.ToSlash(rel), "/")
		if strings.HasSuffix(first, ".dist-info") || strings.Contains(rel, "__pycache__") {
			continue
		}
		abs := filepath.Join(dist.site, rel)
		real, err := d.read.resolve(abs)
		if err != nil {
			if errors.Is(err, ErrOutside) {
				d.warn(abs, "%v", err)
			}
			continue
		}
		files = append(files, real)
		if nested {
			count[first]++
		}
	}
	want := strings.ReplaceAll(dist.norm, "-", "_")
	for k, n := range count {
		switch {
		case strings.EqualFold(k, want):
			return files, k
		case top == "" || n > count[top] || n == count[top] && k < top:
			top = k
		}
	}
	return files, top
}
