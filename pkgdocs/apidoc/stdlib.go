package apidoc

import (
	"path"
	"strings"
)

// stdlibLimits raise the per-package bounds to a toolchain's size: Go's
// GOROOT/src parses ~6,000 files (tests with examples included) into
// ~40,000 units, Python's Lib ~1,000 modules. An explicit limit larger
// than these stays.
func stdlibLimits(l Limits) Limits {
	l.MaxFileBytes = max(l.MaxFileBytes, 4<<20)
	l.MaxTotalBytes = max(l.MaxTotalBytes, 1<<30)
	l.MaxFiles = max(l.MaxFiles, 40000)
	l.MaxUnits = max(l.MaxUnits, 200000)
	return l
}

// pyStdlibSkip leaves out the folders of Python's Lib that are no API a
// program imports: the test suites, IDLE, the Tk demos, 2to3, pip's
// bundled wheels, installed packages, caches and the build's config;
// distutils too (deprecated, gone in 3.12: its Command.run methods
// outranked subprocess for "run a command"), and pydoc_data (help
// topics as one string table, no API).
func pyStdlibSkip(d string) bool {
	b := path.Base(d)
	switch b {
	case "test", "tests", "idlelib", "turtledemo", "lib2to3", "ensurepip", "site-packages",
		"dist-packages", "__pycache__", "lib-dynload", "__phello__", "distutils", "pydoc_data":
		return true
	}
	return strings.HasPrefix(b, ".") || strings.HasPrefix(b, "config-")
}

// nodeStdlibAPI reads Node's API from @types/node: each declaration
// file holds `declare module "fs" { ... }` blocks (and "node:fs" twins,
// skipped), whose declarations become "fs.readFile",
// "fs/promises.readFile". The ts5.x folders (older TypeScript's copies)
// and the compatibility shims are left out.
func nodeStdlibAPI(x *extractor) error {
	var files []string
	skip := func(d string) bool {
		b := path.Base(d)
		return strings.HasPrefix(b, "ts") && strings.Contains(b, ".") || b == "compatibility" || b == "node_modules" || strings.HasPrefix(b, ".")
	}
	x.walk(".", skip, func(name string) {
		if strings.HasSuffix(name, ".d.ts") {
			files = append(files, name)
		}
	})
	r := &tsReader{x: x, seen: map[string]bool{}}
	for _, name := range files {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		src, ok := x.source(name)
		if !ok {
			continue
		}
		f := parseTS(name, src)
		for _, s := range f.stmts(0, len(f.toks), false) {
			k := s.start
			if f.text(k) != "declare" || f.text(k+1) != "module" || k+2 >= s.end || f.toks[k+2].kind != tString {
				continue
			}
			mod := strings.Trim(f.text(k+2), `"'`)
			open := f.bodyOpen(k+2, s.end)
			if mod == "" || strings.HasPrefix(mod, "node:") || open < 0 {
				continue
			}
			// Every declaration of an ambient module is exported, with
			// or without the keyword (fs/promises has none), although
			// its imports would make scope read it as a module.
			for _, st := range f.stmts(open+1, min(f.match[open], s.end), false) {
				r.decl(f, st, mod+".", nil, false, map[string][]string{}, "", 1)
			}
		}
		for _, it := range f.items {
			if !x.addAPI("ts", it.sym, it.doc, name, it.line, nil) {
				return nil
			}
		}
	}
	return nil
}
