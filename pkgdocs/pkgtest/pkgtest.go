// Package pkgtest writes software projects that depend on real packages,
// for the tests and benchmarks of the package docs: the manifests of Go,
// npm, Python and Rust dependencies (discovery then fetches them through
// each ecosystem's own client, as `gno packages add` does) and a Swift
// package checked out by hand (no Swift client runs here). It never
// downloads anything itself.
package pkgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Project lists the dependencies of a project to write.
type Project struct {
	// Go modules as "path@version".
	Go []string
	// NPM packages as "name@version".
	NPM []string
	// Python distributions as "name==version".
	Python []string
	// Rust crates as "name@version" (pinned with "=").
	Rust []string
	// Swift adds the checked-out Swift fixture (swift-retry 1.2.0).
	Swift bool
}

// Default is the project of the end-to-end tests: one or two well-known
// packages per ecosystem.
var Default = Project{
	Go:     []string{"github.com/spf13/cobra@v1.8.1"},
	NPM:    []string{"commander@14.0.0"},
	Python: []string{"click==8.1.8"},
	Rust:   []string{"anyhow@1.0.98"},
	Swift:  true,
}

// Write writes the project's manifests (and the Swift checkout) into dir.
func (p Project) Write(dir string) error {
	files := map[string]string{}
	if len(p.Go) > 0 {
		var b strings.Builder
		b.WriteString("module example.com/app\n\ngo 1.22\n\nrequire (\n")
		for _, m := range p.Go {
			path, ver, _ := strings.Cut(m, "@")
			fmt.Fprintf(&b, "\t%s %s\n", path, ver)
		}
		b.WriteString(")\n")
		files["go.mod"] = b.String()
	}
	if len(p.NPM) > 0 {
		var deps []string
		for _, s := range p.NPM {
			i := strings.LastIndexByte(s, '@')
			deps = append(deps, fmt.Sprintf("    %q: %q", s[:i], s[i+1:]))
		}
		files["package.json"] = "{\n  \"name\": \"app\",\n  \"version\": \"1.0.0\",\n  \"dependencies\": {\n" + strings.Join(deps, ",\n") + "\n  }\n}\n"
	}
	if len(p.Python) > 0 {
		var deps []string
		for _, s := range p.Python {
			deps = append(deps, fmt.Sprintf("%q", s))
		}
		files["pyproject.toml"] = "[project]\nname = \"app\"\nversion = \"1.0.0\"\ndependencies = [" + strings.Join(deps, ", ") + "]\n"
	}
	if len(p.Rust) > 0 {
		var b strings.Builder
		b.WriteString("[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n")
		for _, s := range p.Rust {
			name, ver, _ := strings.Cut(s, "@")
			fmt.Fprintf(&b, "%s = { version = \"=%s\", default-features = false }\n", name, ver)
		}
		files["Cargo.toml"] = b.String()
		files["src/lib.rs"] = ""
	}
	if p.Swift {
		files["Package.swift"] = packageSwift
		files["Package.resolved"] = packageResolved
		for name, content := range SwiftRetry {
			files[".build/checkouts/swift-retry/"+name] = content
		}
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Env is the environment that keeps the clients' caches under root (a
// module cache and CARGO_HOME of the run's own, writable so they can be
// removed), for Options.Env.
func Env(root string) []string {
	return append(os.Environ(),
		"GOMODCACHE="+filepath.Join(root, "modcache"), "GOFLAGS=-modcacherw", "GOWORK=off",
		"CARGO_HOME="+filepath.Join(root, "cargo"))
}

const packageSwift = `// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "App",
    dependencies: [
        .package(url: "https://github.com/example/swift-retry.git", from: "1.2.0"),
    ],
    targets: [.executableTarget(name: "App", dependencies: [.product(name: "Retry", package: "swift-retry")])]
)
`

const packageResolved = `{
  "pins" : [
    {
      "identity" : "swift-retry",
      "kind" : "remoteSourceControl",
      "location" : "https://github.com/example/swift-retry.git",
      "state" : {"revision" : "4f1c2a9b0d3e5f6a7b8c9d0e1f2a3b4c5d6e7f80", "version" : "1.2.0"}
    }
  ],
  "version" : 2
}
`
