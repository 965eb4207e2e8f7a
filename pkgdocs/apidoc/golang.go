package apidoc

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// goAPI documents every importable package of the module with go/doc:
// what `go doc` shows, Example functions included. internal/ packages are
// left out (a dependent cannot import them; what they export reaches the
// user only through an alias or a field of a public package, documented
// there), as are testdata/, vendor/, _ and . folders, nested modules,
// main packages and the example folders (read as example files).
func goAPI(x *extractor) error {
	dirs := map[string][]string{}
	skip := func(d string) bool {
		b := path.Base(d)
		if b == "internal" || b == "testdata" || b == "vendor" || strings.HasPrefix(b, ".") || strings.HasPrefix(b, "_") {
			return true
		}
		for _, e := range exampleDirs {
			if d == e {
				return true
			}
		}
		_, err := fs.Stat(x.fsys, d+"/go.mod")
		return err == nil // another module
	}
	x.walk(".", skip, func(name string) {
		if strings.HasSuffix(name, ".go") {
			dirs[path.Dir(name)] = append(dirs[path.Dir(name)], name)
		}
	})
	keys := make([]string, 0, len(dirs))
	for d := range dirs {
		keys = append(keys, d)
	}
	sort.Strings(keys)
	for _, d := range keys {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		goPackage(x, d, dirs[d])
	}
	return nil
}

func goPackage(x *extractor, dir string, names []string) {
	fset := token.NewFileSet()
	var files []*ast.File
	count := map[string]int{}
	for _, name := range names {
		src, ok := x.source(name)
		if !ok {
			continue
		}
		if strings.HasSuffix(name, "_test.go") && !strings.Contains(src, "\nfunc Example") {
			continue // tests matter only for their examples; parsing them is half the cost
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			x.warn(name, "not parsed: %v", firstLine(err.Error()))
			continue
		}
		if buildIgnored(f) {
			continue
		}
		files = append(files, f)
		if !strings.HasSuffix(name, "_test.go") {
			count[f.Name.Name]++
		}
	}
	pkgName, best := "", 0
	for n, c := range count {
		if c > best || (c == best && n < pkgName) {
			pkgName, best = n, c
		}
	}
	if pkgName == "" || pkgName == "main" || pkgName == "documentation" {
		return
	}
	var keep []*ast.File
	for _, f := range files {
		n := f.Name.Name
		if n == pkgName || (n == pkgName+"_test" && strings.HasSuffix(fset.File(f.Pos()).Name(), "_test.go")) {
			keep = append(keep, f)
		}
	}
	importPath := x.pkg.Name
	prefix := ""
	if dir != "." {
		importPath += "/" + dir
		prefix = dir + "."
	}
	if x.pkg.Stdlib {
		importPath = dir // GOROOT/src/os/exec is "os/exec"
	}
	p, err := doc.NewFromFiles(fset, keep, importPath)
	if err != nil {
		x.warn(dir, "go/doc: %v", err)
		return
	}
	g := &goDoc{x: x, fset: fset, p: p, prefix: prefix, comments: map[string][]*ast.CommentGroup{}}
	for _, f := range keep {
		g.comments[fset.File(f.Pos()).Name()] = f.Comments
		if f.Doc != nil && g.docFile == "" && !strings.HasSuffix(fset.File(f.Pos()).Name(), "_test.go") {
			g.docFile = fset.File(f.Pos()).Name()
		}
	}
	g.emit(importPath, dir)
}

// buildIgnored: a file kept out of every build (`//go:build ignore`, a
// generator). Other constraints select a platform; their API is the
// package's all the same.
func buildIgnored(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.TrimSpace(c.Text) == "//go:build ignore" {
				return true
			}
		}
	}
	return false
}

type goDoc struct {
	x        *extractor
	fset     *token.FileSet
	p        *doc.Package
	prefix   string // "" for the module root, "dir." below it
	comments map[string][]*ast.CommentGroup
	docFile  string // the file holding the package comment
}

func (g *goDoc) emit(importPath, dir string) {
	pkgPath := "api/package"
	if dir != "." {
		pkgPath = "api/" + dir + "/package"
	}
	if g.p.Doc != "" || len(g.p.Examples) > 0 {
		s := Symbol{Name: importPath, Kind: SymPackage, Signature: "package " + g.p.Name + ` // import "` + importPath + `"`}
		file := g.docFile
		g.x.add(Unit{Kind: KindAPI, Path: pkgPath, Title: importPath, Text: apiMarkdown("go", s, g.markdown(g.p.Doc), g.examples(g.p.Examples)),
			Symbol: &s, Doc: g.p.Doc, File: file})
	}
	for _, v := range g.p.Consts {
		g.value(v, SymConst)
	}
	for _, v := range g.p.Vars {
		g.value(v, SymVar)
	}
	for _, f := range g.p.Funcs {
		g.fn(f, "")
	}
	for _, t := range g.p.Types {
		g.item(t.Name, SymType, t.Doc, t.Decl, t.Decl.Pos(), t.Examples)
		for _, v := range t.Consts {
			g.value(v, SymConst)
		}
		for _, v := range t.Vars {
			g.value(v, SymVar)
		}
		for _, f := range t.Funcs {
			g.fn(f, "")
		}
		for _, m := range t.Methods {
			g.fn(m, t.Name+".")
		}
	}
	g.exampleUnits(g.p.Examples)
	for _, f := range g.p.Funcs {
		g.exampleUnits(f.Examples)
	}
	for _, t := range g.p.Types {
		g.exampleUnits(t.Examples)
		for _, f := range t.Funcs {
			g.exampleUnits(f.Examples)
		}
		for _, m := range t.Methods {
			g.exampleUnits(m.Examples)
		}
	}
}

