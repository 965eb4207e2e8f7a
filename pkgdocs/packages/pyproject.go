package packages

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// pyDecls is what a Python project declares: its name, its
// dependencies, and the versions a lockfile pins.
type pyDecls struct {
	name   string
	reqs   []pyRequirement
	locked map[string]string // normalised name → version
	found  bool              // a manifest, requirements file or lockfile is there
}

// pyproject holds the parts of pyproject.toml that declare dependencies:
// PEP 621 [project], PEP 735 [dependency-groups], Poetry and uv tables.
type pyproject struct {
	Project struct {
		Name                 string              `toml:"name"`
		Dependencies         []string            `toml:"dependencies"`
		OptionalDependencies map[string][]string `toml:"optional-dependencies"`
	} `toml:"project"`
	DependencyGroups map[string][]any `toml:"dependency-groups"`
	Tool             struct {
		Poetry struct {
			Name            string         `toml:"name"`
			Dependencies    map[string]any `toml:"dependencies"`
			DevDependencies map[string]any `toml:"dev-dependencies"`
			Group           map[string]struct {
				Dependencies map[string]any `toml:"dependencies"`
			} `toml:"group"`
		} `toml:"poetry"`
		UV struct {
			DevDependencies []string `toml:"dev-dependencies"`
		} `toml:"uv"`
	} `toml:"tool"`
}

// readPyDecls reads pyproject.toml, requirements*.txt and a lockfile
// (poetry.lock, uv.lock, pdm.lock) when there.
func (d *discovery) readPyDecls() *pyDecls {
	pd := &pyDecls{locked: map[string]string{}}
	if p := d.path("pyproject.toml"); exists(p) {
		pd.found = true
		d.readPyproject(p, pd)
	}
	reqFiles, _ := filepath.Glob(d.path("requirements*.txt"))
	for _, extra := range []string{"requirements/base.txt", "requirements/dev.txt", "dev-requirements.txt"} {
		if p := d.path(extra); exists(p) {
			reqFiles = append(reqFiles, p)
		}
	}
	seen := map[string]bool{}
	for _, f := range reqFiles {
		pd.found = true
		d.readRequirements(f, pd, seen, 0)
	}
	for _, name := range []string{"poetry.lock", "uv.lock", "pdm.lock"} {
		p := d.path(name)
		if !exists(p) {
			continue
		}
		pd.found = true
		data, err := d.read.readFile(p, maxLockfile)
		if err != nil {
			d.warn(p, "cannot read: %v", err)
			continue
		}
		var lock struct {
			Package []struct{ Name, Version string } `toml:"package"`
		}
		if err := toml.Unmarshal(data, &lock); err != nil {
			d.warn(p, "cannot parse, lockfile ignored: %s", tomlError(err))
			continue
		}
		for _, x := range lock.Package {
			if x.Name != "" && x.Version != "" {
				pd.locked[normalizePyName(x.Name)] = x.Version
			}
		}
		break
	}
	return pd
}

func (d *discovery) readPyproject(p string, pd *pyDecls) {
	data, err := d.read.readFile(p, maxManifest)
	if err != nil {
		d.warn(p, "cannot read: %v", err)
		return
	}
	var pp pyproject
	if err := toml.Unmarshal(data, &pp); err != nil {
		d.warn(p, "cannot parse, its dependencies are unknown: %s", tomlError(err))
		return
	}
	pd.name = pp.Project.Name
	if pd.name == "" {
		pd.name = pp.Tool.Poetry.Name
	}
	add := func(s string, optional bool) {
		if r, ok := parseRequirement(s); ok {
			r.optional = optional
			pd.reqs = append(pd.reqs, r)
		} else {
			d.warn(p, "dependency %q not understood, skipped", s)
		}
	}
	for _, s := range pp.Project.Dependencies {
		add(s, false)
	}
	for _, g := range sortedKeys(pp.Project.OptionalDependencies) {
		for _, s := range pp.Project.OptionalDependencies[g] {
			add(s, true)
		}
	}
	for _, g := range sortedKeys(pp.DependencyGroups) {
		for _, x := range pp.DependencyGroups[g] {
			if s, ok := x.(string); ok {
				add(s, false) // tables are {include-group = "..."}, met in their own group
			}
		}
	}
	for _, s := range pp.Tool.UV.DevDependencies {
		add(s, false)
	}
	poetry := []map[string]any{pp.Tool.Poetry.Dependencies, pp.Tool.Poetry.DevDependencies}
	for _, g := range sortedKeys(pp.Tool.Poetry.Group) {
		poetry = append(poetry, pp.Tool.Poetry.Group[g].Dependencies)
	}
	for _, deps := range poetry {
		for _, name := range sortedKeys(deps) {
			if strings.EqualFold(name, "python") {
				continue
			}
			r := pyRequirement{name: name}
			switch v := deps[name].(type) {
			case string:
				r.spec = poetrySpec(v)
			case map[string]any:
				if s, ok := v["version"].(string); ok {
					r.spec = poetrySpec(s)
				}
				if m, ok := v["markers"].(string); ok {
					r.marker = m
				}
				r.optional = v["optional"] == true
				if _, ok := v["path"]; ok {
					continue // a local folder: the project's own code
				}
				if _, ok := v["git"]; ok {
					r.url = "git"
				}
			}
			pd.reqs = append(pd.reqs, r)
		}
	}
}

// poetrySpec keeps a Poetry version constraint only when it is also PEP
// 440 (Poetry's ^ and ~ are not): pip is given it when fetching.
func poetrySpec(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" || strings.ContainsAny(s[:1], "^~") || strings.Contains(s, "||") {
		return ""
	}
	if s[0] >= '0' && s[0] <= '9' {
		return "==" + s // Poetry's bare version is exact
	}
	return s
}

// readRequirements reads a requirements file and those it includes with
// -r, inside the project only.
func (d *discovery) readRequirements(p string, pd *pyDecls, seen map[string]bool, depth int) {
	if seen[p] || depth > 10 {
		return
	}
	seen[p] = true
	data, err := d.read.readFile(p, maxManifest)
	if err != nil {
		d.warn(p, "cannot read: %v", err)
		return
	}
	for _, l := range parseRequirementsFile(data) {
		if l.include != "" {
			inc := filepath.Join(filepath.Dir(p), filepath.FromSlash(l.include))
			if !within(d.dir, filepath.Clean(inc)) {
				d.warn(p, "-r %s is outside the project: not read", l.include)
				continue
			}
			d.readRequirements(inc, pd, seen, depth+1)
			continue
		}
		pd.reqs = append(pd.reqs, l.req)
	}
}

// tomlError gives go-toml's error with its line and column.
func tomlError(err error) string {
	if de, ok := err.(*toml.DecodeError); ok {
		row, col := de.Position()
		return strings.TrimSpace(de.Error()) + " (line " + strconv.Itoa(row) + ", column " + strconv.Itoa(col) + ")"
	}
	return err.Error()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
