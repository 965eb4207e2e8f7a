// Package apidoc turns one installed package version into searchable
// documents: what its own files say about it (summary, licence,
// homepage, repository), its README filtered down to what a user of the
// code needs, its docs/ and examples/ files, and its public API, one
// unit per item with the item's symbol, kind, signature and doc comment,
// so that a hit names the function that answers a question. An item
// without a doc comment takes the README section that documents it (a
// heading naming it, else code calling a name only it has: readmedoc.go),
// marked "From README.md § Heading", never replacing a doc of its own.
//
// It owns the reading of package files for the package docs index:
// which files count (README, doc and example folders, the API sources of
// each ecosystem), how each is parsed, and the limits and warnings of
// that reading. It does not find packages (pkgdocs/packages does), does
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
//     (export { A as B }) is one more item. `/// <reference path>`
//     directives are followed (@types/lodash is 13 such files).
//   - npm without declarations: when discovery paired an installed
//     @types/NAME (Package.TypesDir), its declarations are read as
//     above, through a second os.Root, under NAME's own version; each
//     unit's File is "@types/NAME/…" and its text says "Types from
//     @types/NAME@V". Then, and for a package with no types at all, the
//     JavaScript itself (javascript.go, jsmod.go, jsvalue.go): the entry
//     from package.json ("." export: node, require, import, default;
//     main; module; index.js), its ESM exports (declarations, default,
//     export * [as ns] from, export { a as b } [from]) and CommonJS ones
//     (module.exports = v, exports.x / module.exports.x = v,
//     Object.defineProperty(exports, …), `var app = exports =
//     module.exports = {}` aliases, UMD `freeModule.exports = _`),
//     followed through relative require() and import inside the package
//     (16 deep, each file parsed once, a cycle ends at the module being
//     read). A value is resolved statically: a name to its declaration
//     (hoisting included), require('./x') to x's exports, a call of a
//     package function to the name it returns (lodash's `_ =
//     runInContext()`), an object literal to its properties; members come
//     from `X.name = v` anywhere in the file and instance methods from
//     `X.prototype.name = v` and class bodies (express's app.use and
//     res.send, lodash's 300 functions). module.exports = fn is listed
//     under the package's name (express). Docs are the /** */ JSDoc
//     right before the definition, kept as written; @param/@returns
//     types add a second, typed signature line ("debounce(func:
//     Function, wait?: number, options?: Object): Function"); @example
//     blocks become example units; a member marked @private, @ignore or
//     @api private is left out. After @types, only the JavaScript's
//     exports the types leave to an interface's members are added
//     (debug's `enable`), and the members of a name the types declare
//     without members (express's `var response: Response` is typed in
//     express-serve-static-core: response.send comes from the JSDoc);
//     the version's warnings name the @types package read ("API from
//     @types/express@4.17.21", TypesNote). A .js file over 4 MiB is skipped, warned as a
//     bundle or generated code (a cut file would not parse); a minified
//     one is read for names and warned; a syntax error is a warning with
//     its line; nothing outside Dir is read (os.Root, specifiers that
//     leave the package are not followed).
//   - Python: the modules a wheel's RECORD lists (else the .py files of
//     Dir), read as users import them (pyexports.go): a public module's
//     names (its __all__, else what it binds without "_") are followed
//     through `from ._x import A`, `from .x import *`, aliases and
//     lazy-import tables read by a module __getattr__ (pydantic's
//     _dynamic_imports) to their definitions, in private modules too,
//     and each definition is one unit under its shortest public path
//     (httpx.AsyncClient, defined in httpx/_client.py); a .pyi stub
//     answers where its .py computes its names (numpy). Functions,
//     classes, methods and variables with decorators, type hints and
//     defaults as written, docstrings cleaned as inspect.cleandoc does;
//     @overload signatures merged; doctest blocks become examples. A
//     re-export loop ends with a warning. The README of an installed
//     wheel is its METADATA body.
//   - Rust: src/lib.rs and the modules it declares; pub items with ///
//     and /** */ docs (#[doc = ""] too), //! module docs, inherent impl
//     methods, trait items, #[macro_export] macro_rules with their
//     matchers (from #[doc(hidden)] modules too, and through wrappers
//     that add the attribute and docs, as tokio's select!), proc-macro
//     functions under their macro's name; #[cfg(test)] and #[doc(hidden)]
//     left out; an item of a private module only when a `pub use`
//     re-exports it (or its type is public), and under each public path
//     a `pub use` gives it (tokio::spawn); items inside macro invocations
//     (cfg_rt! { … }) and no-argument macro bodies where invoked (serde's
//     crate_root!()); #[doc = include_str!("…")] read inside the crate
//     only; "# Examples" code blocks as examples, rustdoc's hidden lines
//     removed (rustexports.go).
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
// JavaScript is the exception to hand reading: CommonJS and ESM exports
// need expressions, assignments and scopes, which a token walker would
// have to grow into a parser. github.com/tdewolff/parse/v2/js (pure Go,
// ES2020+, maintained, used by tdewolff/minify) parses it; esbuild was
// not usable: its Go API (pkg/api) offers Build and Transform only, its
// AST lives in internal packages that another module cannot import, and
// its metafile lists an ESM bundle's exports without docs or CommonJS.
// tdewolff's AST keeps no positions and drops comments, so JSDoc comes
// from the hand lexer's /** */ tokens, and a name's offset is found
// from the parser's slices of the source (jsMod.off), or from the lexer
// where a hoisted name's slice is its first use. Measured 2026-11-28 on
// the 2-core machine under load 21-26 (BenchmarkJSParse, CPU time):
// lodash.js (544 kB) parses and is indexed in 18 ms CPU (lexer alone 3
// ms); a generated 4 MiB file in 157 ms; express (index.js and the
// lib/ files it requires) extracts whole in 6.9 ms, lodash in 29 ms.
// The fuzz targets (FuzzJavaScript, FuzzJSDoc) ran 420,000 and 335,000
// inputs without a failure. Figures in bench/RESULTS.md.
//
// Against the TypeScript 5.8.3 checker (getExportsAndPropertiesOfModule
// of `import * as m from "pkg"`, allowJs, checkJs, 2026-11-28,
// bench/cmd/gnonpmcover): 1,233 of its 1,234 names in 15 package
// layouts (express, lodash, debug with and without @types, lodash-es,
// ms, yargs JS only; axios, chalk, commander, nanoid, uuid, zod with
// their own .d.ts); the miss is zod's `z` (below). On lodash's UMD file
// the checker sees no export at all, gno 308.
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
//   - Python vs the names the top-level module exposes in an isolated
//     interpreter (bench/cmd/gnoapicov, 2026-11-28): 12 packages, 0.967
//     of 1104 names (httpx, pydantic, attrs, numpy… all but
//     typing_extensions, whose names come from globals().update at
//     import time).
//   - Rust vs `cargo doc`'s all.html (same tool and date): 11 crates,
//     0.83 of 562 items in the crate itself, 0.954 counting facades'
//     items found in the crate they re-export whole (clap →
//     clap_builder); the rest are names made by macro_rules expansion
//     (serde's de::value::*Deserializer).
//   - Swift: not installed here; checked on a fixture, signatures and
//     docs byte for byte against the sources.
//
// Figures per package are in bench/RESULTS.md ("API extraction").
package apidoc
