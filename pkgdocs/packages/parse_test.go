package packages

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseMetadata(t *testing.T) {
	m := parseMetadata([]byte("Metadata-Version: 2.1\r\nName: Foo.Bar\r\nVersion: 1.0\r\nSummary: A  long\r\n  summary\r\n" +
		"License: UNKNOWN\r\nClassifier: License :: OSI Approved :: BSD License\r\nHome-page: https://gitlab.com/x/foo\r\n" +
		"Project-URL: Source Code, https://github.com/x/foo.git\r\nProject-URL: Bug Tracker, https://github.com/x/foo/issues\r\n" +
		"Requires-Dist: idna (<4,>=2.5)\r\nRequires-Dist: PySocks!=1.5.7,>=1.5.6; extra == \"socks\"\r\n" +
		"Description-Content-Type: text/markdown\r\n\r\n# Foo\n\nbody\n"))
	if m.get("name") != "Foo.Bar" || m.get("version") != "1.0" || m.summaryLine() != "A long summary" {
		t.Errorf("fields: %v", m.headers)
	}
	if m.license() != "BSD License" {
		t.Errorf("licence from the classifier: %q", m.license())
	}
	if home, repo := m.homeAndRepo(); home != "https://gitlab.com/x/foo" || repo != "https://github.com/x/foo" {
		t.Errorf("home %q repo %q", home, repo)
	}
	if m.description() != "# Foo\n\nbody\n" || len(m.headers["requires-dist"]) != 2 {
		t.Errorf("body %q", m.description())
	}
	// Metadata 1.x: the description is a field with "       |" lines.
	old := parseMetadata([]byte("Name: x\nVersion: 2\nLicense: MIT License\n  with a second line\nDescription: Title\n       |\n       |Some text.\nKeywords: a\n"))
	if old.description() != "Title\n\nSome text." {
		t.Errorf("old description %q", old.description())
	}
	if old.license() != "" {
		t.Errorf("a multi-line licence field is no identifier: %q", old.license())
	}
	// A line that is no field starts the body, as Python's parser does.
	odd := parseMetadata([]byte("Name: x\nthis is not a field\nVersion: 3\n"))
	if odd.get("version") != "" || !strings.HasPrefix(odd.body, "this is not") {
		t.Errorf("odd: %+v", odd)
	}
	if parseMetadata([]byte("Name: \xff\xfe\n")).get("name") != "\uFFFD" {
		t.Errorf("invalid UTF-8 not replaced")
	}
}

func TestParseRequirement(t *testing.T) {
	for _, tc := range []struct {
		in     string
		name   string
		extras []string
		spec   string
		pinned string
		marker string
		url    string
		ok     bool
	}{
		{in: "requests", name: "requests", ok: true},
		{in: "requests==2.31.0", name: "requests", spec: "==2.31.0", pinned: "2.31.0", ok: true},
		{in: "requests[socks, security] >=2,<3 ; python_version >= '3.8'", name: "requests", extras: []string{"socks", "security"}, spec: ">=2,<3", marker: "python_version >= '3.8'", ok: true},
		{in: "idna (<4,>=2.5)", name: "idna", spec: "<4,>=2.5", ok: true},
		{in: "zope.interface===5.0", name: "zope.interface", spec: "===5.0", pinned: "5.0", ok: true},
		{in: "foo==1.*", name: "foo", spec: "==1.*", ok: true},
		{in: "pip @ https://example.com/pip.whl", name: "pip", url: "https://example.com/pip.whl", ok: true},
		{in: "-e .", ok: false},
		{in: "", ok: false},
		{in: "name[unclosed", ok: false},
		{in: "name garbage", ok: false},
	} {
		r, ok := parseRequirement(tc.in)
		if ok != tc.ok {
			t.Errorf("%q: ok=%v", tc.in, ok)
			continue
		}
		if !ok {
			continue
		}
		if r.name != tc.name || !reflect.DeepEqual(r.extras, tc.extras) || r.spec != tc.spec || r.pinned() != tc.pinned || r.marker != tc.marker || r.url != tc.url {
			t.Errorf("%q: %+v pinned %q", tc.in, r, r.pinned())
		}
	}
	if got := markerExtras(`python_version < "3.8" and extra == 'socks' or extra=="use-chardet_on-py3"`); !reflect.DeepEqual(got, []string{"socks", "use-chardet-on-py3"}) {
		t.Errorf("markerExtras: %v", got)
	}
}

