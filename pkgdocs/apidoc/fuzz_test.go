package apidoc

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The hand parsers must not panic, index out of range or run long on any
// input. Each target parses its input as one file of its language; the
// seeds are in testdata/fuzz/<target> (small excerpts of real packages
// and the hostile shapes found so far).

func fuzzExtractor(tb testing.TB, root *os.Root) *extractor {
	return &extractor{ctx: context.Background(), pkg: Package{Name: "fuzz"}, lim: Limits{}.norm(), root: root, fsys: root.FS(),
		docs: &Docs{}, paths: map[string]int{}}
}

// maxFuzzTime bounds one input: inputs are small and the parsers linear,
// so a real input takes milliseconds; the bound catches a super-linear
// parser, and is wide enough that a starved CI box (the seed inputs run
// in make test, packages side by side on 2 busy cores) never trips it.
const maxFuzzTime = 10 * time.Second

func fuzzCheck(t *testing.T, src string, x *extractor, start time.Time) {
	if d := time.Since(start); d > maxFuzzTime {
		t.Fatalf("%v on %d bytes", d, len(src))
	}
	lines := strings.Count(src, "\n") + 1
	for _, u := range x.docs.Units {
		if u.Line < 0 || u.Line > lines {
			t.Fatalf("unit %s: line %d of %d", u.Path, u.Line, lines)
		}
		if utf8.ValidString(src) && (!utf8.ValidString(u.Text) || !utf8.ValidString(u.Path)) {
			t.Fatalf("unit %s: invalid UTF-8 from valid input", u.Path)
		}
		if u.Symbol != nil && len(u.Symbol.Signature) > 2*maxSignature+1024 && !strings.Contains(u.Symbol.Signature, "\n") {
			t.Fatalf("unit %s: signature of %d bytes", u.Path, len(u.Symbol.Signature))
		}
	}
}

func fuzzRoot(f *testing.F) *os.Root {
	root, err := os.OpenRoot(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	return root
}

func FuzzTypeScript(f *testing.F) {
	for _, s := range []string{
		"export declare function f<T extends { a: string }>(x: T): Map<string, T[]>;",
		"/** Doc. @example f() */\nexport class A<T> extends B<{ c: 1 }> {\n  private x: number;\n  get y(): string\n  m(a: `${string}-x`): void\n}\nexport { A as B } from './x';\nexport * as ns from './y';",
		"declare namespace N { function g(): void; namespace M { const c: 1 } }\nexport = N;",
		"declare module 'm' { export type T = 'a' | 'b' }",
	} {
		f.Add(s)
	}
	root := fuzzRoot(f)
	f.Fuzz(func(t *testing.T, src string) {
		x := fuzzExtractor(t, root)
		start := time.Now()
		r := &tsReader{x: x, seen: map[string]bool{}}
		file := parseTS("index.d.ts", src)
		r.scope(file, 0, len(file.toks), "", nil, true, 0)
		for _, it := range file.items {
			x.addAPI("ts", it.sym, it.doc, "index.d.ts", it.line, nil)
		}
		fuzzCheck(t, src, x, start)
	})
}

func FuzzRust(f *testing.F) {
	for _, s := range []string{
		"//! Crate doc.\n/// Doc.\n/// # Examples\n/// ```\n/// let x = f();\n/// ```\npub fn f<'a, T: Fn() -> u8>(x: &'a T) -> impl Iterator<Item = u8> where T: Send { let c = '{'; }\n",
		"pub struct S<T>(pub T);\nimpl<T> S<T> { pub const fn new(t: T) -> Self { S(t) } }\nimpl Trait for S<u8> { fn x() {} }\n",
		"#[macro_export]\nmacro_rules! m { ($e:expr) => { $e }; [$($t:tt)*] => {} }\npub const C: [u8; 2] = [b'{', b'}'];\nlet s = r#\"}\"#;",
		"pub trait T { type A; fn f(&self) -> Self::A; }\nmod m { pub use super::T; }\npub use m::*;\n/* /* nested */ } */",
	} {
		f.Add(s)
	}
	root := fuzzRoot(f)
	f.Fuzz(func(t *testing.T, src string) {
		x := fuzzExtractor(t, root)
		start := time.Now()
		r := newRustReader(x)
		file := parseRust("src/lib.rs", src)
		r.scope(file, 0, len(file.toks), nil, "", "src", 0)
		r.emitAll()
		fuzzCheck(t, src, x, start)
	})
}

func FuzzSwift(f *testing.F) {
	f.Add(swiftFixture["Sources/Greeter/Greeter.swift"])
	for _, s := range []string{
		"public extension Array where Element: Equatable { func has(_ e: Element) -> Bool { contains(e) } }",
		"@available(iOS 13, *)\nopen class C<T>: NSObject { public private(set) var x = \"\\(f(\"}\"))\"\n public subscript(i: Int) -> T { get } }",
		"public let s = \"\"\"\n  { \\(a) }\n  \"\"\"\npublic enum E { case a(Int), b }\n#if DEBUG\npublic func d() {}\n#endif",
	} {
		f.Add(s)
	}
	root := fuzzRoot(f)
	f.Fuzz(func(t *testing.T, src string) {
		x := fuzzExtractor(t, root)
		start := time.Now()
		swiftFile(x, "A.swift", src)
		fuzzCheck(t, src, x, start)
	})
}

func FuzzPython(f *testing.F) {
	for _, s := range []string{
		"\"\"\"Module.\"\"\"\n__all__ = ['f', \"C\"]\n@decorator(x=[1, 2])\nasync def f(a: int = (1,\n  2), *args, **kw) -> dict[str, int]:\n    '''Doc.\n\n    >>> f()\n    1\n    '''\n",
		"class C(B, metaclass=M):\n    x = f\"{a['}']}\"\n    @property\n    def p(self): return 1\n    @overload\n    def g(self, a: int) -> int: ...\n    @overload\n    def g(self, a: str) -> str: ...\n    def g(self, a):\n        \"\"\"Impl.\"\"\"\n",
		"if sys.version_info >= (3, 8):\n\tdef h(): pass\nelse:\n    def h(): pass\nx = \\\n  1\n",
		"if ('__main__' == __name__) and X:  # demo\n    def demo(): pass\n    y = 1\nelse:\n    z = 2\nif __name__ == \"__main__\": main()\n",
	} {
		f.Add(s)
	}
	root := fuzzRoot(f)
	f.Fuzz(func(t *testing.T, src string) {
		x := fuzzExtractor(t, root)
		start := time.Now()
		pyModule(x, "m", "m.py", src)
		fuzzCheck(t, src, x, start)
	})
}

func FuzzReadme(f *testing.F) {
	for _, s := range []string{
		"# t\n\n[![b](https://img.shields.io/x)](u)\n\nText.\n\n## License\n\nMIT\n",
		"<div align=\"center\">\n<img src=\"x\">\nSupported by:\n\n### [Sponsor](x)\n\n</div>\n\n# Use\n\nok\n",
		"Title\n=====\n\n.. image:: x\n   :target: y\n\n|a| |b|\n\nLicense\n-------\n\nBSD\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		out := FilterMarkdown(src)
		rst := filterRST(src)
		_ = summarize(out, "md")
		_ = summarize(rst, "rst")
		if time.Since(start) > maxFuzzTime {
			t.Fatalf("%v on %d bytes", time.Since(start), len(src))
		}
		if len(out) > len(src) || len(rst) > len(src) {
			t.Fatalf("filter grew the text: %d, %d > %d", len(out), len(rst), len(src))
		}
	})
}

