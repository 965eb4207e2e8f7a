package pkgdocs

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gnosearch/gno/pkgdocs/packages"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// Scope says which projects a read looked at and what it did to them.
type Scope struct {
	// Projects are the project folders read.
	Projects []string `json:"projects"`
	// Packages is how many package versions were searched.
	Packages int `json:"packages"`
}

// scoped is a resolved scope: the versions a read covers.
type scoped struct {
	Scope
	versions []retrieval.ProjectVersion
	notes    []string
}

// storedOptions is how a project's options are kept (pkg_projects.options),
// so a refresh re-runs discovery the way the user asked for.
type storedOptions struct {
	All        bool     `json:"all,omitempty"`
	Offline    bool     `json:"offline,omitempty"`
	NoFetch    bool     `json:"noFetch,omitempty"`
	Ecosystems []string `json:"ecosystems,omitempty"`
	NoStdlib   bool     `json:"noStdlib,omitempty"`
}

func (o AddOptions) stored() string {
	eco := slices.Clone(o.Ecosystems)
	slices.Sort(eco)
	b, _ := json.Marshal(storedOptions{All: o.All, Offline: o.Offline, NoFetch: o.NoFetch, Ecosystems: eco, NoStdlib: o.NoStdlib})
	return string(b)
}

func parseStored(s string) AddOptions {
	var so storedOptions
	_ = json.Unmarshal([]byte(s), &so)
	return AddOptions{All: so.All, Offline: so.Offline, NoFetch: so.NoFetch, Ecosystems: so.Ecosystems, NoStdlib: so.NoStdlib}
}

// project finds the indexed project of dir. With auto, a project never
// added is indexed now (installed packages only: no fetch from a read),
// and one whose manifests or lockfiles changed is re-indexed.
func (x *Index) project(ctx context.Context, dir string, auto bool, notes *[]string) (*retrieval.PackageProject, error) {
	real, err := realDir(dir)
	if err != nil {
		return nil, err
	}
	p, err := x.pk.Project(ctx, real)
	if err != nil || !auto {
		return p, err
	}
	if p != nil && x.fresh(real) {
		return p, nil
	}
	opt := AddOptions{NoFetch: true}
	if p != nil {
		opt = parseStored(p.Options)
		opt.NoFetch = true
	}
	opt.refresh = true
	res, err := x.Add(ctx, real, opt)
	if err != nil {
		if gnoerr.Is(err, gnoerr.Locked) && p != nil {
			*notes = append(*notes, "project not refreshed: another gno is writing the package index")
			return p, nil
		}
		return p, err
	}
	x.checked(real)
	if !res.Unchanged {
		what := "re-indexed (its dependencies changed)"
		if p == nil {
			what = "indexed on first use (installed packages only; `gno packages add` fetches missing ones)"
		}
		*notes = append(*notes, fmt.Sprintf("project %s %s: %d packages, %d new, %.0f ms", real, what, res.Packages, len(res.Indexed), res.DurationMS))
	}
	return x.pk.Project(ctx, real)
}

