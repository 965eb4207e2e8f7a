package packages

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// synthetic describes a generated project: what each client would have
// left on disk for n direct dependencies per ecosystem, each with one
// transitive dependency of its own. Discovery reads metadata only, so
// files of the sizes real packages have stand for real installs, and the
// benchmark needs no network.
type synthetic struct {
	npm, golang, python, rust int
}

// synth writes the project under root/project and the caches beside it;
// it returns the project folder and the environment to discover it with.
func (s synthetic) write(tb testing.TB, root string) (string, []string) {
	tb.Helper()
	proj := filepath.Join(root, "project")
	modcache := filepath.Join(root, "gomodcache")
	cargoHome := filepath.Join(root, "cargo-home")
	readme := strings.Repeat("Some words about the package, its options and examples. ", 150) // ~8 KB
	license := "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n" + strings.Repeat("of this software. ", 60)

	// npm: package.json, package-lock.json, node_modules (hoisted).
	var deps, lock []string
	for i := range s.npm {
		name, dep := fmt.Sprintf("pkg-%d", i), fmt.Sprintf("dep-%d", i)
		deps = append(deps, fmt.Sprintf("%q: \"^1.0.%d\"", name, i))
		lock = append(lock, fmt.Sprintf("\"node_modules/%s\": {\"version\": \"1.0.%d\"}, \"node_modules/%s\": {\"version\": \"2.0.0\"}", name, i, dep))
		for _, x := range [][3]string{{name, fmt.Sprintf("1.0.%d", i), dep}, {dep, "2.0.0", ""}} {
			d := ""
			if x[2] != "" {
				d = fmt.Sprintf("%q: \"^2.0.0\"", x[2])
			}
			write(tb, filepath.Join(proj, "node_modules", x[0], "package.json"), fmt.Sprintf(`{
  "name": %q, "version": %q, "description": "The %s package.", "license": "MIT",
  "repository": {"type": "git", "url": "git+https://github.com/example/%s.git"},
  "homepage": "https://example.com/%s", "main": "index.js", "types": "index.d.ts",
  "keywords": ["a", "b", "c"], "scripts": {"test": "node test.js"},
  "dependencies": {%s}, "devDependencies": {"typescript": "^5.0.0", "vitest": "^1.0.0"}
}`, x[0], x[1], x[0], x[0], x[0], d))
			write(tb, filepath.Join(proj, "node_modules", x[0], "README.md"), readme)
		}
	}
	if s.npm > 0 {
		write(tb, filepath.Join(proj, "package.json"), "{\"name\": \"app\", \"dependencies\": {"+strings.Join(deps, ", ")+"}}")
		pl := "{\"lockfileVersion\": 3, \"packages\": {\"\": {}, " + strings.Join(lock, ", ") + "}}"
		write(tb, filepath.Join(proj, "package-lock.json"), pl)
		write(tb, filepath.Join(proj, "node_modules", ".package-lock.json"), pl)
	}

	// Go: go.mod and the module cache.
	var req, ind []string
	for i := range s.golang {
		for _, m := range []string{fmt.Sprintf("example.com/mod%d", i), fmt.Sprintf("example.com/Ind%d", i)} {
			ep := strings.ReplaceAll(m, "Ind", "!ind")
			dir := filepath.Join(modcache, filepath.FromSlash(ep)+"@v1.2.3")
			write(tb, filepath.Join(dir, "go.mod"), "module "+m+"\n\ngo 1.21\n")
			write(tb, filepath.Join(dir, "LICENSE"), license)
			write(tb, filepath.Join(dir, "README.md"), readme)
			write(tb, filepath.Join(dir, "doc.go"), "// Package x does things.\npackage x\n")
		}
		req = append(req, fmt.Sprintf("\texample.com/mod%d v1.2.3", i))
		ind = append(ind, fmt.Sprintf("\texample.com/Ind%d v1.2.3 // indirect", i))
	}
	if s.golang > 0 {
		write(tb, filepath.Join(proj, "go.mod"), "module example.com/app\n\ngo 1.22\n\nrequire (\n"+strings.Join(req, "\n")+"\n)\n\nrequire (\n"+strings.Join(ind, "\n")+"\n)\n")
	}

	// Python: a venv with dist-info folders, requirements.txt.
	site := filepath.Join(proj, ".venv", "lib", "python3.11", "site-packages")
	var reqs []string
	for i := range s.python {
		for _, x := range [][2]string{{fmt.Sprintf("py-pkg-%d", i), fmt.Sprintf("py-dep-%d", i)}, {fmt.Sprintf("py-dep-%d", i), ""}} {
			mod := strings.ReplaceAll(x[0], "-", "_")
			info := filepath.Join(site, mod+"-1.0.0.dist-info")
			requires := ""
			if x[1] != "" {
				requires = "Requires-Dist: " + x[1] + ">=1\nRequires-Dist: pytest; extra == \"test\"\n"
			}
			write(tb, filepath.Join(info, "METADATA"), "Metadata-Version: 2.1\nName: "+x[0]+"\nVersion: 1.0.0\nSummary: The "+x[0]+" package.\n"+
				"Home-page: https://example.com/"+x[0]+"\nLicense: MIT\nProject-URL: Source, https://github.com/example/"+x[0]+"\n"+
				"Classifier: Programming Language :: Python :: 3\n"+requires+"Description-Content-Type: text/markdown\n\n"+readme)
			var rec strings.Builder
			for _, f := range []string{"__init__.py", "api.py", "models.py", "utils.py"} {
				write(tb, filepath.Join(site, mod, f), "def f():\n    pass\n")
				fmt.Fprintf(&rec, "%s/%s,sha256=abc,20\n", mod, f)
			}
			fmt.Fprintf(&rec, "%s-1.0.0.dist-info/METADATA,sha256=abc,100\n%s-1.0.0.dist-info/RECORD,,\n", mod, mod)
			write(tb, filepath.Join(info, "RECORD"), rec.String())
		}
		reqs = append(reqs, fmt.Sprintf("py-pkg-%d==1.0.0", i))
	}
	if s.python > 0 {
		write(tb, filepath.Join(proj, ".venv", "pyvenv.cfg"), "home = /usr/bin\nversion = 3.11.7\n")
		write(tb, filepath.Join(proj, "requirements.txt"), strings.Join(reqs, "\n")+"\n")
	}

	// Rust: Cargo.toml, Cargo.lock, the registry sources.
	var cdeps, cpkgs, rootDeps []string
	src := filepath.Join(cargoHome, "registry", "src", "index.crates.io-1949cf8c6b5b557f")
	for i := range s.rust {
		for _, c := range []string{fmt.Sprintf("crate%d", i), fmt.Sprintf("cdep%d", i)} {
			write(tb, filepath.Join(src, c+"-1.0.0", "Cargo.toml"), "[package]\nname = \""+c+"\"\nversion = \"1.0.0\"\nedition = \"2021\"\n"+
				"description = \"The "+c+" crate.\"\nlicense = \"MIT OR Apache-2.0\"\nrepository = \"https://github.com/example/"+c+"\"\n\n[dependencies]\nserde = \"1\"\n")
			write(tb, filepath.Join(src, c+"-1.0.0", "README.md"), readme)
			write(tb, filepath.Join(src, c+"-1.0.0", "src", "lib.rs"), "//! The crate.\n")
			d := ""
			if strings.HasPrefix(c, "crate") {
				d = fmt.Sprintf("dependencies = [\n \"cdep%d\",\n]\n", i)
			}
			cpkgs = append(cpkgs, "[[package]]\nname = \""+c+"\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"0000\"\n"+d)
		}
		cdeps = append(cdeps, fmt.Sprintf("crate%d = \"1.0.0\"", i))
		rootDeps = append(rootDeps, fmt.Sprintf(" \"crate%d\",", i))
	}
	if s.rust > 0 {
		write(tb, filepath.Join(proj, "Cargo.toml"), "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\n"+strings.Join(cdeps, "\n")+"\n")
		write(tb, filepath.Join(proj, "Cargo.lock"), "version = 3\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\n"+
			strings.Join(rootDeps, "\n")+"\n]\n\n"+strings.Join(cpkgs, "\n"))
	}
	os.MkdirAll(proj, 0o755)
	return proj, env("GOMODCACHE="+modcache, "CARGO_HOME="+cargoHome, "VIRTUAL_ENV=")
}