// FuzzPyExports: the re-export resolver over a package of up to four
// modules (the input split at "\n#%%\n"), any import graph: it ends,
// and names no private module path.
func FuzzPyExports(f *testing.F) {
	for _, s := range []string{
		"from ._a import *\nfrom ._b import X as Y\n__all__ = ['f', 'Y']\n__all__ += ('g',)\n#%%\nfrom ._b import *\ndef f(): pass\n#%%\nfrom ._a import *\nclass X:\n    def m(self): pass\n#%%\nfrom . import _a\n",
		"_lazy = {'A': (__spec__.parent, '._a'), 'B': '.c', 'c': (__spec__.parent, '__module__')}\ndef __getattr__(n): pass\n#%%\nA = 1\n#%%\n#%%\nB = C = D\nD = B\n",
		"from loop import x\nfrom .c import y as y\nx = y\n#%%\nfrom .. import *\nfrom ... import z\n#%%\nfrom loop._a import (\n  a,  # c\n  b as c,\n)\n#%%\nimport loop._b as b\n",
		// loop.c, a plain module without __all__: what it imports is its API
		// only where no public path reaches the definition
		"from ._a import A\n#%%\nclass A:\n    pass\n#%%\nclass B:\n    pass\n#%%\nfrom ._a import A\nfrom ._b import B\nimport os\nC = B\n",
	} {
		f.Add(s)
	}
	root := fuzzRoot(f)
	names := []string{"loop/__init__.py", "loop/_a.py", "loop/_b.py", "loop/c.py"}
	f.Fuzz(func(t *testing.T, src string) {
		x := fuzzExtractor(t, root)
		start := time.Now()
		parts := strings.SplitN(src, "\n#%%\n", len(names))
		files := map[string]string{}
		var mods []pyMod
		for i, p := range parts {
			files[names[i]] = p
			name := strings.TrimSuffix(strings.TrimSuffix(names[i], ".py"), "/__init__")
			mods = append(mods, pyMod{name: strings.ReplaceAll(name, "/", "."), file: names[i], public: !strings.Contains(name, "/_")})
		}
		r := newPyResolver(x, mods)
		r.load = func(file string) (string, bool) { s, ok := files[file]; return s, ok }
		var public []pyMod
		for _, m := range mods {
			if m.public {
				public = append(public, m)
			}
		}
		pyEmit(x, r, public)
		fuzzCheck(t, src, x, start)
		for _, u := range x.docs.Units {
			if strings.Contains(u.Path, "._") && !strings.Contains(u.Path, ".__") {
				t.Fatalf("private path %s", u.Path)
			}
		}
	})
}

