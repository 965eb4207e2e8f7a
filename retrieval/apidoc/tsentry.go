package apidoc

import (
	"encoding/json"
	"path"
	"strings"
)

// Finding a package's declaration files: its entry point, and the
// specifiers its re-exports name.

// tsAPI reads the package's type declarations from its entry point
// (package.json "types"/"typings", the "." export's types, index.d.ts,
// main's .d.ts), following relative re-exports inside the package.
func tsAPI(x *extractor) error {
	entry := tsEntry(x)
	if entry == "" {
		x.warn("", "no TypeScript declarations (types, typings, index.d.ts): API not indexed")
		return nil
	}
	r := &tsReader{x: x, seen: map[string]bool{}}
	r.file(entry, "", nil, 0)
	return nil
}

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
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	if dot, ok := m["."]; ok {
		if json.Unmarshal(dot, &m) != nil {
			return nil
		}
	}
	var out []string
	var walk func(m map[string]json.RawMessage, depth int)
	walk = func(m map[string]json.RawMessage, depth int) {
		if depth > 4 {
			return
		}
		for _, k := range []string{"types", "import", "require", "default", "node"} {
			v, ok := m[k]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(v, &s) == nil {
				if k == "types" || strings.HasSuffix(s, ".d.ts") || strings.HasSuffix(s, ".d.mts") || strings.HasSuffix(s, ".d.cts") {
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
