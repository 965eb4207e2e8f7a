// Package apidoc turns one installed package version into searchable
// documents: what its own files say about it (summary, licence,
// homepage, repository), its README filtered down to what a user of the
// code needs, its docs/ and examples/ files, and its public API, one
// unit per item with the item's symbol, kind, signature and doc comment,
// so that a hit names the function that answers a question.
//
// It owns the reading of package files for the package docs index:
// which files count (README, doc and example folders, the API sources of
// each ecosystem), how each is parsed, and the limits and warnings of
// that reading. It does not find packages (retrieval/packages does), does
// not store or search (the index layer keys Docs by ecosystem, name and
// version), and imports nothing of gno.
//
// It must never run a package's code, import a Python module of a
// package, or reach the network (the one process it starts is a Python
// standard library's own interpreter, isolated, introspecting built-ins:
// pybuiltins.go); it reads only inside Package.Dir through an os.Root, so a
// link out of the package (README.md -> /etc/passwd, src/lib.rs -> ..)
// is refused and warned, never followed. One bad file (binary, too big,
// invalid UTF-8, unparsable) is a Warning; Extract fails only when the
// package cannot be read at all.
//
// # Per ecosystem
//
//   - Go: go/parser and go/doc, as `go doc` reads a module: every package
//     but internal/ (a dependent cannot import it; what it exports
//     reaches users only through a public package's aliases or fields,
//     documented there), testdata/, vendor/, nested modules and main
//     packages; signatures printed by go/printer, bodies removed, field
//     comments kept; Example functions of _test.go files on their item and
//     as example units (test files without one are not parsed: they were
//     half of cobra's cost).
//   - TypeScript: the entry declarations (package.json types/typings, the
//     "." export's types, index.d.ts, main's .d.ts), following relative
//     `export * from`, `export { a as b } from` and re-exported imports
//     inside the package; functions, classes and interfaces with their
//     public members, type aliases, enums, variables and namespaces, each
//     with its JSDoc as written (@param, @returns, @example kept; each
//     @example also an example unit).
//     Overloads are one item, one signature a line; an alias
//     (export { A as B }) is one more item.
//   - Python: the modules a wheel's RECORD lists (else the .py files of
//     Dir), public only (no _ segment, no tests; __all__ when a module has
//     one; a .pyi stub only without its .py); functions, classes and
//     methods with decorators, type hints and defaults as written, and
//     docstrings cleaned as inspect.cleandoc does; @overload signatures
//     merged; doctest blocks become examples. The README of an installed
//     wheel is its METADATA body.
//   - Rust: src/lib.rs and the modules it declares; pub items with ///
//     and /** */ docs (#[doc = ""] too), //! module docs, inherent impl
//     methods, trait items, #[macro_export] macro_rules with their
//     matchers; #[cfg(test)] and #[doc(hidden)] left out; an item of a
//     private module only when a `pub use` re-exports it (or its type is
//     public); "# Examples" code blocks as examples, rustdoc's hidden
//     lines removed.
//   - Swift: public and open declarations of Sources/ with /// and /** */
//     docs: types, protocol requirements, public extension members, enum
//     cases, functions, initializers, properties, typealiases; code blocks
//     in docs as examples.
//
// README filtering works on goldmark's AST (reStructuredText by its
// underlined headings): badge rows and logo or sponsor HTML blocks are
// dropped, and so are sections about the project rather than the code
// (licence, contributors, sponsors and backers, changelog and history,
// code of conduct, acknowledgements, security policy); the intro,
// install, usage, API, examples and configuration stay.
//
// # Parser choices and what was measured
//
// Go has its own parser in the standard library: nothing else was
// considered. For the four others gno needs declarations and the
// comments before them, not full syntax trees, and must stay pure Go
// (the guide's rule; tree-sitter's Go bindings are cgo with one C grammar
// a language, the only pure-Go port found in the registry lists is
// marked not for use over its licence, and no WebAssembly build of the
// grammars is served from the reachable registries). So one small lexer
// (lex.go: comments, every string and char literal form, raw strings,
// interpolation, nested comments, lifetimes) feeds three declaration
// walkers, and Python gets a logical-line reader (brackets, triple
// quotes, f-string fields, continuations). Each is fuzzed (make fuzz).
//
// Measured against each ecosystem's own tool, 2026-11-26, on a 2-core
// machine under load ~15-20 (other jobs), names listed compared as sets:
//
//   - TypeScript vs the TypeScript 5.8.3 compiler API (checker exports of
//     the entry, public class/interface members, namespace members):
//     commander 14.0.0: 207 of tsc's 208 names, nothing extra (the miss:
//     the constructor under an alias's name); zod 3.25.76: 641 of 702,
//     nothing extra (the misses: `z`, a namespace re-export of the whole
//     package, and 60 members repeated under aliases, which gno lists once
//     under the declared name). Time: gno 5.5 ms a package for everything
//     (README and docs included), tsc 0.5 s and 1.8 s. On a generated 10
//     MB .d.ts (147,796 items, same count from both): gno 3.0 s and
//     240 MB, tsc 31 s and 530 MB. Default limits parse the first 4 MiB
//     and keep 10,000 units, with a warning.
//   - Python vs the ast module (same visibility rules, parse only):
//     requests 2.32.3: 225 of 225 names, click 8.1.8: 330 of 330, none
//     extra.
//   - Rust and Swift: no reference tool runs here (rustdoc's JSON needs a
//     nightly toolchain, Swift is not installed); checked by the tests on
//     anyhow and serde and on a Swift fixture, signatures and docs byte
//     for byte against the sources.
//
// Figures per package are in bench/RESULTS.md ("API extraction").
package apidoc
