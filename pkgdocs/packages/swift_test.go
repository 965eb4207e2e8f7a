package packages

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Package.resolved as SwiftPM 5.5 (v1), 5.6 (v2) and 5.9+ (v3) write it.
const (
	resolvedV1 = `{
  "object": {
    "pins": [
      {
        "package": "swift-argument-parser",
        "repositoryURL": "https://github.com/apple/swift-argument-parser.git",
        "state": {"branch": null, "revision": "e394bf350e38cb100b6bc4172834770ede1b7232", "version": "1.3.0"}
      },
      {
        "package": "Yams",
        "repositoryURL": "https://github.com/jpsim/Yams.git",
        "state": {"branch": "main", "revision": "0d9ee7ea8c4ebd4a489ad7a73d5c6cad55d6fed3", "version": null}
      }
    ]
  },
  "version": 1
}`
	resolvedV2 = `{
  "pins" : [
    {
      "identity" : "swift-argument-parser",
      "kind" : "remoteSourceControl",
      "location" : "https://github.com/apple/swift-argument-parser.git",
      "state" : {"revision" : "e394bf350e38cb100b6bc4172834770ede1b7232", "version" : "1.3.0"}
    },
    {
      "identity" : "yams",
      "kind" : "remoteSourceControl",
      "location" : "https://github.com/jpsim/Yams.git",
      "state" : {"branch" : "main", "revision" : "0d9ee7ea8c4ebd4a489ad7a73d5c6cad55d6fed3"}
    },
    {
      "identity" : "swift-log",
      "kind" : "remoteSourceControl",
      "location" : "https://github.com/apple/swift-log.git",
      "state" : {"revision" : "9cb486020ebf03bfa5b5df985387a14a98744537", "version" : "1.6.1"}
    }
  ],
  "version" : 2
}`
	resolvedV3 = `{
  "originHash" : "0a1b2c",
  "pins" : [
    {
      "identity" : "swift-argument-parser",
      "kind" : "remoteSourceControl",
      "location" : "https://github.com/apple/swift-argument-parser.git",
      "state" : {"revision" : "e394bf350e38cb100b6bc4172834770ede1b7232", "version" : "1.3.0"}
    },
    {
      "identity" : "yams",
      "kind" : "remoteSourceControl",
      "location" : "https://github.com/jpsim/Yams.git",
      "state" : {"branch" : "main", "revision" : "0d9ee7ea8c4ebd4a489ad7a73d5c6cad55d6fed3"}
    },
    {
      "identity" : "swift-log",
      "kind" : "remoteSourceControl",
      "location" : "https://github.com/apple/swift-log.git",
      "state" : {"revision" : "9cb486020ebf03bfa5b5df985387a14a98744537", "version" : "1.6.1"}
    }
  ],
  "version" : 3
}`
	packageSwift = `// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Tool",
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.3.0"),
        .package(
            url: "https://github.com/jpsim/Yams.git",
            branch: "main"
        ),
    ],
    targets: [.executableTarget(name: "Tool", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")])]
)
`
)

// swiftProject builds a SwiftPM package as `swift package resolve` leaves
// it: Package.swift, Package.resolved and .build/checkouts/<name> with a
// source file and a licence (swift-log is resolved but not checked out).
func swiftProject(t *testing.T, resolved string) string {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "Package.swift"), packageSwift)
	write(t, filepath.Join(dir, "Package.resolved"), resolved)
	ap := filepath.Join(dir, ".build", "checkouts", "swift-argument-parser")
	write(t, filepath.Join(ap, "Sources", "ArgumentParser", "Parsable Properties", "Flag.swift"), "/// A property wrapper that represents a command-line flag.\npublic struct Flag<Value> {}\n")
	write(t, filepath.Join(ap, "LICENSE.txt"), "                                 Apache License\n                           Version 2.0, January 2004\n")
	write(t, filepath.Join(dir, ".build", "checkouts", "Yams", "Sources", "Yams", "Yams.swift"), "public enum Yams {}\n")
	return dir
}

func TestSwift(t *testing.T) {
	for name, resolved := range map[string]string{"v1": resolvedV1, "v2": resolvedV2, "v3": resolvedV3} {
		t.Run(name, func(t *testing.T) {
			dir := swiftProject(t, resolved)
			p := discover(t, dir, Options{Ecosystems: []Ecosystem{Swift}})
			if len(p.Warnings) > 0 {
				t.Errorf("warnings: %v", p.Warnings)
			}
			ap := find(t, p, Swift, "swift-argument-parser")
			if ap.Version != "1.3.0" || !ap.Direct || ap.License != "Apache-2.0" || ap.Repository != "https://github.com/apple/swift-argument-parser" ||
				ap.Dir != filepath.Join(dir, ".build", "checkouts", "swift-argument-parser") {
				t.Errorf("argument parser: %+v", ap)
			}
			y := find(t, p, Swift, "yams")
			if y.Version != "main@0d9ee7ea8c4e" || y.Dir != filepath.Join(dir, ".build", "checkouts", "Yams") {
				t.Errorf("yams (a branch pin, checkout in its URL's case): %+v", y)
			}
			if has(p, Swift, "swift-log", "") {
				t.Errorf("swift-log is not declared in Package.swift: listed only with --all")
			}
			if name == "v1" {
				return
			}
			all := discover(t, dir, Options{All: true, Ecosystems: []Ecosystem{Swift}})
			l := find(t, all, Swift, "swift-log")
			if l.Direct || l.Dir != "" || !strings.Contains(l.Missing, "swift package resolve") {
				t.Errorf("swift-log: %+v", l)
			}
		})
	}
}

// TestSwiftBroken: a corrupt Package.resolved is a warning naming it.
func TestSwiftBroken(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "Package.resolved"), `{"pins": [{"identity": 3}], "version": 2}`)
	p := discover(t, dir, Options{Ecosystems: []Ecosystem{Swift}})
	if _, ok := warned(p, "Package.resolved", "cannot parse"); !ok || len(p.Packages) != 0 {
		t.Errorf("warnings %v packages %v", p.Warnings, p.Packages)
	}
	// A checkout that is a link out of the project is not read.
	dir = swiftProject(t, resolvedV2)
	outside := t.TempDir()
	ap := filepath.Join(dir, ".build", "checkouts", "swift-argument-parser")
	os.RemoveAll(ap)
	os.Symlink(outside, ap)
	p = discover(t, dir, Options{Ecosystems: []Ecosystem{Swift}})
	if x := find(t, p, Swift, "swift-argument-parser"); x.Dir != "" {
		t.Errorf("read through a link out: %+v", x)
	}
	if _, ok := warned(p, "swift-argument-parser", "outside the project"); !ok {
		t.Errorf("no warning for the link out: %v", p.Warnings)
	}
}
