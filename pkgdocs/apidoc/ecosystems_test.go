package apidoc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func extract(t *testing.T, eco, name, version, dir string) *Docs {
	t.Helper()
	d, err := Extract(context.Background(), Package{Ecosystem: eco, Name: name, Version: version, Dir: dir}, Limits{})
	if err != nil {
		t.Fatalf("Extract %s: %v", name, err)
	}
	paths := map[string]bool{}
	for _, u := range d.Units {
		if paths[u.Path] {
			t.Errorf("duplicate unit path %q", u.Path)
		}
		paths[u.Path] = true
		if !utf8.ValidString(u.Text) || u.Text == "" {
			t.Errorf("unit %s: empty or invalid UTF-8 text", u.Path)
		}
		if (u.Kind == KindAPI) != (u.Symbol != nil) {
			t.Errorf("unit %s: kind %s with symbol %v", u.Path, u.Kind, u.Symbol)
		}
	}
	return d
}

func unit(t *testing.T, d *Docs, path string) Unit {
	t.Helper()
	for _, u := range d.Units {
		if u.Path == path {
			return u
		}
	}
	var near []string
	for _, u := range d.Units {
		if strings.Contains(u.Path, filepath.Base(path)) && len(near) < 10 {
			near = append(near, u.Path)
		}
	}
	t.Fatalf("no unit %q (similar: %v)", path, near)
	return Unit{}
}

// checkSource checks an API unit byte for byte against its source file:
// the signature as written, found at the unit's line; a doc line as
// written with its comment marker (srcDoc) and as kept (doc).
func checkSource(t *testing.T, dir string, u Unit, sig, doc, srcDoc string) {
	t.Helper()
	if u.Symbol == nil {
		t.Fatalf("%s: no symbol", u.Path)
	}
	if u.Symbol.Signature != sig {
		t.Errorf("%s: signature\n got %q\nwant %q", u.Path, u.Symbol.Signature, sig)
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(u.File)))
	if err != nil {
		t.Fatalf("%s: source %s: %v", u.Path, u.File, err)
	}
	src := string(data)
	if !strings.Contains(src, sig) {
		t.Errorf("%s: signature %q not in %s as written", u.Path, sig, u.File)
	}
	lines := strings.Split(src, "\n")
	first := strings.SplitN(sig, "\n", 2)[0]
	if u.Line < 1 || u.Line > len(lines) || !strings.Contains(lines[u.Line-1], first) {
		t.Errorf("%s: line %d of %s does not hold %q", u.Path, u.Line, u.File, first)
	}
	if !strings.Contains(u.Doc, doc) {
		t.Errorf("%s: doc %q lacks %q", u.Path, u.Doc, doc)
	}
	if !strings.Contains(src, srcDoc) {
		t.Errorf("%s: doc line %q not in %s", u.Path, srcDoc, u.File)
	}
	if !strings.Contains(u.Text, sig) || !strings.Contains(u.Text, doc) {
		t.Errorf("%s: Markdown lacks the signature or the doc:\n%s", u.Path, u.Text)
	}
}

func checkReadme(t *testing.T, d *Docs, gone, kept []string) {
	t.Helper()
	var r *Unit
	for i := range d.Units {
		if d.Units[i].Kind == KindReadme {
			r = &d.Units[i]
		}
	}
	if r == nil {
		t.Fatal("no README unit")
	}
	for _, g := range gone {
		if strings.Contains(r.Text, g) {
			t.Errorf("README still has %q", g)
		}
	}
	for _, k := range kept {
		if !strings.Contains(r.Text, k) {
			t.Errorf("README lost %q", k)
		}
	}
}

func hasUnit(d *Docs, pred func(Unit) bool) bool {
	for _, u := range d.Units {
		if pred(u) {
			return true
		}
	}
	return false
}

