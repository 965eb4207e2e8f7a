package apidoc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkJS checks a JavaScript API unit against its source, byte for
// byte: the signature's first line as the parser printed it is in the
// source at the unit's line, the typed line is what the JSDoc says, and
// the doc line is in the comment as written.
func checkJS(t *testing.T, dir string, u Unit, sig, typed, doc, srcDoc string) {
	t.Helper()
	want := sig
	if typed != "" {
		want += "\n" + typed
	}
	if u.Symbol == nil || u.Symbol.Signature != want {
		t.Fatalf("%s: signature %q, want %q", u.Path, u.Symbol, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(u.File)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if u.Line < 1 || u.Line > len(lines) || !strings.Contains(lines[u.Line-1], sig) && !strings.Contains(lines[u.Line-1], u.Symbol.Name[strings.LastIndex(u.Symbol.Name, ".")+1:]) {
		t.Errorf("%s: line %d of %s does not define it", u.Path, u.Line, u.File)
	}
	if !strings.Contains(string(data), sig) {
		t.Errorf("%s: %q not in %s as written", u.Path, sig, u.File)
	}
	if !strings.Contains(u.Doc, doc) || !strings.Contains(string(data), srcDoc) {
		t.Errorf("%s: doc %q lacks %q, or %q is not in the source", u.Path, u.Doc, doc, srcDoc)
	}
}

func TestNPMExpressJS(t *testing.T) {
	dir := npmPackage(t, "express@4.21.2")
	d := extract(t, NPM, "express", "4.21.2", dir)
	for _, w := range d.Warnings {
		if strings.Contains(w.Msg, "not indexed") {
			t.Errorf("warning %s", w)
		}
	}
	// module.exports = createApplication: the package's own name
	if u := unit(t, d, "api/express"); u.Symbol.Signature != "function createApplication()\nexpress(): Function" || u.File != "lib/express.js" {
		t.Errorf("express = %q in %s", u.Symbol.Signature, u.File)
	}
	// app.use = function use(fn): a member of the exported application object
	use := unit(t, d, "api/application.use")
	checkJS(t, dir, use, "function use(fn)", "", "Proxy `Router#use()` to add middleware to the app router.", " * Proxy `Router#use()` to add middleware to the app router.")
	send := unit(t, d, "api/response.send")
	checkJS(t, dir, send, "function send(body)", "send(body: string|number|boolean|object|Buffer)", "Send a response.", " * Send a response.")
	if send.File != "lib/response.js" {
		t.Errorf("send in %s", send.File)
	}
	// exports.Router = Router (require('./router')): a function with members
	// var proto = module.exports = function(options): anonymous, documented above the var
	checkJS(t, dir, unit(t, d, "api/Router"), "function(options)", "Router(options?: Object): Router",
		"Initialize a new `Router` with the given `options`.", " * Initialize a new `Router` with the given `options`.")
	unit(t, d, "api/Router.use")
	unit(t, d, "api/request.get")
	unit(t, d, "api/static")
	// app.lazyrouter's JSDoc says @private: reachable, not API
	if hasUnit(d, func(u Unit) bool { return u.Path == "api/application.lazyrouter" }) {
		t.Error("a @private member is listed")
	}
}

func TestNPMExpressTypes(t *testing.T) {
	d := extractTyped(t, "express@4.21.2", "@types/express@4.17.21")
	r := unit(t, d, "api/e.Router")
	if r.Symbol.Signature != "export function Router(options?: RouterOptions): core.Router" || r.File != "@types/express/index.d.ts" {
		t.Errorf("Router = %q in %s", r.Symbol.Signature, r.File)
	}
	if !warned(d, "", TypesNote+"@types/express@4.17.21") {
		t.Errorf("the version does not say where its types came from: %v", d.Warnings)
	}
	if !strings.Contains(r.Text, "Types from @types/express@4.17.21") {
		t.Errorf("Router text does not say where its types came from:\n%s", r.Text)
	}
	// an ambient namespace's members are public without `export`
	j := unit(t, d, "api/e.json")
	if j.Symbol.Signature != "var json: typeof bodyParser.json" {
		t.Errorf("json = %q", j.Symbol.Signature)
	}
	// the README is still express's own
	checkReadme(t, d, nil, []string{"Fast, unopinionated, minimalist web framework"})
	// `var response: Response` is typed in express-serve-static-core,
	// another package: res.send's doc comes from the JavaScript, the
	// name response itself from the types only
	if s := unit(t, d, "api/response.send"); s.File != "lib/response.js" || strings.Contains(s.Text, "Types from") {
		t.Errorf("response.send from %s:\n%s", s.File, s.Text)
	}
	if hasUnit(d, func(u Unit) bool { return u.Path == "api/response" || u.Path == "api/json" }) {
		t.Error("a JavaScript item beside the @types one of the same name")
	}
}

func TestNPMLodashJS(t *testing.T) {
	dir := npmPackage(t, "lodash@4.17.21")
	d := extract(t, NPM, "lodash", "4.17.21", dir)
	// UMD: (freeModule.exports = _)._ = _, _ = runInContext(), which returns lodash
	deb := unit(t, d, "api/debounce")
	checkJS(t, dir, deb, "function debounce(func, wait, options)", "debounce(func: Function, wait?: number, options?: Object): Function",
		"@param {number} [wait=0] The number of milliseconds to delay.", "     * @param {number} [wait=0] The number of milliseconds to delay.")
	if deb.File != "lodash.js" || deb.Symbol.Kind != SymFunc {
		t.Errorf("debounce in %s, kind %s", deb.File, deb.Symbol.Kind)
	}
	ch := unit(t, d, "api/chunk")
	checkJS(t, dir, ch, "function chunk(array, size, guard)", "chunk(array: Array, size?: number): Array",
		"Creates an array of elements split into groups the length of `size`.", "     * Creates an array of elements split into groups the length of `size`.")
	if e := unit(t, d, "example/chunk"); !strings.Contains(e.Text, "_.chunk(['a', 'b', 'c', 'd'], 2);") {
		t.Errorf("chunk example:\n%s", e.Text)
	}
	n := 0
	for _, u := range d.Units {
		if u.Kind == KindAPI {
			n++
		}
	}
	if n < 300 {
		t.Errorf("%d API units, want lodash's 300 and more", n)
	}
}

func TestNPMLodashESM(t *testing.T) {
	dir := npmPackage(t, "lodash-es@4.17.21")
	d := extract(t, NPM, "lodash-es", "4.17.21", dir)
	// lodash.js: export { default as debounce } from './debounce.js'
	deb := unit(t, d, "api/debounce")
	checkJS(t, dir, deb, "function debounce(func, wait, options)", "debounce(func: Function, wait?: number, options?: Object): Function",
		"Creates a debounced function that delays invoking `func` until after `wait`", " * Creates a debounced function that delays invoking `func` until after `wait`")
	if deb.File != "debounce.js" || deb.Line != 66 {
		t.Errorf("debounce at %s:%d", deb.File, deb.Line)
	}
	// export { default } from './lodash.default.js'
	unit(t, d, "api/default")
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// writeTree writes files under a temporary package folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestJSBadInput(t *testing.T) {
	big := "module.exports = { a: 1 };\n" + strings.Repeat("// padding padding padding padding padding padding\n", 100_000)
	big = strings.Repeat(big[:len(big)/1], 1) + strings.Repeat("x", 20<<20-len(big))
	dir := writeTree(t, map[string]string{
		"package.json": `{"name":"bad","main":"index.js"}`,
		"index.js": `/** Good one.
 * @param {string} s the input
 * @returns {number
 */
exports.good = function good(s) {};
/** @param {{a: number} broken @returns */
exports.broken = function (x) {};
exports.cycle = require('./a');
exports.out = require('../../../etc/passwd');
exports.big = require('./big');
exports.bad = require('./syntax');
exports.min = require('./min');
`,
		"a.js":      "exports.fromA = 1;\nexports.b = require('./b');\n",
		"b.js":      "exports.fromB = 2;\nexports.a = require('./a');\n",
		"big.js":    big[:20<<20],
		"syntax.js": "exports.x = function ( {\n",
		"min.js":    "var a=1;" + strings.Repeat("exports.f=function(n){return n+1};", 300) + "exports.g=function(q){return q};",
	})
	// a link out of the package, required by name: refused by the root
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "evil.js")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.js"), append(must(os.ReadFile(filepath.Join(dir, "index.js"))), "exports.evil = require('./evil');\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	d := extract(t, NPM, "bad", "1.0.0", dir)
	if !warned(d, "index.js", `"./evil" not found inside the package`) || !warned(d, "index.js", `"../../../etc/passwd" not found`) || hasUnit(d, func(u Unit) bool { return u.File == "evil.js" }) {
		t.Errorf("the link out was followed: %v", d.Warnings)
	}
	g := unit(t, d, "api/good")
	if g.Symbol.Signature != "function good(s)\ngood(s: string)" || !strings.HasPrefix(g.Doc, "Good one.") {
		t.Errorf("good = %q, doc %q", g.Symbol.Signature, g.Doc)
	}
	unit(t, d, "api/broken")
	unit(t, d, "api/cycle.fromA")
	unit(t, d, "api/cycle.b.fromB")
	unit(t, d, "api/min.g")
	if !warned(d, "big.js", "over the 4 MiB limit") {
		t.Errorf("no warning for the 20 MB file: %v", d.Warnings)
	}
	if !warned(d, "syntax.js", "syntax error at line") {
		t.Errorf("no warning for the syntax error: %v", d.Warnings)
	}
	if !warned(d, "min.js", "minified") {
		t.Errorf("no warning for the minified file: %v", d.Warnings)
	}
	if hasUnit(d, func(u Unit) bool { return strings.Contains(u.File, "..") || strings.Contains(u.File, "passwd") }) {
		t.Error("a unit from outside the package")
	}
}

func TestJSExportForms(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"package.json": `{"name":"@scope/forms","type":"module","exports":{".":{"import":"./src/index.js","types":"./nope.d.ts"}}}`,
		"src/index.js": `export * from './more.js';
export * as ns from './more.js';
export { inner as renamed } from './more.js';
import def from './def.js';
export { def as theDefault };
/**
 * Adds.
 * @param {number} a first
 * @param {number} [b=1] second
 * @returns {number} the sum
 * @example
 * add(1, 2) // 3
 */
export function add(a, b = 1) { return a + b; }
export const VERSION = '1.0';
export class Widget extends Base {
  /** Makes one. */
  constructor(opts) { super(); }
  /** Renders it. */
  render(into) {}
  #hidden() {}
  _private() {}
  static of(x) {}
}
export default async function main() {}
`,
		"src/more.js": "export function more() {}\nexport function inner() {}\nexport default 1;\n",
		"src/def.js":  "/** The default. */\nexport default function named(x) {}\n",
	})
	d := extract(t, NPM, "@scope/forms", "1.0.0", dir)
	add := unit(t, d, "api/add")
	if add.Symbol.Signature != "function add(a, b = 1)\nadd(a: number, b?: number): number" || add.File != "src/index.js" || add.Line != 14 {
		t.Errorf("add = %q at %s:%d", add.Symbol.Signature, add.File, add.Line)
	}
	if e := unit(t, d, "example/add"); !strings.Contains(e.Text, "add(1, 2) // 3") {
		t.Errorf("example:\n%s", e.Text)
	}
	for _, p := range []string{"api/more", "api/ns.more", "api/ns.inner", "api/renamed", "api/theDefault", "api/VERSION", "api/Widget", "api/Widget.render", "api/Widget.constructor", "api/Widget.of", "api/default"} {
		unit(t, d, p)
	}
	if r := unit(t, d, "api/Widget.render"); r.Doc != "Renders it." || r.Symbol.Kind != SymMethod {
		t.Errorf("render: %q %s", r.Doc, r.Symbol.Kind)
	}
	if td := unit(t, d, "api/theDefault"); td.Doc != "The default." {
		t.Errorf("theDefault doc %q", td.Doc)
	}
	if hasUnit(d, func(u Unit) bool { return strings.Contains(u.Path, "hidden") || strings.Contains(u.Path, "_private") }) {
		t.Error("a private or unexported name is listed")
	}
}

