// Package packages finds the dependencies of a software project, at the
// versions it really uses, and the folders holding their sources: Go
// modules (go.mod, go.sum, the module cache), npm packages (package.json,
// node_modules in npm's nested and pnpm's symlinked layouts,
// package-lock.json, pnpm-lock.yaml), Python distributions (the
// project's venv — .venv, venv, $VIRTUAL_ENV, uv's
// UV_PROJECT_ENVIRONMENT, Poetry's in-project and central envs —
// *.dist-info METADATA and RECORD; pyproject.toml, requirements files,
// poetry.lock, uv.lock), Rust crates (Cargo.toml with workspace members,
// Cargo.lock, $CARGO_HOME/registry/src) and Swift packages
// (Package.resolved v1–v3, .build/checkouts).
//
// It owns discovery and fetching, nothing else: it reads manifests and
// installed metadata and hands back a Project of Packages (ecosystem,
// name, exact version, folder, metadata). Reading READMEs and API
// documentation from those folders, storing and indexing them are the
// jobs of the packages above it; it imports nothing of gno.
//
// An npm package that ships no declarations and has its @types package
// installed beside it (express and @types/express, @babel/core and
// @types/babel__core) carries that folder in TypesDir: its API is read
// from those types, under the package's own version, and the @types
// package is not listed on its own (its docs would repeat the
// package's). An @types package with no installed partner (@types/node)
// stays a package of its own.
//
// Discovery is read-only. It never writes to the project, never runs a
// package's code (no setup.py, no install scripts, no build) and never
// names a registry host. A dependency that is declared but not installed
// is, with Options.Fetch, downloaded through the ecosystem's own client —
// `go mod download -json`, `npm pack`, `pip download --no-deps
// --only-binary=:all:`, `cargo fetch` on a scratch manifest — so the
// user's mirrors, proxies, .npmrc scopes, pip.conf and Cargo config
// apply. npm tarballs and wheels are unpacked into Options.CacheDir
// (safely: see unpack.go); Go modules and crates land where their client
// keeps them (the module cache, CARGO_HOME), as any build would put them.
// Swift has no client here. With no client or no network a package is
// listed with Missing set to the client's short reason: never a failed
// run.
//
// FetchVersion (version.go) does the same for one version the project
// need not use (`gno packages diff`): the caches first, then the client;
// a version that does not exist is an error naming the versions the
// client lists (`go list -m -versions`, `npm view NAME versions`, `pip
// index versions`, cargo's candidate list).
//
// With Options.Stdlib each ecosystem found also gets its standard
// library, a Package named StdlibName at the toolchain's version, found
// by asking the project's own toolchain (stdlib.go): `go env GOROOT
// GOVERSION` in the project, the project's Python interpreter in
// isolated mode (-I -S) for its stdlib folder and version, the installed
// @types/node, and `rustc --print sysroot` for the rust-src component.
// Those folders (GOROOT/src, Python's Lib, the sysroot) are read by
// apidoc, not here; a toolchain that cannot run is the entry's Missing
// reason.
//
// # The read rule
//
// One function, reader.resolve, decides what may be read: a path is read
// only when, its symlinks resolved, it lies inside the project folder or
// a package cache — the Go module cache, a Python environment found for
// the project, $CARGO_HOME/registry/src and git/checkouts, and gno's
// fetch cache. pnpm's node_modules links resolve inside the project and
// are followed; a link out (npm link, a hand-made symlink to /etc) is
// skipped with a Warning naming it, and nothing behind it is read.
//
// # Problems
//
// A broken file (go.mod that does not parse, corrupt package.json, a
// dangling symlink in a venv, an unreadable METADATA) is a Warning naming
// the file; the rest is still discovered.
//
// # Parsers
//
// go.mod goes through golang.org/x/mod/modfile (the go command's own
// parser), module paths through x/mod/module's escaping (!upper case).
// TOML (Cargo.toml, Cargo.lock, pyproject.toml, poetry.lock, uv.lock)
// through github.com/pelletier/go-toml/v2: maintained, TOML 1.0, and the
// fastest pure-Go decoder for large Cargo.lock files. pnpm-lock.yaml
// through gopkg.in/yaml.v3 (already a dependency), JSON with
// encoding/json, RECORD with encoding/csv. Written by hand, each small and
// fuzzed: core METADATA (pip's lenient RFC 822 flavour, which
// net/textproto would reject), PEP 508 requirement strings, their
// environment markers (pymarker.go: a requirement under an extra nobody
// asked for, or a Python version or platform that is not the venv's,
// makes no distribution a dependency; an unknown key holds) and
// requirements files (no Go library parses them), pnpm dependency paths
// (a pnpm-internal format across lockfile versions 5 to 9), and the
// mapping of Package.resolved's three formats. Package.swift is Swift
// code: the declared URLs are taken by pattern, and with --all every pin
// of Package.resolved is listed anyway.
//
// # Re-runs
//
// Fingerprint hashes the manifests, lockfiles and install markers in a
// few milliseconds, so an unchanged project is recognised without
// walking node_modules or site-packages.
package packages
