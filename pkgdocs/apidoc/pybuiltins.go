package apidoc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/gnosearch/gno/pkgdocs/internal/capbuf"
)

// Python's built-in types and functions (dict.items, str.split, open,
// len) and its C modules (math, itertools, time, the os functions of
// posix) have no source to parse: their docs live in C. The
// interpreter holds them as docstrings and text signatures, so it is
// asked, once per interpreter version: `python -I -S -c pyIntrospect`
// (isolated: no site-packages, no user site, no PYTHON* variables, the
// current folder not on sys.path), which imports only standard-library
// modules, runs no project or package code, and prints one JSON
// document after a marker line. Its time and output are bounded; a
// Python that cannot start or answers nonsense costs a warning, never
// the rest of the standard library.

// pyIntrospectTimeout and pyIntrospectMax bound the interpreter's run.
const (
	pyIntrospectTimeout = 60 * time.Second
	pyIntrospectMax     = 32 << 20
	pyMarker            = "\x00gno-pybuiltins\x00"
)

// pyIntrospect documents builtins, the C modules that have no .py
// (posix as os), and the C objects the listed .py modules re-export
// (collections.deque, functools.reduce); members of a class only when
// the class defines them, dunders left out. Docstrings are cut at 8 KB.
const pyIntrospect = `import sys, inspect, json, importlib
MAXDOC = 8192
def doc(o):
    d = getattr(o, "__doc__", None)
    return d[:MAXDOC] if isinstance(d, str) else ""
def sig(o):
    try:
        return str(inspect.signature(o))
    except Exception:
        return ""
def native(o):
    if isinstance(o, type):
        return not any(inspect.isfunction(v) for v in vars(o).values())
    return inspect.isbuiltin(o) or inspect.ismethoddescriptor(o)
def item(name, kind, o):
    return {"name": name, "kind": kind, "sig": sig(o), "doc": doc(o)}
def cls(prefix, c, out):
    out.append(item(prefix, "class", c))
    for n, m in sorted(vars(c).items()):
        if n.startswith("_"):
            continue
        if inspect.isroutine(m) or isinstance(m, (classmethod, staticmethod)):
            out.append(item(prefix + "." + n, "method", getattr(c, n, m)))
        elif inspect.isgetsetdescriptor(m) or inspect.ismemberdescriptor(m) or isinstance(m, property):
            out.append({"name": prefix + "." + n, "kind": "property", "sig": "", "doc": doc(m)})
def module(modname, public, only_native):
    try:
        m = importlib.import_module(modname)
    except Exception:
        return None
    out = []
    if not only_native:
        out.append({"name": public, "kind": "package", "sig": "", "doc": doc(m)})
    prefix = "" if public == "builtins" else public + "."
    for n, o in sorted(vars(m).items()):
        if n.startswith("_") or inspect.ismodule(o):
            continue
        if only_native and not native(o):
            continue
        if isinstance(o, type):
            cls(prefix + n, o, out)
        elif inspect.isroutine(o):
            out.append(item(prefix + n, "func", o))
        elif isinstance(o, (int, float)) and not isinstance(o, bool) and public not in ("sys", "os", "builtins"):
            out.append({"name": prefix + n, "kind": "const", "sig": prefix + n + " = " + repr(o), "doc": ""})
    return out
C = sorted(n for n in sys.builtin_module_names if not n.startswith("_"))
try:
    import os, importlib.machinery as mach
    for p in sys.path:
        if p.endswith("lib-dynload") and os.path.isdir(p):
            for f in os.listdir(p):
                for s in mach.EXTENSION_SUFFIXES:
                    if f.endswith(s) and not f.startswith("_"):
                        C.append(f[:-len(s)])
except Exception:
    pass
SKIP = {"readline", "xxsubtype", "xxlimited", "xxlimited_35", "nis", "spwd", "ossaudiodev", "audioop", "posix", "nt"}
mods = []
mods.append(("builtins", module("builtins", "builtins", False)))
for n in sorted(set(C)):
    if n not in SKIP and n != "builtins":
        mods.append((n, module(n, n, False)))
for n in ("posix", "nt"):
    if n in sys.builtin_module_names:
        mods.append(("os", module(n, "os", True)))
for n in ("collections", "functools", "io", "heapq", "bisect", "operator", "struct", "datetime", "decimal",
          "csv", "socket", "pickle", "random", "hashlib", "json", "re", "array", "threading", "contextvars", "zoneinfo"):
    mods.append((n, module(n, n, True)))
v = sys.version_info
res = {"version": "%d.%d.%d" % (v[0], v[1], v[2]), "modules": [{"name": n, "items": i} for n, i in mods if i]}
sys.stdout.write("\0gno-pybuiltins\0\n")
sys.stdout.write(json.dumps(res))
`

// pyBuiltinDoc is the introspection's answer.
type pyBuiltinDoc struct {
	Version string           `json:"version"`
	Modules []pyBuiltinGroup `json:"modules"`
}

type pyBuiltinGroup struct {
	Name  string          `json:"name"`
	Items []pyBuiltinItem `json:"items"`
}

type pyBuiltinItem struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Sig  string `json:"sig"`
	Doc  string `json:"doc"`
}