// FuzzRustMacros: the reader of macro invocations that wrap items, of
// wrapper macro_rules and of `pub use` trees, with the input as an
// invocation's body, closed or not: it ends, and a listed re-export
// points at a line of the file.
func FuzzRustMacros(f *testing.F) {
	for _, s := range []string{
		"pub fn spawn<F>(f: F) where F: Send {}\npub mod time;\npub use task::{spawn, JoinHandle as H, self};",
		"macro_rules! doc { ($i:item) => { /// Doc.\n #[macro_export] $i } }\ndoc! {macro_rules! select { {$($t:tt)*} => {} }}",
		"cfg_a! { cfg_b! [ pub struct S; ] pub use crate::m::*; pub use super::super::x as y;",
		"pub use a::{b::{c, d::*}, e as _, ::f, {g}};\nmod m { pub fn c() {} }\n#![doc = include_str!(\"../x.md\")]",
	} {
		f.Add(s)
	}
	root := fuzzRoot(f)
	f.Fuzz(func(t *testing.T, body string) {
		for _, src := range []string{"cfg_rt! {\n" + body + "\n}\n" + body, "cfg_rt! {\n" + body} {
			x := fuzzExtractor(t, root)
			start := time.Now()
			r := newRustReader(x)
			file := parseRust("src/lib.rs", src)
			r.scope(file, 0, len(file.toks), nil, "", "src", 0)
			r.emitAll()
			fuzzCheck(t, src, x, start)
		}
	})
}

func FuzzJavaScript(f *testing.F) {
	for _, s := range []string{
		"'use strict';\nvar app = exports = module.exports = {};\n/**\n * Use it.\n * @param {Function} fn\n * @public\n */\napp.use = function use(fn) {};\nObject.defineProperty(exports, 'x', { get: function () { return app; } });",
		";(function() {\n  var runInContext = (function runInContext(context) {\n    function lodash(value) {}\n    /** @returns {Array} */\n    function chunk(array, size) {}\n    lodash.chunk = chunk;\n    lodash.prototype.value = function() {};\n    return lodash;\n  });\n  var _ = runInContext();\n  var freeModule = typeof module == 'object' && module;\n  (freeModule.exports = _)._ = _;\n}.call(this));",
		"export * from './a.js';\nexport * as ns from './b.js';\nexport { a as b, default as c } from './c.js';\nimport d, { e as f } from './d.js';\nexport { d, f };\nexport default class extends Base { #p() {} static s() {} get g() {} }\nexport const { k } = o;",
		"module.exports = require('./common')(exports);\nfunction setup(env) { createDebug.debug = createDebug; return createDebug; function createDebug(ns) {} }",
		"exports.x = function ( {",
		"a.b.c = d.e = (f, g);\nmodule.exports = new Foo();\nFoo.prototype = { m() {}, ['c']: 1, ...rest };",
	} {
		f.Add(s)
	}
	root := fuzzRoot(f)
	f.Fuzz(func(t *testing.T, src string) {
		x := fuzzExtractor(t, root)
		start := time.Now()
		r := &jsReader{x: x, mods: map[string]*jsMod{}}
		m, err := parseJSMod("index.js", []byte(src))
		if err != nil {
			return
		}
		m.r = r
		r.mods["index.js"] = m
		if exp := m.exportsVal(0); exp != nil {
			r.emit("fuzz", exp, 0)
			for _, mb := range exp.members {
				r.emit(mb.name, mb.val, 0)
			}
		}
		fuzzCheck(t, src, x, start)
	})
}

func FuzzJSDoc(f *testing.F) {
	for _, s := range []string{
		"/**\n * Creates a debounced function.\n *\n * @param {Function} func The function to debounce.\n * @param {number} [wait=0] The number of milliseconds to delay.\n * @param {Object} [options={}] The options object.\n * @param {boolean} [options.leading=false]\n *  Specify invoking on the leading edge of the timeout.\n * @returns {Function} Returns the new debounced function.\n * @example\n *\n * jQuery(window).on('resize', _.debounce(calculateLayout, 150));\n */",
		"/** @param {{a: {b: number}}} x @returns {Promise<Array<string>>} */",
		"/** @param {string x unclosed\n * @param [y\n * @returns {\n * @api private */",
		"/** ```js\n * @param {in} fence\n * ```\n * @param {number=} n optional by type\n * @arg {*} [d = { a: 1 }] default with spaces\n */",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c string) {
		doc := jsdoc(c)
		tags := parseJSDoc(doc)
		if len(tags.params) > maxJSDocTags {
			t.Fatalf("%d params", len(tags.params))
		}
		for _, p := range tags.params {
			if p.name == "" || strings.Contains(p.name, ".") {
				t.Fatalf("param %+v", p)
			}
		}
		if s := tags.typedSig("f"); len(s) > 2*maxSignature+1024 {
			t.Fatalf("typed signature of %d bytes", len(s))
		}
		jsdocExamples(doc)
	})
}
