package apidoc

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"
)

// Finding a package's declaration files: its entry point, and the
// specifiers its re-exports name.

// tsAPI reads the package's type declarations from its entry point
// (package.json "types"/"typings", the "." export's types, index.d.ts,
// main's .d.ts), following relative re-exports inside the package.
//
// A package with none is read from its installed @types package when
// discovery paired one (Package.TypesDir), then from its JavaScript for
// the exported names the types leave to members of an interface
// (javascript.go); else from its JavaScript alone.
func tsAPI(x *extractor) error {
	entry := tsEntry(x)
	if entry == "" && x.pkg.TypesDir != "" {
		if typesAPI(x) {
			jsAPI(x, "", true)
			return nil
		}
	}
	if entry == "" {
		jsAPI(x, "no TypeScript declarations (types, typings, index.d.ts)", false)
		return nil
	}
	r := &tsReader{x: x, seen: map[string]bool{}}
	r.file(entry, "", nil, 0)
	return nil
}

// typesAPI reads the declarations of the paired @types package, through
// a root of its own (it is a sibling folder, outside Dir), into this
// package's docs; false when it gives no API item.
func typesAPI(x *extractor) bool {
	from := x.pkg.TypesFrom
	if from == "" {
		from = "@types"
	}
	name := from
	if i := strings.LastIndex(from, "@"); i > 0 {
		name = from[:i]
	}
	root, err := os.OpenRoot(x.pkg.TypesDir)
	if err != nil {
		x.warn("", "types from %s not read: %v", from, cleanErr(err))
		return false
	}
	defer root.Close()
	saved := *x
	x.root, x.fsys, x.pj = root, root.FS(), nil
	x.filePrefix = name + "/"
	x.apiNote = fmt.Sprintf("Types from %s (the package ships none of its own).", from)
	before := len(x.docs.Units)
	entry := tsEntry(x)
	if entry != "" {
		r := &tsReader{x: x, seen: map[string]bool{}}
		r.file(entry, "", nil, 0)
	}
	n := 0
	for _, u := range x.docs.Units[before:] {
		if u.Kind == KindAPI {
			n++
		}
	}
	x.root, x.fsys, x.pj, x.filePrefix, x.apiNote = saved.root, saved.fsys, saved.pj, "", ""
	if n == 0 {
		x.warn("", "%s declares no API: read from the JavaScript instead", from)
		return false
	}
	x.warn("", "%s%s: the package ships no declarations", TypesNote, from)
	return true
}

// TypesNote starts the warning that names the @types package an npm
// version's API was read from ("API from @types/express@4.17.21: ..."),
// so that the version says where its types came from and a store can
// tell when the pairing changed.
const TypesNote = "API from "

func tsEntry(x *extractor) string {
	pj := x.packageJSON()
	var cands []string
	for _, t := range []string{pj.Types, pj.Typings} {
		if t != "" {
			cands = append(cands, t)
		}
	}
	cands = append(cands, exportTypes(pj.Exports)...)
	cands = append(cands, "index.d.ts")
	if pj.Main != "" {
		cands = append(cands, pj.Main)
	}
	for _, c := range cands {
		if f := tsResolve(x, ".", "./"+strings.TrimPrefix(c, "./")); f != "" {
			return f
		}
	}
	return ""
}

// exportTypes digs the "types" condition of the "." export out of
// package.json "exports" (a string, a condition map, nested maps).
func exportTypes(raw json.RawMessage) []string {
	return dotExport(raw, []string{"types", "import", "require", "default", "node"}, func(cond, target string) bool {
		return cond == "types" || strings.HasSuffix(target, ".d.ts") || strings.HasSuffix(target, ".d.mts") || strings.HasSuffix(target, ".d.cts")
	})
}

// dotExport lists the targets of package.json's "." export (a string,
// or conditions tried in the order conds gives, nested up to 4 deep)
// that keep accepts; cond is "" for a plain string.
func dotExport(raw json.RawMessage, conds []string, keep func(cond, target string) bool) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if keep("", s) {
			return []string{s}
		}
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	if dot, ok := m["."]; ok {
		return dotExport(dot, conds, keep)
	}
	var out []string
	var walk func(m map[string]json.RawMessage, depth int)
	walk = func(m map[string]json.RawMessage, depth int) {
		if depth > 4 {
			return
		}
		for _, k := range conds {
			v, ok := m[k]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(v, &s) == nil {
				if keep(k, s) {
					out = append(out, s)
				}
				continue
			}
			var sub map[string]json.RawMessage
			if json.Unmarshal(v, &sub) == nil {
				walk(sub, depth+1)
			}
		}
	}
	walk(m, 0)
	return out
}

// tsResolve maps an import specifier to a declaration file inside the
// package; "" when it names another package, leaves this one or has no
// declarations.
func tsResolve(x *extractor, dir, spec string) string {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return ""
	}
	p := path.Join(dir, spec)
	if p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	var cands []string
	for _, e := range []string{".d.ts", ".d.mts", ".d.cts"} {
		if strings.HasSuffix(p, e) {
			cands = append(cands, p)
		}
	}
	base := p
	first := ".d.ts"
	for _, e := range []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"} {
		if strings.HasSuffix(p, e) && !strings.HasSuffix(p, ".d"+e) {
			base = strings.TrimSuffix(p, e)
			switch e {
			case ".mjs", ".mts":
				first = ".d.mts"
			case ".cjs", ".cts":
				first = ".d.cts"
			}
		}
	}
	cands = append(cands, base+first, base+".d.ts", base+".d.mts", base+".d.cts", base+"/index.d.ts", base+"/index.d.mts", base+"/index.d.cts")
	for _, c := range cands {
		if st, err := x.root.Stat(c); err == nil && st.Mode().IsRegular() {
			return c
		}
	}
	return ""
}