func TestJSCommonJSForms(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"package.json": `{"name":"cjs-forms","main":"./lib"}`,
		"lib/index.js": `'use strict';
var proto = require('./proto');
module.exports = exports = Thing;
/**
 * Makes a thing.
 * @param {string} name its name
 */
function Thing(name) {}
/** Greets. */
Thing.prototype.greet = function greet(who) {};
module.exports.helper = function helper() {};
Object.defineProperty(exports, 'lazy', { get: function () { return proto; } });
exports.proto = proto;
`,
		"lib/proto.js": "var p = module.exports = {};\n/** Does it. */\np.doIt = function (x, y) {};\n",
	})
	d := extract(t, NPM, "cjs-forms", "1.0.0", dir)
	th := unit(t, d, "api/cjsForms")
	if th.Symbol.Kind != SymClass || th.Symbol.Signature != "function Thing(name)\ncjsForms(name: string)" || !strings.HasPrefix(th.Doc, "Makes a thing.") {
		t.Errorf("cjsForms = %s %q %q", th.Symbol.Kind, th.Symbol.Signature, th.Doc)
	}
	for _, p := range []string{"api/helper", "api/lazy", "api/lazy.doIt", "api/proto.doIt"} {
		unit(t, d, p)
	}
	if g := unit(t, d, "api/cjsForms.greet"); g.Symbol.Kind != SymMethod || g.Doc != "Greets." {
		t.Errorf("greet = %s %q", g.Symbol.Kind, g.Doc)
	}
	if u := unit(t, d, "api/proto.doIt"); u.Doc != "Does it." || u.Symbol.Signature != "function doIt(x, y)" {
		t.Errorf("doIt = %q %q", u.Symbol.Signature, u.Doc)
	}
}

