package packages

import (
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// npmLock is what a lockfile says: the versions the project's own
// dependencies resolved to, and every package of the install.
type npmLock struct {
	file string
	root map[string]string // direct dependency → version
	all  []npmLockEntry
}

type npmLockEntry struct {
	name, version string
	optional      bool
}

// readNPMLock reads package-lock.json (v1–v3), npm-shrinkwrap.json or
// pnpm-lock.yaml (v5–v9), the first found; nil when none is there.
func (d *discovery) readNPMLock() *npmLock {
	for _, name := range []string{"npm-shrinkwrap.json", "package-lock.json", "pnpm-lock.yaml"} {
		p := d.path(name)
		if !exists(p) {
			continue
		}
		data, err := d.read.readFile(p, maxLockfile)
		if err != nil {
			d.warn(p, "cannot read: %v", err)
			continue
		}
		var l *npmLock
		if strings.HasSuffix(name, ".yaml") {
			l, err = parsePnpmLock(data)
		} else {
			l, err = parsePackageLock(data)
		}
		if err != nil {
			d.warn(p, "cannot parse, lockfile ignored: %v", err)
			continue
		}
		l.file = p
		return l
	}
	return nil
}

// parsePackageLock reads npm's lockfile: the flat "packages" map of v2
// and v3, else the nested "dependencies" tree of v1.
func parsePackageLock(data []byte) (*npmLock, error) {
	var doc struct {
		Packages map[string]struct {
			Name     string `json:"name"`
			Version  string `json:"version"`
			Optional bool   `json:"optional"`
			Link     bool   `json:"link"`
		} `json:"packages"`
		Dependencies map[string]json.RawMessage `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	l := &npmLock{root: map[string]string{}}
	if doc.Packages != nil {
		for path, e := range doc.Packages {
			i := strings.LastIndex(path, "node_modules/")
			if i < 0 || e.Link || e.Version == "" {
				continue
			}
			name := path[i+len("node_modules/"):]
			if e.Name != "" {
				name = e.Name
			}
			if !validNPMName(name) {
				continue
			}
			l.all = append(l.all, npmLockEntry{name: name, version: e.Version, optional: e.Optional})
			if i == 0 {
				l.root[path[len("node_modules/"):]] = e.Version
			}
		}
		return l, nil
	}
	var walk func(deps map[string]json.RawMessage, top bool, depth int) error
	walk = func(deps map[string]json.RawMessage, top bool, depth int) error {
		if depth > 200 {
			return fmt.Errorf("dependencies nested deeper than 200")
		}
		for name, raw := range deps {
			var e struct {
				Version      string                     `json:"version"`
				Optional     bool                       `json:"optional"`
				Dependencies map[string]json.RawMessage `json:"dependencies"`
			}
			if err := json.Unmarshal(raw, &e); err != nil {
				return fmt.Errorf("dependency %q: %w", name, err)
			}
			v := e.Version
			if alias, ok := strings.CutPrefix(v, "npm:"); ok {
				if n, ver, ok := splitNameVersion(alias); ok {
					name, v = n, ver
				}
			}
			if v == "" || !validNPMName(name) {
				continue
			}
			l.all = append(l.all, npmLockEntry{name: name, version: v, optional: e.Optional})
			if top {
				l.root[name] = v
			}
			if err := walk(e.Dependencies, false, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(doc.Dependencies, true, 0); err != nil {
		return nil, err
	}
	return l, nil
}

// parsePnpmLock reads pnpm-lock.yaml: the root importer (v6+ in
// workspaces, always in v9) or the top-level dependency maps (v5, v6),
// and the packages map whose keys are dependency paths.
func parsePnpmLock(data []byte) (*npmLock, error) {
	var doc struct {
		Importers            map[string]pnpmImporter `yaml:"importers"`
		Dependencies         map[string]any          `yaml:"dependencies"`
		DevDependencies      map[string]any          `yaml:"devDependencies"`
		OptionalDependencies map[string]any          `yaml:"optionalDependencies"`
		Packages             map[string]struct {
			Name     string `yaml:"name"`
			Version  string `yaml:"version"`
			Optional bool   `yaml:"optional"`
		} `yaml:"packages"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	l := &npmLock{root: map[string]string{}}
	addRoot := func(deps map[string]any) {
		for name, v := range deps {
			ver := ""
			switch x := v.(type) {
			case string:
				ver = x
			case map[string]any:
				ver, _ = x["version"].(string)
			}
			if n, v, ok := pnpmVersionRef(name, ver); ok && validNPMName(n) {
				l.root[n] = v
			}
		}
	}
	if imp, ok := doc.Importers["."]; ok {
		addRoot(imp.Dependencies)
		addRoot(imp.DevDependencies)
		addRoot(imp.OptionalDependencies)
	}
	addRoot(doc.Dependencies)
	addRoot(doc.DevDependencies)
	addRoot(doc.OptionalDependencies)
	for key, e := range doc.Packages {
		name, ver, ok := parsePnpmDepPath(key)
		if e.Name != "" && e.Version != "" {
			name, ver, ok = e.Name, e.Version, validNPMName(e.Name)
		}
		if ok {
			l.all = append(l.all, npmLockEntry{name: name, version: ver, optional: e.Optional})
		}
	}
	return l, nil
}

type pnpmImporter struct {
	Dependencies         map[string]any `yaml:"dependencies"`
	DevDependencies      map[string]any `yaml:"devDependencies"`
	OptionalDependencies map[string]any `yaml:"optionalDependencies"`
}

// pnpmVersionRef reads the version an importer gives a dependency:
// "1.2.3", with peers "1.2.3(react@18.2.0)" (v6+) or "1.2.3_react@18.2.0"
// (v5); an alias names another package ("string-width@4.2.3" in v9,
// "/string-width/4.2.3" in v5); "link:" is a workspace folder.
func pnpmVersionRef(name, ver string) (string, string, bool) {
	if ver == "" || strings.HasPrefix(ver, "link:") || strings.HasPrefix(ver, "file:") {
		return "", "", false
	}
	if i := strings.IndexByte(ver, '('); i > 0 {
		ver = ver[:i]
	}
	if ver[0] >= '0' && ver[0] <= '9' {
		if i := strings.IndexByte(ver, '_'); i > 0 {
			ver = ver[:i]
		}
		return name, ver, true
	}
	return parsePnpmDepPath(strings.TrimPrefix(ver, "npm:"))
}

// parsePnpmDepPath splits a pnpm dependency path into name and version:
// "/name/1.0.0" and "/@scope/name/1.0.0_peer@2.0.0" (v5, a registry host
// may lead), "/name@1.0.0(peer@2.0.0)" (v6), "name@1.0.0" (v9). Peer
// suffixes are dropped: they do not change the package's files.
func parsePnpmDepPath(s string) (name, version string, ok bool) {
	s = strings.TrimPrefix(s, "/")
	if i := strings.IndexByte(s, '('); i >= 0 {
		s = s[:i]
	}
	if n, v, ok := splitNameVersion(s); ok && !strings.Contains(v, "/") {
		return n, v, true
	}
	parts := strings.Split(s, "/")
	if len(parts) > 2 && strings.Contains(parts[0], ".") && !strings.HasPrefix(parts[0], "@") {
		parts = parts[1:] // v5: registry host first
	}
	switch {
	case len(parts) == 3 && strings.HasPrefix(parts[0], "@"):
		name, version = parts[0]+"/"+parts[1], parts[2]
	case len(parts) == 2 && !strings.HasPrefix(parts[0], "@"):
		name, version = parts[0], parts[1]
	default:
		return "", "", false
	}
	if i := strings.IndexByte(version, '_'); i > 0 {
		version = version[:i]
	}
	if !validNPMName(name) || version == "" {
		return "", "", false
	}
	return name, version, true
}

// splitNameVersion splits "name@version" or "@scope/name@version".
func splitNameVersion(s string) (string, string, bool) {
	if len(s) < 3 {
		return "", "", false
	}
	i := strings.IndexByte(s[1:], '@')
	if i < 0 {
		return "", "", false
	}
	name, ver := s[:i+1], s[i+2:]
	if !validNPMName(name) || ver == "" {
		return "", "", false
	}
	return name, ver, true
}

// validNPMName accepts "name" and "@scope/name" made of the characters
// npm allows (it lowercases new names, old ones may have capitals).
func validNPMName(s string) bool {
	scope, name, scoped := strings.Cut(s, "/")
	if scoped {
		if !strings.HasPrefix(scope, "@") || len(scope) < 2 || !npmNameChars(scope[1:]) {
			return false
		}
	} else {
		name = scope
		if strings.HasPrefix(name, "@") {
			return false
		}
	}
	return name != "" && !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_") && npmNameChars(name) && len(s) <= 214
}

func npmNameChars(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '-' || r == '.' || r == '_' || r == '~' || r == '!' || r == '*' || r == '\'' || r == '(' || r == ')':
		default:
			return false
		}
	}
	return true
}
