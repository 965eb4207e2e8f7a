package apidoc

import (
	"fmt"
	"strings"
	"testing"
)

// TestPythonHttpx: httpx defines its API in private modules and
// re-exports it with `from ._client import *` under __all__; units carry
// the public path and the defining file.
func TestPythonHttpx(t *testing.T) {
	dir := pyWheel(t, "httpx==0.27.2")
	d := extract(t, Python, "httpx", "0.27.2", dir)
	g := unit(t, d, "api/httpx.get")
	sig := "def get(\n    url: URL | str,\n    *,\n    params: QueryParamTypes | None = None,"
	if !strings.HasPrefix(g.Symbol.Signature, sig) || !strings.HasSuffix(g.Symbol.Signature, "    trust_env: bool = True,\n) -> Response") {
		t.Errorf("httpx.get signature:\n%s", g.Symbol.Signature)
	}
	checkSource(t, dir, g, g.Symbol.Signature, "Sends a `GET` request.\n\n**Parameters**: See `httpx.request`.", "    Sends a `GET` request.")
	if g.File != "httpx/_api.py" || g.Symbol.Kind != SymFunc {
		t.Errorf("httpx.get: file %s kind %s", g.File, g.Symbol.Kind)
	}
	c := unit(t, d, "api/httpx.AsyncClient")
	checkSource(t, dir, c, "class AsyncClient(BaseClient)", "An asynchronous HTTP client, with connection pooling, HTTP/2, redirects,\ncookie persistence, etc.",
		"    An asynchronous HTTP client, with connection pooling, HTTP/2, redirects,")
	if c.File != "httpx/_client.py" || c.Symbol.Kind != SymClass {
		t.Errorf("httpx.AsyncClient: file %s kind %s", c.File, c.Symbol.Kind)
	}
	if m := unit(t, d, "api/httpx.AsyncClient.get"); m.Symbol.Kind != SymMethod || !strings.HasPrefix(m.Symbol.Signature, "async def get(") {
		t.Errorf("AsyncClient.get: %+v", m.Symbol)
	}
	// from ._main import main inside try, a var of __all__, a class of a private subpackage
	unit(t, d, "api/httpx.main")
	unit(t, d, "api/httpx.USE_CLIENT_DEFAULT")
	if h := unit(t, d, "api/httpx.HTTPTransport"); h.File != "httpx/_transports/default.py" {
		t.Errorf("HTTPTransport file %s", h.File)
	}
	// private modules contribute only what is re-exported
	if hasUnit(d, func(u Unit) bool { return strings.Contains(u.Path, "._") && !strings.Contains(u.Path, ".__") }) {
		t.Error("a private module's path is listed")
	}
	if hasUnit(d, func(u Unit) bool { return u.Path == "api/httpx.BaseClient" }) {
		t.Error("httpx.BaseClient is not re-exported but is listed")
	}
}

// TestPythonPydantic: pydantic's names are a lazy-import table read by
// its module __getattr__ (`_dynamic_imports`).
func TestPythonPydantic(t *testing.T) {
	dir := pyWheel(t, "pydantic==2.14.4")
	d := extract(t, Python, "pydantic", "2.14.4", dir)
	b := unit(t, d, "api/pydantic.BaseModel")
	checkSource(t, dir, b, "class BaseModel(metaclass=_model_construction.ModelMetaclass)", "!!! abstract \"Usage Documentation\"", `    """!!! abstract "Usage Documentation"`)
	if b.File != "pydantic/main.py" {
		t.Errorf("BaseModel file %s", b.File)
	}
	unit(t, d, "api/pydantic.BaseModel.model_dump")
	if c := unit(t, d, "api/pydantic.ConfigDict"); c.File != "pydantic/config.py" {
		t.Errorf("ConfigDict file %s", c.File)
	}
	if f := unit(t, d, "api/pydantic.Field"); !strings.Contains(f.Symbol.Signature, "@overload") && !strings.HasPrefix(f.Symbol.Signature, "def Field(") {
		t.Errorf("Field = %q", f.Symbol.Signature[:min(80, len(f.Symbol.Signature))])
	}
	for _, p := range []string{"api/pydantic.field_validator", "api/pydantic.ValidationError", "api/pydantic.TypeAdapter"} {
		unit(t, d, p)
	}
}

