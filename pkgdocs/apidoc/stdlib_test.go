package apidoc

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// stdlibExtract extracts a standard library, as pkgdocs does.
func stdlibExtract(t *testing.T, eco, version, dir, python string) *Docs {
	t.Helper()
	d, err := Extract(context.Background(), Package{Ecosystem: eco, Name: "stdlib", Version: version, Dir: dir, Stdlib: true, Interpreter: python}, Limits{})
	if err != nil {
		t.Fatalf("Extract %s stdlib: %v", eco, err)
	}
	seen := map[string]bool{}
	for _, u := range d.Units {
		if seen[u.Path] {
			t.Errorf("duplicate unit path %q", u.Path)
		}
		seen[u.Path] = true
	}
	return d
}

var goStd = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	return strings.TrimSpace(string(out)), err
})

// goDocOf is `go doc`'s view of a symbol: its declaration line and doc.
func goDocOf(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"doc"}, args...)...).Output()
	if err != nil {
		t.Skipf("go doc %v: %v", args, err)
	}
	return string(out)
}

// This machine's Go standard library: packages named by import path,
// methods, examples; signatures and docs as `go doc` prints them.
func TestStdlibGoAPI(t *testing.T) {
	goroot, err := goStd()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	d := stdlibExtract(t, Go, "go", filepath.Join(goroot, "src"), "")
	for _, c := range []struct{ path, args string }{
		{"api/os/exec.Command", "os/exec Command"},
		{"api/context.WithTimeout", "context WithTimeout"},
		{"api/os/exec.Cmd.Output", "os/exec Cmd.Output"},
		{"api/net/http.Client.Do", "net/http Client.Do"},
	} {
		u := unit(t, d, c.path)
		want := strings.Split(goDocOf(t, strings.Fields(c.args)...), "\n")
		// go doc prints the package line, the declaration, then the doc
		// reflowed and indented, doc links unbracketed.
		i := 0
		for i < len(want) && !strings.HasPrefix(want[i], "func ") {
			i++
		}
		if i == len(want) || u.Symbol.Signature != want[i] {
			t.Fatalf("%s: signature %q, go doc says %q", c.path, u.Symbol.Signature, want)
		}
		words := func(s string) string {
			return strings.Join(strings.Fields(strings.NewReplacer("[", "", "]", "").Replace(s)), " ")
		}
		goDoc := words(strings.Join(want[i+1:], "\n"))
		first := words(u.Doc)
		first = first[:strings.IndexByte(first, '.')+1]
		if first == "" || !strings.HasPrefix(goDoc, first) {
			t.Errorf("%s: doc opens %q, go doc's %q", c.path, first, goDoc)
		}
	}
	ex := unit(t, d, "example/context/ExampleWithTimeout")
	if !strings.Contains(ex.Text, "context.WithTimeout(") || !strings.Contains(unit(t, d, "api/context.WithTimeout").Text, "## Examples") {
		t.Errorf("ExampleWithTimeout not kept with context.WithTimeout:\n%s", ex.Text)
	}
	for _, u := range d.Units {
		if strings.Contains(u.Path, "internal/") || strings.HasPrefix(u.Path, "api/cmd/") || strings.Contains(u.Path, "vendor/") {
			t.Fatalf("unit %s: internal, cmd and vendor packages are no API", u.Path)
		}
	}
}

// pythonStd is this machine's python3: its stdlib folder and itself.
var pythonStd = sync.OnceValues(func() ([2]string, error) {
	out, err := exec.Command("python3", "-I", "-S", "-c", "import sys, sysconfig; print(sysconfig.get_paths()['stdlib']); print(sys.executable)").Output()
	f := strings.Fields(string(out))
	if err == nil && len(f) != 2 {
		err = os.ErrNotExist
	}
	if err != nil {
		return [2]string{}, err
	}
	return [2]string{f[0], f[1]}, nil
})

// pyEval prints a Python expression's value with the interpreter.
func pyEval(t *testing.T, python, expr string) string {
	t.Helper()
	out, err := exec.Command(python, "-I", "-S", "-c", "import inspect, re\nprint("+expr+", end='')").Output()
	if err != nil {
		t.Fatalf("python %s: %v", expr, err)
	}
	return string(out)
}

