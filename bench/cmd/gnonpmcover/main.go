// Command gnonpmcover measures how much of npm packages' public API
// gno's package docs extract, against the TypeScript checker's own view:
// for each package it installs (with npm, into a scratch folder, with
// typescript), the names `checker.getExportsAndPropertiesOfModule` lists for
// `import * as m from "pkg"` (allowJs, checkJs, node_modules JavaScript
// read, @types used as tsc uses them), and the names apidoc.Extract gives
// the same installed folder after discovery (so @types pairs as in
// `gno packages add`). It prints one Markdown table and the misses.
//
//	go run ./bench/cmd/gnonpmcover [-work DIR] [-keep]
//
// It needs node and npm and the registry; it is not part of `make test`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
	"github.com/gnosearch/gno/pkgdocs/packages"
)

// layout is one install folder: the packages tsc and gno both read.
type layout struct {
	name string
	deps map[string]string
	// measured are the packages compared, with the layout they stand for
	measured map[string]string
}

var layouts = []layout{
	{name: "plain", deps: map[string]string{
		"express": "4.21.2", "lodash": "4.17.21", "lodash-es": "4.17.21", "debug": "4.4.0", "ms": "2.1.3",
		"commander": "14.0.0", "chalk": "5.4.1", "axios": "1.8.4", "zod": "3.25.76", "uuid": "11.1.0", "nanoid": "5.1.5", "yargs": "17.7.2",
	}, measured: map[string]string{
		"express": "JS only, CommonJS", "lodash": "JS only, CommonJS (UMD)", "lodash-es": "JS only, ESM", "debug": "JS only, CommonJS", "ms": "JS only, CommonJS",
		"commander": "own .d.ts", "chalk": "own .d.ts, ESM", "axios": "own .d.ts", "zod": "own .d.ts", "uuid": "own .d.ts", "nanoid": "own .d.ts, ESM", "yargs": "JS only, ESM+CJS bundle",
	}},
	{name: "typed", deps: map[string]string{
		"express": "4.21.2", "@types/express": "4.17.21", "lodash": "4.17.21", "@types/lodash": "4.17.16", "debug": "4.4.0", "@types/debug": "4.1.12",
	}, measured: map[string]string{
		"express": "with @types/express", "lodash": "with @types/lodash", "debug": "with @types/debug",
	}},
}

const tsVersion = "5.8.3"

// tscScript prints {"pkg": ["name", ...]} for the packages named in argv.
const tscScript = `
const ts = require("typescript");
const path = require("path");
const pkgs = process.argv.slice(2);
const files = pkgs.map((p, i) => {
  const f = path.join(process.cwd(), "probe" + i + ".mts");
  require("fs").writeFileSync(f, "import * as m from " + JSON.stringify(p) + ";\nexport { m };\n");
  return f;
});
const program = ts.createProgram(files, {
  allowJs: true, checkJs: true, maxNodeModuleJsDepth: 4, noEmit: true, esModuleInterop: true,
  module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, target: ts.ScriptTarget.ES2022,
});
const checker = program.getTypeChecker();
const out = {};
files.forEach((f, i) => {
  const sf = program.getSourceFile(f);
  const imp = sf.statements[0];
  const sym = checker.getSymbolAtLocation(imp.moduleSpecifier);
  out[pkgs[i]] = sym ? checker.getExportsAndPropertiesOfModule(sym).map(s => s.getName()).filter(n => n !== "default" && n !== "export=") : [];
});
console.log(JSON.stringify(out));
`