// TestPythonCircular: modules that re-export each other end with what
// each defines, and a name that only loops is left out with a warning.
func TestPythonCircular(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"loop/__init__.py": "from ._a import *\nfrom ._b import ghost\nfrom . import loop as again\n",
		"loop/_a.py":       "from ._b import *\n\ndef fa():\n    \"\"\"A.\"\"\"\n",
		"loop/_b.py":       "from ._a import *\nfrom ._a import ghost\n\ndef fb(x: int) -> int:\n    \"\"\"B.\"\"\"\n",
		"loop/self.py":     "from .self import *\nfrom loop.self import me\nme = me\nyou = they = you\n",
	})
	d := extract(t, Python, "loop", "1.0", dir)
	if u := unit(t, d, "api/loop.fb"); u.Symbol.Signature != "def fb(x: int) -> int" || u.File != "loop/_b.py" {
		t.Errorf("fb = %+v", u)
	}
	unit(t, d, "api/loop.fa")
	if hasUnit(d, func(u Unit) bool { return strings.Contains(u.Path, "ghost") || strings.Contains(u.Path, "again") }) {
		t.Error("a name that only loops is listed")
	}
	if !warned(d, "", "circular") {
		t.Errorf("no warning for the loop: %v", d.Warnings)
	}
}

// TestPythonStarDiamond: 24 levels of modules, each star-importing the
// two of the next level, every one listing a name nobody defines: the
// name is followed once per module, not once per path (2^24).
func TestPythonStarDiamond(t *testing.T) {
	files := map[string]string{"dia/__init__.py": "from ._m0a import *\nfrom ._m0b import *\n"}
	const levels = 24
	for i := 0; i < levels; i++ {
		for _, side := range []string{"a", "b"} {
			src := "__all__ = ['ghost', 'real']\n"
			if i+1 < levels {
				src += fmt.Sprintf("from ._m%da import *\nfrom ._m%db import *\n", i+1, i+1)
			} else {
				src += "def real():\n    \"\"\"Found.\"\"\"\n"
			}
			files[fmt.Sprintf("dia/_m%d%s.py", i, side)] = src
		}
	}
	d := extract(t, Python, "dia", "1.0", writePkg(t, files))
	if u := unit(t, d, "api/dia.real"); u.Doc != "Found." {
		t.Errorf("real = %+v", u)
	}
	if hasUnit(d, func(u Unit) bool { return u.Path == "api/dia.ghost" }) {
		t.Error("ghost listed")
	}
}

// TestPythonCycleNotMemoised: _a.x and _b.x import each other, and _b's
// stub defines x. Resolving _b.x first cuts the loop at _b.x inside _a.x;
// that failure of _a.x depended on the path, so _a.x resolved next on
// its own still finds the stub's x through _b.
func TestPythonCycleNotMemoised(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"cyc/__init__.py": "from ._b import x as y\nfrom ._a import x\n",
		"cyc/_a.py":       "from ._b import x\n",
		"cyc/_b.py":       "from ._a import x\n",
		"cyc/_b.pyi":      "def x(n: int) -> int:\n    \"\"\"X.\"\"\"\n",
	})
	d := extract(t, Python, "cyc", "1.0", dir)
	for _, path := range []string{"api/cyc.y", "api/cyc.x"} {
		if u := unit(t, d, path); u.Symbol.Signature != "def x(n: int) -> int" {
			t.Errorf("%s = %+v", path, u)
		}
	}
}

// TestPythonMainBlock: what a module defines under `if __name__ ==
// "__main__":` is a script run by hand, never there on import, so it is
// no API unit; definitions under other ifs (TYPE_CHECKING, a version
// test, the main guard's else) stay.
func TestPythonMainBlock(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"scr/__init__.py": "",
		"scr/tool.py": "from typing import TYPE_CHECKING\n\n" +
			"if TYPE_CHECKING:\n    from os import PathLike\n    Alias = Union[int, str]\n\n" +
			"def real(x: int) -> int:\n    \"\"\"Real.\"\"\"\n\n" +
			"if __name__ == \"__main__\":  # pragma: no cover\n    console = object()\n\n    def foo(a) -> None:\n        \"\"\"Demo.\"\"\"\n\n    class Demo:\n        pass\n" +
			"else:\n    imported = True\n\n" +
			"if ('__main__' == __name__):\n    bar = 1\n\n" +
			"if sys.platform != \"win32\" and __name__ == '__main__':\n    baz = 2\n\n" +
			"if __name__ != \"__main__\":\n    kept = 3\n\n" +
			"if __name__ == \"__main__\" or DEBUG:\n    maybe = 4\n",
	})
	d := extract(t, Python, "scr", "1.0", dir)
	if u := unit(t, d, "api/scr.tool.real"); u.Doc != "Real." {
		t.Errorf("real = %+v", u)
	}
	for _, p := range []string{"api/scr.tool.Alias", "api/scr.tool.imported", "api/scr.tool.kept", "api/scr.tool.maybe"} {
		unit(t, d, p)
	}
	for _, name := range []string{"console", "foo", "Demo", "bar", "baz"} {
		if hasUnit(d, func(u Unit) bool { return u.Path == "api/scr.tool."+name }) {
			t.Errorf("scr.tool.%s, defined under the main guard, is listed", name)
		}
	}
}

