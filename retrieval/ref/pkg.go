package ref

import (
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// PackagePrefix starts the URI of a unit of a dependency's docs:
//
//	gno://pkg/ECOSYSTEM/NAME@VERSION/UNIT
//
// for example gno://pkg/go/github.com/spf13/cobra@v1.8.1/api/Command.PersistentFlags
// or gno://pkg/npm/@scope/name@1.2.0/readme.md. NAME keeps its "/"
// (Go module paths, npm scopes); the version is the first "@" after
// NAME's first character (only an npm scope starts with one) and runs to
// the next "/", so a "/" inside a version (a Swift branch pin) is written
// %2F. Each segment is percent-encoded as in URI. "pkg" is therefore no
// collection name (config refuses it).
const PackagePrefix = Scheme + "pkg/"

// Ecosystems are the ecosystem names a package URI may hold.
var Ecosystems = []string{"go", "npm", "python", "rust", "swift"}

// PackageRef names one unit of one package version.
type PackageRef struct {
	Ecosystem, Name, Version string
	// Unit is the unit's path ("readme.md", "api/Command.Execute"); empty
	// for the package itself.
	Unit string
}

// IsPackageURI reports whether s is written as a package unit URI.
func IsPackageURI(s string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), PackagePrefix)
}

// PackageURI formats the URI of a unit.
func PackageURI(ecosystem, name, version, unit string) string {
	var b strings.Builder
	b.WriteString(PackagePrefix)
	b.WriteString(escape(ecosystem))
	for _, seg := range strings.Split(name, "/") {
		b.WriteByte('/')
		b.WriteString(escape(seg))
	}
	b.WriteByte('@')
	b.WriteString(escape(version))
	if unit != "" {
		for _, seg := range strings.Split(unit, "/") {
			b.WriteByte('/')
			b.WriteString(escape(seg))
		}
	}
	return b.String()
}

// ParsePackageURI reads a package URI; the unit may be absent.
func ParsePackageURI(s string) (PackageRef, error) {
	s = strings.TrimSpace(s)
	bad := func(why string) (PackageRef, error) {
		return PackageRef{}, gnoerr.New(gnoerr.InvalidInput, "invalid package URI %q: %s; want gno://pkg/ECOSYSTEM/NAME@VERSION/UNIT", s, why)
	}
	if !IsPackageURI(s) {
		return bad("not a gno://pkg/ URI")
	}
	if strings.ContainsRune(s, 0) {
		return PackageRef{}, gnoerr.New(gnoerr.InvalidPath, "reference contains a NUL byte")
	}
	rest := s[len(PackagePrefix):]
	eco, rest, ok := strings.Cut(rest, "/")
	if !ok || eco == "" {
		return bad("no ecosystem")
	}
	eco = strings.ToLower(eco)
	known := false
	for _, e := range Ecosystems {
		known = known || e == eco
	}
	if !known {
		return bad("unknown ecosystem " + eco)
	}
	at := -1
	if len(rest) > 1 {
		if i := strings.IndexByte(rest[1:], '@'); i >= 0 {
			at = i + 1
		}
	}
	if at < 0 {
		return bad("no @VERSION")
	}
	name, err := unescape(rest[:at])
	if err != nil {
		return bad(err.Error())
	}
	rest = rest[at+1:]
	version, unit, _ := strings.Cut(rest, "/")
	if version, err = unescape(version); err != nil {
		return bad(err.Error())
	}
	if name == "" || version == "" || strings.HasSuffix(name, "/") || strings.HasPrefix(name, "/") {
		return bad("empty name or version")
	}
	if strings.Contains(name[1:], "@") {
		return bad("\"@\" inside a package name")
	}
	r := PackageRef{Ecosystem: eco, Name: name, Version: version}
	if unit != "" {
		dec, err := unescape(unit)
		if err != nil {
			return bad(err.Error())
		}
		if r.Unit, err = CleanRel(dec); err != nil {
			return PackageRef{}, err
		}
	}
	return r, nil
}