func TestGoCobra(t *testing.T) {
	dir := goModule(t, "github.com/spf13/cobra@v1.10.2")
	d := extract(t, Go, "github.com/spf13/cobra", "v1.10.2", dir)
	if d.Meta.License != "Apache-2.0" || d.Meta.Repository != "https://github.com/spf13/cobra" || !strings.Contains(d.Meta.Summary, "CLI applications") {
		t.Errorf("meta = %+v", d.Meta)
	}
	u := unit(t, d, "api/Command.PersistentFlags")
	checkSource(t, dir, u, "func (c *Command) PersistentFlags() *flag.FlagSet",
		"PersistentFlags returns the persistent FlagSet specifically set in the current command.",
		"// PersistentFlags returns the persistent FlagSet specifically set in the current command.")
	if u.Symbol.Kind != SymMethod || u.File != "command.go" {
		t.Errorf("kind %s file %s", u.Symbol.Kind, u.File)
	}
	// the type's printed declaration keeps its field docs
	if c := unit(t, d, "api/Command"); !strings.Contains(c.Symbol.Signature, "PersistentPreRun func(cmd *Command, args []string)") {
		t.Errorf("Command signature lacks fields:\n%s", c.Symbol.Signature)
	}
	// Example functions from _test.go: their own unit and on the item
	ex := unit(t, d, "example/doc/ExampleGenManTree")
	if !strings.Contains(ex.Text, "doc.GenManTree(cmd, header, \"/tmp\")") || ex.File != "doc/man_examples_test.go" {
		t.Errorf("example unit: %+v", ex)
	}
	if g := unit(t, d, "api/doc.GenManTree"); !strings.Contains(g.Text, "ExampleGenManTree") {
		t.Errorf("GenManTree lacks its example:\n%s", g.Text)
	}
	unit(t, d, "site/content/user_guide.md")
	checkReadme(t, d, []string{"img.shields.io", "# License", "Apache 2.0 license", "Warp"},
		[]string{"# Installing", "go get -u github.com/spf13/cobra@latest", "# Usage", "Cobra is a library for creating powerful modern CLI applications."})
	if hasUnit(d, func(u Unit) bool { return strings.HasSuffix(u.File, "_test.go") && u.Kind == KindAPI }) {
		t.Error("API item from a test file")
	}
}

func TestNPMCommander(t *testing.T) {
	dir := npmPackage(t, "commander@14.0.0")
	d := extract(t, NPM, "commander", "14.0.0", dir)
	if d.Meta.License != "MIT" || d.Meta.Repository != "https://github.com/tj/commander.js" {
		t.Errorf("meta = %+v", d.Meta)
	}
	u := unit(t, d, "api/Command.createCommand")
	checkSource(t, dir, u, "createCommand(name?: string): Command",
		"Factory routine to create a new unattached command.",
		"   * Factory routine to create a new unattached command.")
	if u.File != "typings/index.d.ts" || u.Symbol.Kind != SymMethod {
		t.Errorf("file %s kind %s", u.File, u.Symbol.Kind)
	}
	checkSource(t, dir, unit(t, d, "api/createCommand"), "export function createCommand(name?: string): Command", "", "export function createCommand")
	// overloads are one item
	if v := unit(t, d, "api/Command.version"); strings.Count(v.Symbol.Signature, "\n") != 1 {
		t.Errorf("version overloads: %q", v.Symbol.Signature)
	}
	// a generic return type's comma does not split a member
	if g := unit(t, d, "api/Help.groupItems"); !strings.HasSuffix(g.Symbol.Signature, "): Map<string, T[]>") {
		t.Errorf("groupItems = %q", g.Symbol.Signature)
	}
	// @example kept in the doc, and an example unit of its own
	if c := unit(t, d, "api/Option.conflicts"); !strings.Contains(c.Doc, "@example\n```ts\nnew Option('--rgb').conflicts('cmyk');") {
		t.Errorf("conflicts doc = %q", c.Doc)
	}
	if e := unit(t, d, "example/Option.implies"); !strings.Contains(e.Text, "```ts\nprogram\n  .addOption(new Option('--log', 'write logging information to file'))") {
		t.Errorf("implies example:\n%s", e.Text)
	}
	// not exported: LiteralUnion
	if hasUnit(d, func(u Unit) bool { return u.Path == "api/LiteralUnion" }) {
		t.Error("a non-exported type is listed")
	}
	checkReadme(t, d, []string{"img.shields.io/npm", "[![Build Status]"}, []string{"## Installation", "npm install commander", "## Quick Start"})
}

func TestNPMZod(t *testing.T) {
	dir := npmPackage(t, "zod@3.25.76")
	d := extract(t, NPM, "zod", "3.25.76", dir)
	// reached through index.d.cts → v3/external.cjs → export * from "./types.cjs"
	u := unit(t, d, "api/ZodType.safeParse")
	checkSource(t, dir, u, "safeParse(data: unknown, params?: util.InexactPartial<ParseParams>): SafeParseReturnType<Input, Output>", "", "safeParse(")
	if u.File != "v3/types.d.cts" {
		t.Errorf("file %s", u.File)
	}
	// `export { stringType as string }`: the declaration under its exported name
	s := unit(t, d, "api/string")
	if !strings.HasPrefix(s.Symbol.Signature, "declare const stringType: (params?: RawCreateParams") {
		t.Errorf("string = %q", s.Symbol.Signature)
	}
	// more names for one declaration: export { ZodType as Schema, ZodType as ZodSchema },
	// and import X from "./locales/en.cjs"; export { X } (a default export there)
	for _, p := range []string{"api/Schema", "api/ZodSchema", "api/effect", "api/transformer", "api/defaultErrorMap", "api/infer"} {
		unit(t, d, p)
	}
	alias := unit(t, d, "api/ZodType.spa")
	checkSource(t, dir, alias, "spa: (data: unknown, params?: util.InexactPartial<ParseParams>) => Promise<SafeParseReturnType<Input, Output>>",
		"Alias of safeParseAsync", "/** Alias of safeParseAsync */")
	checkReadme(t, d, []string{"img.shields.io/npm/dw/zod.svg", "Zod CI status"}, []string{"## Installation", "npm install zod", "## Basic usage"})
	if d.Meta.Homepage != "https://zod.dev" || d.Meta.License != "MIT" {
		t.Errorf("meta = %+v", d.Meta)
	}
}

