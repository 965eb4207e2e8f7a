package packages

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// swiftPin is one pinned package of Package.resolved, whatever its format.
type swiftPin struct {
	identity string // lower-case identity (v2+), or derived from the URL (v1)
	name     string // v1's "package" name, when given
	location string // repository URL or path
	version  string
	branch   string
	revision string
}

// parsePackageResolved reads SwiftPM's Package.resolved: v1
// ({"object": {"pins": [{"package", "repositoryURL", "state"}]}}) and v2
// and v3 ({"pins": [{"identity", "kind", "location", "state"}]}; v3 adds
// "originHash"). encoding/json does the parsing; this only maps formats.
func parsePackageResolved(data []byte) ([]swiftPin, error) {
	type state struct {
		Version  *string `json:"version"`
		Branch   *string `json:"branch"`
		Revision *string `json:"revision"`
	}
	var doc struct {
		Version int `json:"version"`
		Object  *struct {
			Pins []struct {
				Package       string `json:"package"`
				RepositoryURL string `json:"repositoryURL"`
				State         state  `json:"state"`
			} `json:"pins"`
		} `json:"object"`
		Pins []struct {
			Identity string `json:"identity"`
			Kind     string `json:"kind"`
			Location string `json:"location"`
			State    state  `json:"state"`
		} `json:"pins"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	var pins []swiftPin
	switch {
	case doc.Version == 1 || doc.Object != nil:
		if doc.Object == nil {
			return nil, fmt.Errorf("version 1 without \"object\"")
		}
		for _, p := range doc.Object.Pins {
			pins = append(pins, swiftPin{identity: swiftIdentity(p.RepositoryURL), name: p.Package, location: p.RepositoryURL,
				version: deref(p.State.Version), branch: deref(p.State.Branch), revision: deref(p.State.Revision)})
		}
	case doc.Version == 2 || doc.Version == 3 || doc.Pins != nil:
		for _, p := range doc.Pins {
			id := strings.ToLower(p.Identity)
			if id == "" {
				id = swiftIdentity(p.Location)
			}
			pins = append(pins, swiftPin{identity: id, location: p.Location,
				version: deref(p.State.Version), branch: deref(p.State.Branch), revision: deref(p.State.Revision)})
		}
	default:
		return nil, fmt.Errorf("unknown format version %d", doc.Version)
	}
	for i := range pins {
		if pins[i].identity == "" {
			return nil, fmt.Errorf("pin %d has neither identity nor location", i+1)
		}
	}
	return pins, nil
}

// swiftIdentity is SwiftPM's identity of a repository URL: its last path
// component without ".git", lower case.
func swiftIdentity(location string) string {
	s := strings.TrimRight(strings.TrimSpace(location), "/")
	if i := strings.LastIndexAny(s, "/:"); i >= 0 {
		s = s[i+1:]
	}
	return strings.ToLower(strings.TrimSuffix(s, ".git"))
}

// versionLabel is the pin's version, else "branch@revision", else the
// revision.
func (p swiftPin) versionLabel() string {
	switch {
	case p.version != "":
		return p.version
	case p.branch != "" && p.revision != "":
		return p.branch + "@" + shortRev(p.revision)
	default:
		return shortRev(p.revision)
	}
}

func shortRev(r string) string {
	if len(r) > 12 {
		return r[:12]
	}
	return r
}

// swiftPackageURL finds the dependencies Package.swift declares:
// .package(url: "...") and .package(name: "...", url: "..."). Reading
// Swift by pattern is enough here: the declarations are literal strings
// by convention, and anything missed is still listed from Package.resolved
// with --all.
var swiftPackageURL = regexp.MustCompile(`\.package\s*\(\s*(?:name\s*:\s*"[^"]*"\s*,\s*)?url\s*:\s*"([^"]+)"`)

// discoverSwift reads Package.resolved (of a SwiftPM package, or of an
// Xcode project or workspace) and finds each pin's checkout under
// .build/checkouts. There is no client to fetch with: a pin not checked
// out is missing.
func discoverSwift(ctx context.Context, d *discovery) (bool, []Package) {
	candidates := []string{d.path("Package.resolved"), d.path(".package.resolved")}
	for _, pat := range []string{"*.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved", "*.xcworkspace/xcshareddata/swiftpm/Package.resolved"} {
		m, _ := filepath.Glob(d.path(filepath.FromSlash(pat)))
		candidates = append(candidates, m...)
	}
	manifest := d.path("Package.swift")
	var resolved string
	for _, c := range candidates {
		if exists(c) {
			resolved = c
			break
		}
	}
	if resolved == "" {
		return exists(manifest), nil
	}
	data, err := d.read.readFile(resolved, maxLockfile)
	if err != nil {
		d.warn(resolved, "cannot read: %v", err)
		return true, nil
	}
	pins, err := parsePackageResolved(data)
	if err != nil {
		d.warn(resolved, "cannot parse: %v", err)
		return true, nil
	}
	var direct map[string]bool
	if exists(manifest) {
		if src, err := d.read.readFile(manifest, maxManifest); err == nil {
			direct = map[string]bool{}
			for _, m := range swiftPackageURL.FindAllSubmatch(src, -1) {
				direct[swiftIdentity(string(m[1]))] = true
			}
			if len(direct) == 0 {
				direct = nil // declared some way the pattern misses: take every pin
			}
		} else {
			d.warn(manifest, "cannot read: %v", err)
		}
	}
	checkouts := map[string]string{} // lower-case folder name → path
	if real, ents, err := d.read.readDir(d.path(".build", "checkouts")); err == nil {
		for _, e := range ents {
			checkouts[strings.ToLower(e.Name())] = filepath.Join(real, e.Name())
		}
	}
	var out []Package
	for _, pin := range pins {
		isDirect := direct == nil || direct[pin.identity]
		if !isDirect && !d.opt.All {
			continue
		}
		p := Package{Ecosystem: Swift, Name: pin.identity, Version: pin.versionLabel(), Direct: isDirect}
		if strings.Contains(pin.location, "://") || strings.Contains(pin.location, "@") {
			p.Repository = repoURL(pin.location)
		}
		dir := checkouts[pin.identity]
		if dir == "" {
			dir = checkouts[swiftIdentity(pin.location)]
		}
		if dir == "" && pin.name != "" {
			dir = checkouts[strings.ToLower(pin.name)]
		}
		if dir != "" {
			real, err := d.read.dir(dir)
			if err == nil {
				p.Dir = real
				p.License = d.licenseOf(real)
			} else {
				d.warn(dir, "%v", err)
			}
		}
		if p.Dir == "" {
			p.Missing = "not checked out under .build/checkouts (run `swift package resolve`)"
		}
		out = append(out, p)
	}
	return true, out
}