func (g *goDoc) value(v *doc.Value, kind string) {
	if len(v.Names) == 0 {
		return
	}
	g.item(v.Names[0], kind, v.Doc, v.Decl, v.Decl.Pos(), nil)
}

func (g *goDoc) fn(f *doc.Func, recv string) {
	kind := SymFunc
	if f.Recv != "" {
		kind = SymMethod
	}
	d := *f.Decl
	d.Body = nil
	g.item(recv+f.Name, kind, f.Doc, &d, f.Decl.Pos(), f.Examples)
}

func (g *goDoc) item(name, kind, docText string, decl ast.Node, pos token.Pos, exs []*doc.Example) {
	p := g.fset.Position(pos)
	s := Symbol{Name: g.prefix + name, Kind: kind, Signature: g.print(decl)}
	g.x.add(Unit{Kind: KindAPI, Path: "api/" + s.Name, Title: s.Name, Text: apiMarkdown("go", s, g.markdown(docText), g.examples(exs)),
		Symbol: &s, Doc: docText, File: p.Filename, Line: p.Line})
}

// maxSignature bounds a printed declaration (a var holding a large table).
const maxSignature = 8 << 10

// print prints a declaration without its doc comment, with the comments
// inside it (struct field docs).
func (g *goDoc) print(n ast.Node) string {
	switch d := n.(type) {
	case *ast.GenDecl:
		c := *d
		c.Doc = nil
		n = &c
	case *ast.FuncDecl:
		c := *d
		c.Doc = nil
		n = &c
	}
	var inside []*ast.CommentGroup
	for _, cg := range g.comments[g.fset.Position(n.Pos()).Filename] {
		if cg.Pos() >= n.Pos() && cg.End() <= n.End() {
			inside = append(inside, cg)
		}
	}
	var b bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&b, g.fset, &printer.CommentedNode{Node: n, Comments: inside}); err != nil {
		return ""
	}
	s := b.String()
	if len(s) > maxSignature {
		s = cutText(s, maxSignature)
	}
	return s
}

func (g *goDoc) markdown(text string) string {
	if text == "" {
		return ""
	}
	pr := g.p.Printer()
	pr.HeadingLevel = 2
	return string(pr.Markdown(g.p.Parser().Parse(text)))
}

// examples renders examples for the item they illustrate.
func (g *goDoc) examples(exs []*doc.Example) []string {
	var out []string
	for _, e := range exs {
		out = append(out, g.example(e, "### "))
	}
	return out
}

func (g *goDoc) example(e *doc.Example, h string) string {
	var b strings.Builder
	b.WriteString(h + "Example" + exampleSuffix(e) + "\n\n")
	if e.Doc != "" {
		b.WriteString(g.markdown(e.Doc) + "\n")
	}
	b.WriteString(fence("go", g.exampleCode(e)))
	if e.Output != "" {
		b.WriteString("Output:\n\n" + fence("", e.Output))
	}
	return b.String()
}

func exampleSuffix(e *doc.Example) string {
	return e.Name
}

// exampleCode prints an example's body the way `go doc` does: braces
// removed, one indent less.
func (g *goDoc) exampleCode(e *doc.Example) string {
	var b bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&b, g.fset, &printer.CommentedNode{Node: e.Code, Comments: e.Comments}); err != nil {
		return ""
	}
	s := b.String()
	if _, ok := e.Code.(*ast.BlockStmt); ok {
		s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
		s = strings.Trim(s, "\n")
		s = dedent(s)
	}
	return s
}

func (g *goDoc) exampleUnits(exs []*doc.Example) {
	for _, e := range exs {
		name := strings.TrimSuffix(g.prefix, ".")
		if name != "" {
			name += "/"
		}
		name += "Example" + exampleSuffix(e)
		p := g.fset.Position(e.Code.Pos())
		g.x.add(Unit{Kind: KindExample, Path: "example/" + name, Title: name, Text: g.example(e, "# "), File: p.Filename, Line: p.Line})
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