// This machine's Python standard library: modules parsed from Lib, and
// the built-ins documented in C, each as the interpreter's own help
// shows it.
func TestStdlibPythonAPI(t *testing.T) {
	py, err := pythonStd()
	if err != nil {
		t.Skipf("python3 cannot run: %v", err)
	}
	d := stdlibExtract(t, Python, "3", py[0], py[1])
	if len(d.Warnings) > 0 {
		for _, w := range d.Warnings {
			if strings.Contains(w.Msg, "built-in") {
				t.Fatalf("built-ins not read: %s", w)
			}
		}
	}
	// Parsed from source, checked against the file.
	u := unit(t, d, "api/re.findall")
	checkSource(t, py[0], u, "def findall(pattern, string, flags=0)", "Return a list of all non-overlapping matches", `"""Return a list of all non-overlapping matches in the string.`)

	// From C: signature and doc as inspect and __doc__ give them.
	for _, c := range []struct{ path, obj string }{
		{"api/str.split", "str.split"},
		{"api/list.sort", "list.sort"},
		{"api/open", "open"},
		{"api/len", "len"},
		{"api/math.sqrt", "__import__('math').sqrt"},
	} {
		u := unit(t, d, c.path)
		sig := "def " + pyEval(t, py[1], c.obj+".__name__") + strings.Join(strings.Fields(pyEval(t, py[1], "inspect.signature("+c.obj+")")), " ")
		if u.Symbol.Signature != sig {
			t.Errorf("%s: signature %q, inspect says %q", c.path, u.Symbol.Signature, sig)
		}
		if doc := strings.TrimSpace(pyEval(t, py[1], c.obj+".__doc__")); u.Doc != doc {
			t.Errorf("%s: doc\n got %q\nwant %q", c.path, u.Doc, doc)
		}
		if u.File != "" || u.Line != 0 {
			t.Errorf("%s: a built-in has no source file, got %s:%d", c.path, u.File, u.Line)
		}
	}
	// No text signature: the call lines the docstring opens with.
	u = unit(t, d, "api/dict.items")
	doc := pyEval(t, py[1], "dict.items.__doc__")
	if u.Symbol.Kind != SymMethod || u.Symbol.Signature == "" || !strings.HasPrefix(doc, u.Symbol.Signature) {
		t.Errorf("dict.items: %+v, __doc__ %q", u.Symbol, doc)
	}
	unit(t, d, "api/dict")
	unit(t, d, "api/collections.deque.appendleft") // C, re-exported by collections/__init__.py
	unit(t, d, "api/os.getcwd")                    // posix, documented as os
	unit(t, d, "api/subprocess.run")               // .py
	for _, u := range d.Units {
		if strings.HasPrefix(u.Path, "api/test.") || strings.HasPrefix(u.Path, "api/idlelib") || strings.HasPrefix(u.Path, "api/lib2to3") {
			t.Fatalf("unit %s: test suites and tools are no API", u.Path)
		}
	}
}

// A Python that cannot start costs the built-ins, with a warning that
// says so, never the modules parsed from source.
func TestStdlibPythonBrokenInterpreter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake toolchain is a shell script")
	}
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "shlex.py"), []byte("def split(s):\n    \"\"\"Split s like a shell.\"\"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "python3")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := stdlibExtract(t, Python, "3", lib, bad)
	unit(t, d, "api/shlex.split")
	found := false
	for _, w := range d.Warnings {
		found = found || strings.Contains(w.Msg, "built-in types and functions not indexed") && strings.Contains(w.Msg, "init_fs_encoding")
	}
	if !found {
		t.Fatalf("no warning naming the interpreter's failure: %v", d.Warnings)
	}
}

// Node's API from @types/node as npm ships it.
func TestStdlibNodeTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches @types/node with npm; skipped with -short")
	}
	dir := npmPackage(t, "@types/node@22.10.2")
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Join(filepath.Dir(dir), "node") // @types tarballs hold node/, not package/
	}
	d := stdlibExtract(t, NPM, "node-types-22.10.2", dir, "")
	u := unit(t, d, "api/fs.readFile")
	if !strings.Contains(u.Symbol.Signature, "function readFile(") || !strings.Contains(u.Doc, "Asynchronously reads the entire contents of a file") {
		t.Errorf("fs.readFile: %+v\n%s", u.Symbol, u.Doc)
	}
	unit(t, d, "api/fs/promises.readFile")
	unit(t, d, "api/child_process.spawn")
	for _, u := range d.Units {
		if strings.HasPrefix(u.Path, "api/node:") {
			t.Fatalf("unit %s: node: twins are left out", u.Path)
		}
	}
}