func main() {
	work := flag.String("work", "", "scratch folder (default: a new temp folder)")
	keep := flag.Bool("keep", false, "keep the scratch folder")
	flag.Parse()
	if *work == "" {
		d, err := os.MkdirTemp("", "gnonpmcover-")
		if err != nil {
			fail(err)
		}
		*work = d
	}
	if !*keep {
		defer os.RemoveAll(*work)
	}
	ctx := context.Background()
	fmt.Printf("| package | layout | tsc names | gno has | share | gno top-level names tsc lacks | gno ms |\n|---|---|---:|---:|---:|---:|---:|\n")
	var misses []string
	total, found := 0, 0
	for _, l := range layouts {
		dir := filepath.Join(*work, l.name)
		ref, err := install(ctx, dir, l)
		if err != nil {
			fail(err)
		}
		proj, err := packages.Discover(ctx, dir, packages.Options{Ecosystems: []packages.Ecosystem{packages.NPM}})
		if err != nil {
			fail(err)
		}
		names := sortedKeys(l.measured)
		for _, name := range names {
			var p *packages.Package
			for i := range proj.Packages {
				if proj.Packages[i].Name == name {
					p = &proj.Packages[i]
				}
			}
			if p == nil || p.Dir == "" {
				fail(fmt.Errorf("%s not discovered in %s", name, dir))
			}
			start := time.Now()
			d, err := apidoc.Extract(ctx, apidoc.Package{Ecosystem: apidoc.NPM, Name: p.Name, Version: p.Version, Dir: p.Dir, TypesDir: p.TypesDir, TypesFrom: p.TypesFrom}, apidoc.Limits{})
			if err != nil {
				fail(err)
			}
			ms := float64(time.Since(start).Microseconds()) / 1000
			want := ref[name]
			has := gnoNames(d)
			var miss []string
			for _, n := range want {
				if !has[n] {
					miss = append(miss, n)
				}
			}
			total += len(want)
			found += len(want) - len(miss)
			share := 1.0
			if len(want) > 0 {
				share = float64(len(want)-len(miss)) / float64(len(want))
			}
			lay := l.measured[name]
			if p.TypesFrom != "" {
				lay += " (read from " + p.TypesFrom + ")"
			}
			fmt.Printf("| %s %s | %s | %d | %d | %.3f | %d | %.1f |\n", name, p.Version, lay, len(want), len(want)-len(miss), share, extra(d, want), ms)
			if len(miss) > 0 {
				misses = append(misses, fmt.Sprintf("- %s (%s): %s", name, l.name, cut(strings.Join(miss, ", "), 400)))
			}
		}
	}
	share := 1.0
	if total > 0 {
		share = float64(found) / float64(total)
	}
	fmt.Printf("| **all** | | %d | %d | **%.3f** | | |\n\nMisses:\n\n%s\n", total, found, share, strings.Join(misses, "\n"))
}

// install runs npm install for a layout and the tsc script; it returns
// the checker's names per package.
func install(ctx context.Context, dir string, l layout) (map[string][]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	deps := map[string]string{"typescript": tsVersion}
	for k, v := range l.deps {
		deps[k] = v
	}
	pj, _ := json.Marshal(map[string]any{"name": "cover-" + l.name, "private": true, "type": "module", "dependencies": deps})
	if err := os.WriteFile(filepath.Join(dir, "package.json"), pj, 0o644); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "typescript")); err != nil {
		if out, err := run(ctx, dir, "npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
			return nil, fmt.Errorf("npm install: %v: %s", err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "tsc-exports.cjs"), []byte(tscScript), 0o644); err != nil {
		return nil, err
	}
	out, err := run(ctx, dir, "node", append([]string{"tsc-exports.cjs"}, sortedKeys(l.measured)...)...)
	if err != nil {
		return nil, fmt.Errorf("tsc script: %v: %s", err, out)
	}
	var ref map[string][]string
	if err := json.Unmarshal(out, &ref); err != nil {
		return nil, fmt.Errorf("tsc script output: %v", err)
	}
	return ref, nil
}

// gnoNames are the names gno lists at the top of the module: a symbol
// with no dot, and a member of a namespace or value that stands for the
// module (express's types declare `e` and `export = e`: `e.json` is the
// module's `json`), not a member of an interface or class.
func gnoNames(d *apidoc.Docs) map[string]bool {
	kinds := map[string]string{}
	for _, u := range d.Units {
		if u.Symbol != nil {
			kinds[u.Symbol.Name] = u.Symbol.Kind
		}
	}
	has := map[string]bool{}
	for n := range kinds {
		has[n] = true
		if head, tail, ok := strings.Cut(n, "."); ok && !strings.Contains(tail, ".") {
			if k := kinds[head]; k != apidoc.SymInterface && k != apidoc.SymClass && k != apidoc.SymType {
				has[tail] = true
			}
		}
	}
	return has
}

// extra counts gno's top-level names (no dot) that tsc does not list.
func extra(d *apidoc.Docs, want []string) int {
	listed := map[string]bool{}
	for _, n := range want {
		listed[n] = true
	}
	n := 0
	for _, u := range d.Units {
		if u.Symbol != nil && !strings.Contains(u.Symbol.Name, ".") && !listed[u.Symbol.Name] {
			n++
		}
	}
	return n
}

func run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	return cmd.Output()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gnonpmcover:", err)
	os.Exit(1)
}