// scope resolves the versions a read covers: the projects' (each indexed
// on first use with auto), narrowed to a package name and ecosystem.
func (x *Index) scope(ctx context.Context, projects []string, pkg, eco, version string, auto bool) (*scoped, error) {
	if eco != "" && !slices.Contains(packages.Ecosystems, packages.Ecosystem(eco)) {
		return nil, gnoerr.New(gnoerr.InvalidInput, "ecosystem %q: want go, npm, python, rust or swift", eco)
	}
	s := &scoped{Scope: Scope{Projects: []string{}}}
	var ids []int64
	for _, dir := range projects {
		p, err := x.project(ctx, dir, auto, &s.notes)
		if err != nil {
			return nil, err
		}
		if p == nil {
			s.notes = append(s.notes, fmt.Sprintf("project %s has no indexed packages: run `gno packages add %s`", dir, dir))
			continue
		}
		s.Projects = append(s.Projects, p.Dir)
		ids = append(ids, p.ID)
	}
	vs, err := x.pk.ProjectVersions(ctx, ids...)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, v := range vs {
		if seen[v.Key] || eco != "" && v.Ecosystem != eco || version != "" && v.Version != version {
			continue
		}
		if pkg != "" && !nameMatches(v.Name, pkg) {
			continue
		}
		seen[v.Key] = true
		s.versions = append(s.versions, v)
	}
	if pkg != "" && len(s.versions) == 0 {
		// Not a dependency of these projects: a version stored for
		// another project still answers, and says so.
		stored, err := x.pk.VersionsNamed(ctx, pkg, eco)
		if err != nil {
			return nil, err
		}
		for _, v := range stored {
			if version == "" || v.Version == version {
				s.versions = append(s.versions, retrieval.ProjectVersion{PkgVersion: *v})
				s.notes = append(s.notes, fmt.Sprintf("%s %s is not a dependency of the project; answering from the version stored for another project", v.Name, v.Version))
				break
			}
		}
		if len(s.versions) == 0 {
			what := pkg
			if version != "" {
				what += " " + version
			}
			return nil, gnoerr.New(gnoerr.NotFound, "package %s is not among the indexed dependencies of %s: see `gno packages list`, or `gno packages add` after installing it", what, strings.Join(projects, ", "))
		}
	}
	s.Packages = len(s.versions)
	return s, nil
}

func (s *scoped) keys() []string {
	out := make([]string, len(s.versions))
	for i, v := range s.versions {
		out[i] = v.Key
	}
	return out
}

var pyNameSep = regexp.MustCompile(`[-_.]+`)

// nameMatches reports whether a package's name answers to what a user
// typed: the name itself (any case; Python's -, _ and . alike) or its
// short name ("cobra" for github.com/spf13/cobra, "core" for @scope/core).
func nameMatches(name, typed string) bool {
	if strings.EqualFold(name, typed) || strings.EqualFold(shortName(name), typed) {
		return true
	}
	norm := func(s string) string { return strings.ToLower(pyNameSep.ReplaceAllString(s, "-")) }
	return norm(name) == norm(typed)
}

// one picks the version a describe or get is about among the scope's:
// an exact name before a short-name match, a direct dependency before a
// transitive one. Others are named in a note.
func (s *scoped) one(pkg string) retrieval.ProjectVersion {
	best := s.versions[0]
	rank := func(v retrieval.ProjectVersion) int {
		r := 0
		if !strings.EqualFold(v.Name, pkg) {
			r += 2
		}
		if !v.Direct {
			r++
		}
		return r
	}
	for _, v := range s.versions[1:] {
		if rank(v) < rank(best) {
			best = v
		}
	}
	if len(s.versions) > 1 {
		var others []string
		for _, v := range s.versions {
			if v.Key != best.Key {
				others = append(others, v.Ecosystem+" "+v.Name+" "+v.Version)
			}
		}
		s.notes = append(s.notes, "also matching (pick with ecosystem or version): "+strings.Join(others, ", "))
	}
	return best
}

// freshFor is how long a project checked by a read counts as current:
// an agent's calls come in bursts, and a lockfile change is noticed by
// the next read after it.
const freshFor = 2 * time.Second

// fresh reports whether dir was checked less than freshFor ago.
func (x *Index) fresh(dir string) bool {
	x.checkMu.Lock()
	defer x.checkMu.Unlock()
	t, ok := x.lastCheck[dir]
	return ok && time.Since(t) < freshFor
}

// checked records that dir was just checked.
func (x *Index) checked(dir string) {
	x.checkMu.Lock()
	defer x.checkMu.Unlock()
	if x.lastCheck == nil {
		x.lastCheck = map[string]time.Time{}
	}
	x.lastCheck[dir] = time.Now()
}