func TestParsePyBuiltins(t *testing.T) {
	out := []byte("noise a module printed\n" + pyMarker + "\n" + `{"version": "3.11.7", "modules": [{"name": "builtins", "items": [
		{"name": "len", "kind": "func", "sig": "(obj, /)", "doc": "Return the number of items in a container."},
		{"name": "../../etc/passwd", "kind": "func", "sig": "", "doc": ""},
		{"name": "dict.items", "kind": "weird", "sig": "", "doc": ""},
		{"name": "dict.items", "kind": "method", "sig": "", "doc": "D.items() -> a set-like object providing a view on D's items"}]}]}`)
	d, err := parsePyBuiltins(out)
	if err != nil {
		t.Fatal(err)
	}
	items := d.Modules[0].Items
	if len(items) != 2 || items[0].Name != "len" || items[1].Kind != "method" {
		t.Fatalf("items %+v", items)
	}
	if s := pyBuiltinSig(items[0]); s != "def len(obj, /)" {
		t.Errorf("len sig %q", s)
	}
	if s := pyBuiltinSig(items[1]); s != "D.items() -> a set-like object providing a view on D's items" {
		t.Errorf("dict.items sig %q", s)
	}
	for _, bad := range []string{"", "no marker", pyMarker + "{", pyMarker + "[1]"} {
		if _, err := parsePyBuiltins([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzPyBuiltins: whatever an interpreter prints, the reader returns an
// error or items with dotted names, known kinds and bounded texts.
func FuzzPyBuiltins(f *testing.F) {
	f.Add([]byte(pyMarker + `{"version":"3.12.1","modules":[{"name":"math","items":[{"name":"math.sqrt","kind":"func","sig":"(x, /)","doc":"Return the square root of x."}]}]}`))
	f.Add([]byte("x" + pyMarker + `{"modules":[{"items":[{"name":"a..b","kind":"class"}]}]}`))
	f.Add([]byte(pyMarker + pyMarker + `null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parsePyBuiltins(data)
		if err != nil {
			return
		}
		for _, g := range d.Modules {
			for _, it := range g.Items {
				if !pyBuiltinName.MatchString(it.Name) || pyBuiltinKinds[it.Kind] == "" || len(it.Sig) > 2048 || len(it.Doc) > 8192 {
					t.Fatalf("item let through: %+v", it)
				}
				_ = pyBuiltinSig(it)
				_ = pyBuiltinDocText(it)
				if _, err := json.Marshal(it); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// Rust's std from a rust-src layout. The component cannot be installed
// here (rustup downloads it from its own server, not a registry), so the
// layout is written by hand: library/std with a module and a type.
func TestStdlibRustSrcLayout(t *testing.T) {
	std := filepath.Join(t.TempDir(), "library", "std")
	for name, src := range map[string]string{
		"Cargo.toml":                  "[package]\nname = \"std\"\nversion = \"0.0.0\"\n",
		"src/lib.rs":                  "//! # The Rust Standard Library\n\npub mod collections;\n",
		"src/collections/mod.rs":      "//! Collection types.\n\nmod hash;\npub use self::hash::map::HashMap;\npub mod hash_map { pub use super::hash::map::*; }\n",
		"src/collections/hash/mod.rs": "pub(super) mod map;\n",
		"src/collections/hash/map.rs": "/// A hash map implemented with quadratic probing and SIMD lookup.\npub struct HashMap<K, V, S = RandomState> {\n    base: base::HashMap<K, V, S>,\n}\n\nimpl<K, V> HashMap<K, V, RandomState> {\n    /// Creates an empty `HashMap`.\n    pub fn new() -> HashMap<K, V, RandomState> {\n        Default::default()\n    }\n}\n",
	} {
		p := filepath.Join(std, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := stdlibExtract(t, Rust, "1.85.0", std, "")
	var names []string
	for _, u := range d.Units {
		if u.Symbol != nil {
			names = append(names, u.Symbol.Name)
		}
	}
	if d.Package.Name != "stdlib" || !hasUnit(d, func(u Unit) bool { return u.Symbol != nil && u.Symbol.Name == "std" }) ||
		!hasUnit(d, func(u Unit) bool { return u.Symbol != nil && strings.HasSuffix(u.Symbol.Name, "HashMap::new") }) {
		t.Fatalf("rust std units: %v", names)
	}
}