// extractTyped extracts an npm package (name@version) paired with an
// @types package, both fetched with npm pack; an @types tarball unpacks
// to NAME/, not package/.
func extractTyped(t *testing.T, spec, types string) *Docs {
	t.Helper()
	name, version, _ := strings.Cut(spec, "@")
	short, _, _ := strings.Cut(strings.TrimPrefix(types, "@types/"), "@")
	tdir := filepath.Join(filepath.Dir(npmPackage(t, types)), short)
	d, err := Extract(context.Background(), Package{Ecosystem: NPM, Name: name, Version: version, Dir: npmPackage(t, spec), TypesDir: tdir, TypesFrom: types}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestNPMTypesPairs(t *testing.T) {
	// @types/debug declares coerce as a member of interface Debug; the
	// JavaScript exports it: both are listed, the JSDoc one at the top
	d := extractTyped(t, "debug@4.4.0", "@types/debug@4.1.12")
	if u := unit(t, d, "api/debug.Debug.coerce"); u.Symbol.Signature != "coerce: (val: any) => any" || u.File != "@types/debug/index.d.ts" {
		t.Errorf("types coerce = %q in %s", u.Symbol.Signature, u.File)
	}
	if u := unit(t, d, "api/coerce"); u.File != "src/common.js" || strings.Contains(u.Text, "Types from") {
		t.Errorf("JavaScript coerce in %s:\n%s", u.File, u.Text)
	}
	// @types/lodash: index.d.ts and its /// <reference path> files, which
	// augment interface LoDashStatic inside declare module "../index"
	d = extractTyped(t, "lodash@4.17.21", "@types/lodash@4.17.16")
	if u := unit(t, d, "api/LoDashStatic.chunk"); u.File != "@types/lodash/common/array.d.ts" || !strings.Contains(u.Doc, "Creates an array of elements split into groups the length of size.") {
		t.Errorf("chunk from %s, doc %q", u.File, u.Doc)
	}
	unit(t, d, "api/Omit")
	// the JavaScript's own debounce, an export the types give only as a member
	if u := unit(t, d, "api/debounce"); u.File != "lodash.js" {
		t.Errorf("debounce from %s", u.File)
	}
}

func TestNPMUUIDDefaultReexports(t *testing.T) {
	// export { default as v1ToV6 } from './v1ToV6.js' of an
	// `export default function` with overloads; export type * from
	dir := npmPackage(t, "uuid@11.1.0")
	d := extract(t, NPM, "uuid", "11.1.0", dir)
	v := unit(t, d, "api/v1ToV6")
	if v.Symbol.Signature != "export default function v1ToV6(uuid: string): string\nexport default function v1ToV6(uuid: Uint8Array): Uint8Array" {
		t.Errorf("v1ToV6 = %q", v.Symbol.Signature)
	}
	unit(t, d, "api/Version4Options")
	unit(t, d, "api/UUIDTypes")
}

// TestJSDeepNesting: a file of a million open brackets would overflow the
// parser's stack (a fatal error); it is refused with a warning instead,
// and the package's other files are still read.
func TestJSDeepNesting(t *testing.T) {
	const n = 1 << 20
	dir := writeTree(t, map[string]string{
		"package.json": `{"name":"deep","main":"index.js"}`,
		"index.js":     "/** Kept. */\nexports.kept = function kept() {};\nexports.a = require('./a');\nexports.p = require('./p');\nexports.t = require('./t');\n",
		"a.js":         "module.exports = " + strings.Repeat("[", n) + "\n",
		"p.js":         "module.exports = " + strings.Repeat("(", n) + "\n",
		"t.js":         "module.exports = `" + strings.Repeat("${`", n) + "\n",
	})
	d := extract(t, NPM, "deep", "1.0.0", dir)
	for _, f := range []string{"a.js", "p.js", "t.js"} {
		if !warned(d, f, "nesting deeper than 1000: not parsed") {
			t.Errorf("%s: warnings %v", f, d.Warnings)
		}
	}
	if !hasUnit(d, func(u Unit) bool { return u.File == "index.js" && strings.Contains(u.Text, "Kept.") }) {
		t.Errorf("index.js not read: %v", d.Warnings)
	}
}

func TestJSTooDeep(t *testing.T) {
	for src, want := range map[string]bool{
		strings.Repeat("(", 1001):                               true,
		strings.Repeat("({[", 300) + strings.Repeat("]})", 300): false,
		"'" + strings.Repeat("(", 2000) + "'":                   false,
		"// " + strings.Repeat("[", 2000):                       false,
		"/* " + strings.Repeat("{", 2000) + " */":               false,
		"`" + strings.Repeat("{", 2000) + "`":                   false,
		"`${" + strings.Repeat("`${", 1000) + "`":               true,
		strings.Repeat("(x)", 5000):                             false,
	} {
		if got := jsTooDeep([]byte(src), maxJSNesting); got != want {
			t.Errorf("jsTooDeep(%.20q…) = %v", src, got)
		}
	}
}