// TestPythonRichMainBlocks: rich 13.9.4 ends most modules with a demo
// under `if __name__ == "__main__":` (markdown.py's `console`,
// traceback.py's `foo`, ansi.py's guard joined with `and`); none of its
// names is a unit, while the modules' real API is.
func TestPythonRichMainBlocks(t *testing.T) {
	dir := pyWheel(t, "rich==13.9.4")
	d := extract(t, Python, "rich", "13.9.4", dir)
	u := unit(t, d, "api/rich.markdown.Markdown")
	if u.File != "rich/markdown.py" || u.Symbol.Kind != SymClass {
		t.Errorf("Markdown: file %s kind %s", u.File, u.Symbol.Kind)
	}
	unit(t, d, "api/rich.traceback.install")
	unit(t, d, "api/rich.console.Console")
	for _, p := range []string{"api/rich.markdown.console", "api/rich.markdown.parser", "api/rich.traceback.foo",
		"api/rich.traceback.bar", "api/rich.traceback.error", "api/rich.ansi.decoder", "api/rich.console.console"} {
		if hasUnit(d, func(u Unit) bool { return u.Path == p }) {
			t.Errorf("%s, defined under the main guard, is listed", p)
		}
	}
}

// TestPythonImportsNotAPI: a plain module without __all__ imports names
// for its own use; they are not its API (rich.markdown's Syntax is
// rich.syntax's). An import the package's __init__ re-exports, one
// written `as` itself, an alias of the module's own, and a facade over a
// private module that no public path reaches stay.
func TestPythonImportsNotAPI(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"fx/__init__.py": "from .widgets import Button\n",
		"fx/aaa.py": "from .syntax import Syntax\nfrom .widgets import Button\nfrom .widgets import Label as Label\n" +
			"import os\nfrom os.path import join\n\nclass Page:\n    \"\"\"A page.\"\"\"\n\nDoc = Page\n",
		"fx/syntax.py":  "class Syntax:\n    \"\"\"Highlights code.\"\"\"\n\n    def highlight(self, code: str) -> str:\n        \"\"\"Highlight.\"\"\"\n",
		"fx/widgets.py": "class Button:\n    \"\"\"A button.\"\"\"\n\nclass Label:\n    \"\"\"A label.\"\"\"\n",
		"fx/facade.py":  "from ._impl import Engine\n",
		"fx/_impl.py":   "class Engine:\n    \"\"\"Runs.\"\"\"\n",
	})
	d := extract(t, Python, "fx", "1.0", dir)
	if u := unit(t, d, "api/fx.syntax.Syntax"); u.File != "fx/syntax.py" || u.Doc != "Highlights code." {
		t.Errorf("Syntax = %+v", u)
	}
	unit(t, d, "api/fx.syntax.Syntax.highlight")
	unit(t, d, "api/fx.Button")
	unit(t, d, "api/fx.aaa.Label") // `as` itself: a re-export by convention
	unit(t, d, "api/fx.aaa.Page")
	unit(t, d, "api/fx.aaa.Doc")
	if u := unit(t, d, "api/fx.facade.Engine"); u.File != "fx/_impl.py" {
		t.Errorf("Engine file %s", u.File)
	}
	for _, p := range []string{"api/fx.aaa.Syntax", "api/fx.aaa.Syntax.highlight", "api/fx.aaa.Button", "api/fx.aaa.join", "api/fx.aaa.os"} {
		if hasUnit(d, func(u Unit) bool { return u.Path == p }) {
			t.Errorf("%s, imported for the module's own use, is listed", p)
		}
	}
	if hasUnit(d, func(u Unit) bool {
		return strings.Contains(u.Text, "fx.aaa.Syntax") || strings.Contains(u.Text, "fx.aaa.Button")
	}) {
		t.Error("an incidental import is named as a path of a unit")
	}
}

// TestPythonRichImports: rich 13.9.4's modules have no __all__ and
// import each other's classes; each class is a unit of the module that
// defines it only (rich.syntax.Syntax, not rich.markdown.Syntax).
func TestPythonRichImports(t *testing.T) {
	dir := pyWheel(t, "rich==13.9.4")
	d := extract(t, Python, "rich", "13.9.4", dir)
	if u := unit(t, d, "api/rich.syntax.Syntax"); u.File != "rich/syntax.py" || strings.HasPrefix(u.Doc, "Same as") {
		t.Errorf("Syntax: file %s doc %q", u.File, u.Doc)
	}
	unit(t, d, "api/rich.syntax.Syntax.highlight")
	unit(t, d, "api/rich.traceback.Traceback")
	if u := unit(t, d, "api/rich.console.Console"); strings.HasPrefix(u.Doc, "Same as") {
		t.Errorf("Console doc %q", u.Doc)
	}
	for _, p := range []string{"api/rich.markdown.Syntax", "api/rich.markdown.Syntax.highlight", "api/rich.align.Console",
		"api/rich.align.Console.out", "api/rich.logging.Traceback", "api/rich.markdown.Console"} {
		if hasUnit(d, func(u Unit) bool { return u.Path == p }) {
			t.Errorf("%s, an import of a module without __all__, is listed", p)
		}
	}
}