// pyBuiltinName is a dotted Python name.
var pyBuiltinName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

var pyBuiltinKinds = map[string]string{"package": SymPackage, "class": SymClass, "func": SymFunc, "method": SymMethod,
	"property": SymProperty, "const": SymConst}

// parsePyBuiltins reads the introspection's output: whatever precedes
// the marker (a module printing on import) is ignored; items with a
// name that is not a dotted identifier or an unknown kind are dropped,
// and texts are cut, so a broken or hostile interpreter cannot inject
// paths or flood the index.
func parsePyBuiltins(out []byte) (*pyBuiltinDoc, error) {
	i := bytes.LastIndex(out, []byte(pyMarker))
	if i < 0 {
		return nil, errors.New("no answer (marker missing)")
	}
	var d pyBuiltinDoc
	if err := json.Unmarshal(bytes.TrimSpace(out[i+len(pyMarker):]), &d); err != nil {
		return nil, fmt.Errorf("answer not JSON: %w", err)
	}
	const maxItems, maxSig, maxDoc = 50000, 2048, 8192
	n := 0
	for gi := range d.Modules {
		g := &d.Modules[gi]
		keep := g.Items[:0]
		for _, it := range g.Items {
			if n >= maxItems || len(it.Name) > 200 || !pyBuiltinName.MatchString(it.Name) || pyBuiltinKinds[it.Kind] == "" {
				continue
			}
			it.Sig = cutUTF8(strings.ToValidUTF8(it.Sig, ""), maxSig)
			it.Doc = cutUTF8(strings.ToValidUTF8(it.Doc, ""), maxDoc)
			keep = append(keep, it)
			n++
		}
		g.Items = keep
	}
	return &d, nil
}

// cutUTF8 cuts s to at most n bytes on a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// pyBuiltins adds the units of the interpreter's C-implemented API to a
// Python standard library's docs, skipping names the .py sources gave.
func pyBuiltins(x *extractor) {
	out, err := runPyIntrospect(x.ctx, x.pkg.Interpreter)
	if err != nil {
		x.warn("", "built-in types and functions not indexed: %v", err)
		return
	}
	d, err := parsePyBuiltins(out)
	if err != nil {
		x.warn("", "built-in types and functions not indexed: the Python interpreter %s: %v", x.pkg.Interpreter, err)
		return
	}
	for _, g := range d.Modules {
		for _, it := range g.Items {
			if x.paths["api/"+it.Name] > 0 {
				continue // the .py source documents it
			}
			s := Symbol{Name: it.Name, Kind: pyBuiltinKinds[it.Kind], Signature: pyBuiltinSig(it)}
			if !x.addAPI("python", s, strings.TrimSpace(pyBuiltinDocText(it)), "", 0, nil) {
				return
			}
		}
	}
}

// runPyIntrospect runs the introspection in isolated mode with its
// bounds.
func runPyIntrospect(ctx context.Context, python string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, pyIntrospectTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", "-S", "-c", pyIntrospect)
	stdout, stderr := capbuf.New(pyIntrospectMax), capbuf.New(4096)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("the Python interpreter %s took more than %s", python, pyIntrospectTimeout)
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg != "" {
			return nil, fmt.Errorf("the Python interpreter %s: %v: %s", python, err, msg)
		}
		return nil, fmt.Errorf("the Python interpreter %s: %v", python, err)
	case stdout.Over():
		return nil, fmt.Errorf("the Python interpreter %s: answer larger than %d bytes", python, pyIntrospectMax)
	}
	return stdout.Bytes(), nil
}

// pyBuiltinSig is the item's signature as Python spells a definition
// ("def split(self, /, sep=None, maxsplit=-1)"); without a text
// signature, the call lines the docstring opens with ("D.items() -> a
// set-like object ...").
func pyBuiltinSig(it pyBuiltinItem) string {
	short := it.Name[strings.LastIndexByte(it.Name, '.')+1:]
	switch it.Kind {
	case "package", "property":
		return ""
	case "const":
		return it.Sig
	}
	if it.Sig != "" {
		kw := "def "
		if it.Kind == "class" {
			kw = "class "
		}
		return kw + short + strings.Join(strings.Fields(it.Sig), " ")
	}
	if lines := pyDocSigLines(it.Doc); len(lines) > 0 {
		return strings.Join(lines, "\n")
	}
	if it.Kind == "class" {
		return "class " + short
	}
	return ""
}

// pyDocCall is a docstring line that shows a call: "name(...)" or
// "D.items() -> ...".
var pyDocCall = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*\(.*\)`)

// pyDocSigLines are the call lines a C docstring opens with.
func pyDocSigLines(doc string) []string {
	var out []string
	for _, l := range strings.Split(doc, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || !pyDocCall.MatchString(l) {
			break
		}
		out = append(out, l)
	}
	return out
}

// pyBuiltinDocText is the doc without the call lines pyBuiltinSig took
// from it.
func pyBuiltinDocText(it pyBuiltinItem) string {
	if it.Sig != "" {
		return it.Doc
	}
	lines := strings.Split(it.Doc, "\n")
	n := len(pyDocSigLines(it.Doc))
	return strings.Join(lines[n:], "\n")
}
