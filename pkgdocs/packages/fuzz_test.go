package packages

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMetadata: any bytes parse; every value is valid UTF-8; a field's
// value never holds the line break that ended it.
func FuzzMetadata(f *testing.F) {
	for _, s := range []string{
		"Metadata-Version: 2.1\nName: requests\nVersion: 2.31.0\nSummary: Python HTTP for Humans.\nProject-URL: Source, https://github.com/psf/requests\n\n# Requests\n",
		"Name: x\nDescription: a\n       |b\n        c\n",
		"Name: x\r\nLicense: MIT\r\n  second\r\n\r\nbody",
		"\uFEFFName: bom\n",
		" leading continuation\nName: y\n",
		"Classifier: License :: OSI Approved :: MIT License\nLicense-Expression: MIT OR Apache-2.0\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		m := parseMetadata(data)
		for k, vs := range m.headers {
			if strings.ContainsAny(k, " \t\n") {
				t.Fatalf("field name %q", k)
			}
			for _, v := range vs {
				if !utf8.ValidString(v) {
					t.Fatalf("invalid UTF-8 in %s", k)
				}
			}
		}
		m.license()
		m.homeAndRepo()
		if strings.Contains(m.summaryLine(), "\n") {
			t.Fatalf("summary on several lines")
		}
		_ = m.description()
	})
}

// FuzzRequirement: PEP 508 strings and requirements files; a parsed name
// is non-empty, starts and ends alphanumeric, and normalises stably.
func FuzzRequirement(f *testing.F) {
	for _, s := range []string{
		"requests[socks,security]>=2,<3; python_version >= '3.8' and extra == \"x\"",
		"idna (<4,>=2.5)", "pip @ https://x/y.whl", "a==1.*", "-r base.txt\n--requirement=dev.txt\nx \\\n ==1 # c\n",
		"zope.interface===5.0", "[", "a[", "",
		"rich>=10; extra == \"cli\"", "x; (python_version < '3.8' or sys_platform not in \"win32 cygwin\") and extra != 'y'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		if r, ok := parseRequirement(s); ok {
			if r.name == "" || !isAlnum(r.name[0]) || !isAlnum(r.name[len(r.name)-1]) {
				t.Fatalf("name %q from %q", r.name, s)
			}
			n := normalizePyName(r.name)
			if normalizePyName(n) != n {
				t.Fatalf("normalisation not stable: %q", n)
			}
			if v := r.pinned(); strings.ContainsAny(v, "*, ") {
				t.Fatalf("pinned %q", v)
			}
			markerExtras(r.marker)
			markerHolds(r.marker, newMarkerEnv("3.11", "3.11.7", "cpython").with(r.extras...))
		}
		for _, l := range parseRequirementsFile([]byte(s)) {
			if l.include == "" && l.req.name == "" {
				t.Fatalf("empty line kept from %q", s)
			}
		}
		markerExtras(s)
		// the marker evaluator is total, and extras asked for change
		// nothing in a marker that does not name them
		env := newMarkerEnv("3.11", "", "")
		if !strings.Contains(s, "extra") && markerHolds(s, env) != markerHolds(s, env.with("cli")) {
			t.Fatalf("marker %q: an extra changed a marker without one", s)
		}
	})
}

// FuzzPnpmDepPath: a dependency path or importer version that parses
// gives a valid npm name and a version without peer suffix.
func FuzzPnpmDepPath(f *testing.F) {
	for _, s := range []string{
		"/commander/11.1.0", "/@babel/core/7.22.0_supports-color@5.5.0", "registry.example.com/left-pad/1.3.0",
		"/react-dom@18.2.0(react@18.2.0)", "@vitejs/plugin-react@4.0.0(vite@5.0.0(@types/node@20.0.0))", "debug@2.6.9",
		"github.com/user/repo/abc123", "link:../x", "18.2.0_react@18.2.0", "npm:left-pad@1.3.0", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(name, ver string, ok bool) {
			if !ok {
				return
			}
			if !validNPMName(name) || ver == "" || strings.Contains(ver, "(") {
				t.Fatalf("%q gave %q %q", s, name, ver)
			}
		}
		check(parsePnpmDepPath(s))
		n, v, ok := pnpmVersionRef("name", s)
		if ok && (n == "" || v == "" || strings.Contains(v, "(")) {
			t.Fatalf("version ref %q gave %q %q", s, n, v)
		}
		if name, ver, ok := splitNameVersion(s); ok && (!validNPMName(name) || ver == "") {
			t.Fatalf("split %q gave %q %q", s, name, ver)
		}
	})
}

// FuzzNPMLock: package-lock.json and pnpm-lock.yaml of any content parse
// or fail, never panic, and what they give has names and versions.
func FuzzNPMLock(f *testing.F) {
	for _, s := range []string{
		`{"lockfileVersion": 3, "packages": {"": {}, "node_modules/a": {"version": "1.0.0"}, "node_modules/a/node_modules/@s/b": {"version": "2.0.0", "optional": true}, "packages/w": {"version": "0.0.0"}, "node_modules/w": {"link": true}}}`,
		`{"lockfileVersion": 1, "dependencies": {"a": {"version": "1.0.0", "dependencies": {"b": {"version": "npm:c@2.0.0"}}}}}`,
		"lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      zod:\n        specifier: 3.22.4\n        version: 3.22.4\npackages:\n  zod@3.22.4:\n    resolution: {integrity: x}\n",
		"lockfileVersion: 5.4\ndependencies:\n  commander: 9.4.1\npackages:\n  /commander/9.4.1:\n    dev: false\n",
		"a: &a [*a]\n", "{", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		for _, parse := range []func([]byte) (*npmLock, error){parsePackageLock, parsePnpmLock} {
			l, err := parse(data)
			if err != nil {
				continue
			}
			for _, e := range l.all {
				if e.name == "" || e.version == "" {
					t.Fatalf("entry %+v", e)
				}
			}
			for n, v := range l.root {
				if n == "" || v == "" {
					t.Fatalf("root %q %q", n, v)
				}
			}
		}
	})
}

// FuzzPackageResolved: every format version parses or fails cleanly; a
// pin always has an identity and a version label when it has a state.
func FuzzPackageResolved(f *testing.F) {
	for _, s := range []string{resolvedV1, resolvedV2, resolvedV3, `{"version": 4}`, `{"object": null, "version": 1}`, `{"pins": [{}]}`, "[]", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		pins, err := parsePackageResolved(data)
		if err != nil {
			return
		}
		for _, p := range pins {
			if p.identity == "" {
				t.Fatalf("pin without identity: %+v", p)
			}
			if (p.version != "" || p.revision != "") && p.versionLabel() == "" {
				t.Fatalf("no version label: %+v", p)
			}
			swiftIdentity(p.location)
		}
	})
}

// FuzzArchiveName: an accepted entry name always lands inside the
// extraction folder.
func FuzzArchiveName(f *testing.F) {
	for _, s := range []string{"package/a.js", "../x", "/etc/passwd", "a/../../b", "C:\\x", "a\\..\\..\\b", "./", "package/./lib/../ok", "a\x00b"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, name string, strip int) {
		if strip < 0 || strip > 4 {
			return
		}
		rel, err := archiveName(name, strip)
		if err != nil || rel == "" {
			return
		}
		if !filepath.IsLocal(rel) {
			t.Fatalf("%q → %q is not local", name, rel)
		}
		root := filepath.FromSlash("/x/root")
		if !within(root, filepath.Join(root, rel)) {
			t.Fatalf("%q → %q escapes", name, rel)
		}
	})
}