func TestPythonRequests(t *testing.T) {
	dir := pyWheel(t, "requests==2.32.3")
	d := extract(t, Python, "requests", "2.32.3", dir)
	if d.Meta.Summary != "Python HTTP for Humans." || d.Meta.License != "Apache-2.0" || d.Meta.Repository != "https://github.com/psf/requests" {
		t.Errorf("meta = %+v", d.Meta)
	}
	// defined in requests/api.py, imported as requests.get
	u := unit(t, d, "api/requests.get")
	if !strings.Contains(u.Text, "Also importable as `requests.api.get`") {
		t.Errorf("requests.get does not name its module path:\n%s", u.Text)
	}
	checkSource(t, dir, u, "def get(url, params=None, **kwargs)", "Sends a GET request.\n\n:param url: URL for the new :class:`Request` object.",
		`    r"""Sends a GET request.`)
	if u.Symbol.Kind != SymFunc || u.File != "requests/api.py" {
		t.Errorf("kind %s file %s", u.Symbol.Kind, u.File)
	}
	// a method, and a property
	unit(t, d, "api/requests.Session.request")
	if p := unit(t, d, "api/requests.Response.ok"); p.Symbol.Kind != SymProperty || !strings.HasPrefix(p.Symbol.Signature, "@property\ndef ok(self)") {
		t.Errorf("Response.ok = %+v", p.Symbol)
	}
	// doctest blocks are examples
	ex := unit(t, d, "example/requests.request")
	if !strings.Contains(ex.Text, ">>> req = requests.request('GET', 'https://httpbin.org/get')") {
		t.Errorf("example:\n%s", ex.Text)
	}
	if hasUnit(d, func(u Unit) bool {
		return strings.Contains(u.Path, "._") && !strings.Contains(u.Path, ".__init__") && !strings.Contains(u.Path, ".__call__")
	}) {
		t.Error("a _private name is listed")
	}
	// the README is the METADATA body
	checkReadme(t, d, []string{"img.shields.io", "[![Downloads]"}, []string{"## Installing Requests and Supported Versions", "$ python -m pip install requests"})
}

func TestPythonClick(t *testing.T) {
	dir := pyWheel(t, "click==8.1.8")
	d := extract(t, Python, "click", "8.1.8", dir)
	u := unit(t, d, "api/click.Context.invoke")
	if strings.Count(u.Symbol.Signature, "@t.overload") != 2 || !strings.Contains(u.Doc, "Invokes a command callback in exactly the way it expects.") {
		t.Errorf("overloads not merged with the implementation's doc: %+v", u)
	}
	o := unit(t, d, "api/click.option")
	sig := "def option(\n    *param_decls: str, cls: t.Optional[t.Type[Option]] = None, **attrs: t.Any\n) -> t.Callable[[FC], FC]"
	checkSource(t, dir, o, sig, "Attaches an option to the command.", `    """Attaches an option to the command.  All positional arguments are`)
	// a nested method's multi-line signature is unindented, a decorator kept
	h := unit(t, d, "api/click.HelpOption.show_help")
	if h.Symbol.Signature != "@staticmethod\ndef show_help(ctx: Context, param: Parameter, value: bool) -> None" {
		t.Errorf("show_help = %q", h.Symbol.Signature)
	}
	checkReadme(t, d, []string{"## License"}, []string{"## A Simple Example", "@click.command()"})
}