func TestRequirementsFile(t *testing.T) {
	got := parseRequirementsFile([]byte("# comment\nrequests==2.31.0 # pinned\n--index-url https://example.com\n-r base.txt\n--requirement=dev.txt\n" +
		"-e git+https://github.com/x/y#egg=y\n./local\nclick \\\n  >=8\nhttps://example.com/x.whl\n"))
	var names, includes []string
	for _, l := range got {
		if l.include != "" {
			includes = append(includes, l.include)
		} else {
			names = append(names, l.req.name+l.req.spec)
		}
	}
	if !reflect.DeepEqual(names, []string{"requests==2.31.0", "click>=8"}) || !reflect.DeepEqual(includes, []string{"base.txt", "dev.txt"}) {
		t.Errorf("names %v includes %v", names, includes)
	}
}

func TestNormalizePyName(t *testing.T) {
	for in, want := range map[string]string{"Foo.Bar": "foo-bar", "foo__bar": "foo-bar", "charset_normalizer": "charset-normalizer", "A-_.b": "a-b"} {
		if got := normalizePyName(in); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}

func TestParsePnpmDepPath(t *testing.T) {
	for in, want := range map[string][2]string{
		"/commander/11.1.0":                        {"commander", "11.1.0"},
		"/@babel/core/7.22.0_supports-color@5.5.0": {"@babel/core", "7.22.0"},
		"registry.example.com/left-pad/1.3.0":      {"left-pad", "1.3.0"},
		"/zod@3.22.4":                              {"zod", "3.22.4"},
		"/@types/ms@0.7.34":                        {"@types/ms", "0.7.34"},
		"/react-dom@18.2.0(react@18.2.0)":          {"react-dom", "18.2.0"},
		"debug@2.6.9":                              {"debug", "2.6.9"},
		"@vitejs/plugin-react@4.0.0(vite@5.0.0(@types/node@20.0.0))": {"@vitejs/plugin-react", "4.0.0"},
	} {
		name, ver, ok := parsePnpmDepPath(in)
		if !ok || name != want[0] || ver != want[1] {
			t.Errorf("%q → %q %q %v, want %v", in, name, ver, ok, want)
		}
	}
	for _, bad := range []string{"", "/", "@scope", "/a/b/c/d", "github.com/user/repo/abc123", "/@/x/1", "/.hidden/1.0.0"} {
		if n, v, ok := parsePnpmDepPath(bad); ok {
			t.Errorf("%q accepted as %q %q", bad, n, v)
		}
	}
	for _, tc := range [][4]string{
		{"react", "18.2.0", "react", "18.2.0"},
		{"react-dom", "18.2.0(react@18.2.0)", "react-dom", "18.2.0"},
		{"react-dom", "18.2.0_react@18.2.0", "react-dom", "18.2.0"},
		{"sw", "string-width@4.2.3", "string-width", "4.2.3"},
		{"sw", "/string-width/4.2.3", "string-width", "4.2.3"},
	} {
		if n, v, ok := pnpmVersionRef(tc[0], tc[1]); !ok || n != tc[2] || v != tc[3] {
			t.Errorf("pnpmVersionRef(%q, %q) = %q %q %v", tc[0], tc[1], n, v, ok)
		}
	}
	if _, _, ok := pnpmVersionRef("x", "link:../x"); ok {
		t.Errorf("a workspace link is no version")
	}
}

func TestParsePackageLockV1(t *testing.T) {
	l, err := parsePackageLock([]byte(`{"lockfileVersion": 1, "dependencies": {
		"debug": {"version": "2.6.9", "requires": {"ms": "2.0.0"}, "dependencies": {"ms": {"version": "2.0.0"}}},
		"ms": {"version": "2.1.3"},
		"fsevents": {"version": "2.3.3", "optional": true},
		"alias": {"version": "npm:left-pad@1.3.0"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if l.root["debug"] != "2.6.9" || l.root["ms"] != "2.1.3" || l.root["left-pad"] != "1.3.0" || l.only("ms") != "" || len(l.all) != 5 {
		t.Errorf("%+v", l)
	}
}

func TestRepoURL(t *testing.T) {
	for in, want := range map[string]string{
		"git+https://github.com/tj/commander.js.git": "https://github.com/tj/commander.js",
		"git://github.com/x/y.git":                   "https://github.com/x/y",
		"git@github.com:x/y.git":                     "https://github.com/x/y",
		"git+ssh://git@github.com/x/y.git":           "https://github.com/x/y",
		"github:x/y":                                 "https://github.com/x/y",
		"x/y":                                        "https://github.com/x/y",
		"https://example.com/repo/":                  "https://example.com/repo",
		"":                                           "",
	} {
		if got := repoURL(in); got != want {
			t.Errorf("repoURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWheelName(t *testing.T) {
	if n, v, ok := wheelName("charset_normalizer-3.3.2-cp311-cp311-manylinux_2_17_x86_64.whl"); !ok || n != "charset_normalizer" || v != "3.3.2" {
		t.Errorf("%q %q %v", n, v, ok)
	}
	if n, v, ok := wheelName("six-1.16.0-1-py2.py3-none-any.whl"); !ok || n != "six" || v != "1.16.0" {
		t.Errorf("build tag: %q %q %v", n, v, ok)
	}
	if _, _, ok := wheelName("six-1.16.0.tar.gz"); ok {
		t.Errorf("an sdist is no wheel")
	}
}

func TestShortError(t *testing.T) {
	for in, want := range map[string]string{
		"Looking in indexes: x\nERROR: Could not find a version\nERROR: No matching distribution found for six==1.16.0\n": "No matching distribution found for six==1.16.0",
		"warning: x\nerror: failed to get `a`\n\nCaused by:\n  download failed\n\nCaused by:\n  [7] Could not connect\n":  "[7] Could not connect",
		"npm error code E404\nnpm error 404 Not Found - GET x\nnpm error A complete log of this run can be found in: y\n": "404 Not Found - GET x",
		"something odd": "something odd",
	} {
		if got := shortError(in); got != want {
			t.Errorf("shortError(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGuessLicense(t *testing.T) {
	for text, want := range map[string]string{
		"MIT License\n\nPermission is hereby granted, free of charge, to any person":                          "MIT",
		"Apache License\n   Version 2.0, January 2004":                                                        "Apache-2.0",
		"Redistribution and use in source and binary forms, with or without\nNeither the name of Google Inc.": "BSD-3-Clause",
		"All rights reserved.": "",
	} {
		if got := guessLicense(text); got != want {
			t.Errorf("guessLicense(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestReadRule: inside the project, read; through a link to another
// place, refused with ErrOutside; a dangling link names its target; a
// root added later (a cache) is readable, also before it exists.
func TestReadRule(t *testing.T) {
	proj, outside, cache := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(proj, "in.txt"), "in")
	write(t, filepath.Join(outside, "secret.txt"), "secret")
	mustSymlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(proj, "out.txt"))
	mustSymlink(t, outside, filepath.Join(proj, "outdir"))
	mustSymlink(t, filepath.Join(proj, "in.txt"), filepath.Join(proj, "alias.txt"))
	mustSymlink(t, filepath.Join(proj, "gone"), filepath.Join(proj, "dangling"))
	r := newReader(proj)
	if data, err := r.readFile(filepath.Join(proj, "alias.txt"), 10); err != nil || string(data) != "in" {
		t.Errorf("link inside: %q %v", data, err)
	}
	for _, p := range []string{filepath.Join(proj, "out.txt"), filepath.Join(proj, "outdir", "secret.txt"), filepath.Join(proj, "..", filepath.Base(outside), "secret.txt")} {
		if data, err := r.readFile(p, 100); !errors.Is(err, ErrOutside) || data != nil {
			t.Errorf("%s: %q %v", p, data, err)
		}
	}
	if _, err := r.readFile(filepath.Join(proj, "dangling"), 10); err == nil || !strings.Contains(err.Error(), "dangling symlink to "+filepath.Join(proj, "gone")) {
		t.Errorf("dangling: %v", err)
	}
	if _, err := r.readFile(filepath.Join(proj, "in.txt"), 1); !errors.Is(err, errTooBig) {
		t.Errorf("limit: %v", err)
	}
	later := filepath.Join(cache, "not", "yet")
	r.allow(later)
	write(t, filepath.Join(later, "x"), "x")
	if _, err := r.readFile(filepath.Join(later, "x"), 10); err != nil {
		t.Errorf("root allowed before it existed: %v", err)
	}
	write(t, filepath.Join(cache, "other"), "x")
	if _, err := r.readFile(filepath.Join(cache, "other"), 10); !errors.Is(err, ErrOutside) {
		t.Errorf("beside the allowed root: %v", err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}