func TestRustAnyhow(t *testing.T) {
	dir := filepath.Join(crates(t), "anyhow-1.0.98")
	d := extract(t, Rust, "anyhow", "1.0.98", dir)
	if d.Meta.License != "MIT OR Apache-2.0" || d.Meta.Repository != "https://github.com/dtolnay/anyhow" {
		t.Errorf("meta = %+v", d.Meta)
	}
	// an inherent method in a private module, public through its type
	u := unit(t, d, "api/Error::chain")
	checkSource(t, dir, u, "pub fn chain(&self) -> Chain", "An iterator of the chain of source errors contained by this Error.",
		"    /// An iterator of the chain of source errors contained by this Error.")
	if u.File != "src/error.rs" {
		t.Errorf("file %s", u.File)
	}
	// # Examples code blocks, rustdoc's hidden lines dropped
	ex := unit(t, d, "example/Error::chain")
	if !strings.Contains(ex.Text, "```rust") || !strings.Contains(ex.Text, "for cause in error.chain()") {
		t.Errorf("example:\n%s", ex.Text)
	}
	m := unit(t, d, "api/anyhow")
	if m.Symbol.Kind != SymMacro || !strings.HasPrefix(m.Symbol.Signature, "macro_rules! anyhow {\n    ($msg:literal $(,)?) => { ... };") {
		t.Errorf("anyhow! = %+v", m.Symbol)
	}
	if c := unit(t, d, "api/mod/anyhow"); !strings.Contains(c.Doc, "This library provides [`anyhow::Error`][Error]") {
		t.Errorf("crate doc = %q", c.Doc[:min(200, len(c.Doc))])
	}
	unit(t, d, "api/Context::with_context")
	// crate-internal plumbing in private modules stays out
	for _, p := range []string{"api/Own", "api/Sealed", "api/Adhoc"} {
		if hasUnit(d, func(u Unit) bool { return u.Path == p }) {
			t.Errorf("%s is listed", p)
		}
	}
	checkReadme(t, d, []string{"img.shields.io", "#### License", "Licensed under either of"}, []string{"## Details", "anyhow = \"1.0\""})
}

func TestRustSerde(t *testing.T) {
	dir := filepath.Join(crates(t), "serde-1.0.219")
	d := extract(t, Rust, "serde", "1.0.219", dir)
	u := unit(t, d, "api/ser::Serializer::serialize_u8")
	checkSource(t, dir, u, "fn serialize_u8(self, v: u8) -> Result<Self::Ok, Self::Error>", "Serialize a `u8` value.", "    /// Serialize a `u8` value.")
	if u.File != "src/ser/mod.rs" || u.Symbol.Kind != SymMethod {
		t.Errorf("file %s kind %s", u.File, u.Symbol.Kind)
	}
	if tr := unit(t, d, "api/de::Deserializer"); tr.Symbol.Kind != SymTrait {
		t.Errorf("Deserializer kind %s", tr.Symbol.Kind)
	}
	if !hasUnit(d, func(u Unit) bool { return u.Kind == KindExample && strings.HasPrefix(u.Path, "example/ser::") }) {
		t.Error("no # Examples from ser")
	}
	if hasUnit(d, func(u Unit) bool { return strings.Contains(u.Path, "__private") }) {
		t.Error("#[doc(hidden)] __private listed")
	}
}

func TestSwiftFixture(t *testing.T) {
	dir := swiftPackage(t)
	d := extract(t, Swift, "Greeter", "1.0.0", dir)
	u := unit(t, d, "api/Greeter.greetAll")
	sig := "public static func greetAll<C: Collection>(\n    _ names: C,\n    separator: String = \", \"\n) -> String where C.Element == String"
	if u.Symbol.Signature != sig {
		t.Errorf("greetAll = %q", u.Symbol.Signature)
	}
	if g := unit(t, d, "api/Greeter.greet"); g.Symbol.Signature != "@discardableResult\npublic func greet(punctuation: Character = \"!\") -> String" {
		t.Errorf("greet = %q", g.Symbol.Signature)
	}
	checkSource(t, dir, unit(t, d, "api/Greeter.init"), "public init(name: String)", "Creates a greeter for a name.\n- Parameter name: Who to greet.",
		"    /// Creates a greeter for a name.")
	if p := unit(t, d, "api/Greetable.didGreet"); p.Symbol.Signature != "func didGreet(with greeting: String) async throws" {
		t.Errorf("protocol requirement = %q", p.Symbol.Signature)
	}
	for _, p := range []string{"api/Tone.formal", "api/Greeter.greet~2", "api/BaseGreeter.==", "api/platformName", "api/pattern", "api/Greetable.displayName"} {
		unit(t, d, p)
	}
	for _, p := range []string{"api/Greeter.notPublic", "api/Greeter.cache", "api/Greeter.internalOnly", "api/hidden", "api/GreeterTests"} {
		if hasUnit(d, func(u Unit) bool { return u.Path == p }) {
			t.Errorf("%s is listed", p)
		}
	}
	ex := unit(t, d, "example/Greeter")
	if !strings.Contains(ex.Text, `let g = Greeter(name: "Ada")`) {
		t.Errorf("example:\n%s", ex.Text)
	}
	checkReadme(t, d, []string{"img.shields.io", "## License"}, []string{"## Usage", "print(g.greet())"})
}
