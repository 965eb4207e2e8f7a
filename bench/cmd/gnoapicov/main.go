// Command gnoapicov measures the share of a package's public names that
// apidoc extracts, against the ecosystem's own view: for Python, the
// names the top-level module exposes when imported in an isolated
// interpreter (`python -I`, its __all__, else dir() less incidental
// imports); for Rust, the items rustdoc lists in `cargo doc`'s all.html.
// Packages are installed by their own clients (pip into a new venv,
// cargo fetch and cargo doc on a scratch crate) under -work.
//
//	go run ./bench/cmd/gnoapicov -work /tmp/apicov [-python] [-rust]
//
// It prints a Markdown table per ecosystem and the misses.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
)

// pyPackages are distribution, import name: chosen for their layouts
// (re-exports from private modules, __all__, lazy tables, plain
// modules, a C-extension package).
var pyPackages = [][2]string{
	{"httpx==0.27.2", "httpx"}, {"pydantic", "pydantic"}, {"rich", "rich"}, {"requests", "requests"},
	{"attrs", "attrs"}, {"attrs", "attr"}, {"click", "click"}, {"fastapi", "fastapi"}, {"jinja2", "jinja2"},
	{"anyio", "anyio"}, {"typing_extensions", "typing_extensions"}, {"numpy", "numpy"},
}

// crates are name, requirement.
var crates = [][2]string{
	{"tokio", `{ version = "=1.40.0", features = ["full"] }`}, {"serde", `"1"`}, {"anyhow", `"1"`}, {"clap", `"4"`},
	{"regex", `"1"`}, {"rand", `"0.8"`}, {"log", `"0.4"`}, {"thiserror", `"1"`},
	{"bytes", `"1"`}, {"memchr", `"2"`}, {"parking_lot", `"0.12"`},
}

// facades re-export another crate's whole API (`pub use clap_builder::*`):
// a name missed in the facade is looked up in those crates too, which
// gno serves as packages of their own (`packages add --all`).
var facades = map[string][]string{
	"clap": {"clap_builder", "clap_derive"}, "thiserror": {"thiserror-impl"}, "tokio": {"tokio-macros"}, "serde": {"serde_core", "serde_derive"},
}

const pyNames = `
import sys, json, importlib, types
name = sys.argv[1]
m = importlib.import_module(name)
top = name.split('.')[0]
has_all = hasattr(m, '__all__')
names = list(m.__all__) if has_all else dir(m)
out = set()
for n in names:
    if n.startswith('_'):
        continue
    try:
        o = getattr(m, n)
    except Exception:
        continue
    if isinstance(o, types.ModuleType):
        continue
    if not has_all:
        mod = getattr(o, '__module__', None)
        if isinstance(mod, str) and mod.split('.')[0] != top:
            continue
    out.add(n)
print(json.dumps(sorted(out)))
`

func main() {
	work := flag.String("work", filepath.Join(os.TempDir(), "gnoapicov"), "folder for the venv and the scratch crate (kept between runs)")
	py := flag.Bool("python", true, "measure Python packages")
	rs := flag.Bool("rust", true, "measure Rust crates")
	flag.Parse()
	if err := os.MkdirAll(*work, 0o755); err != nil {
		fail(err)
	}
	if *py {
		if err := python(*work); err != nil {
			fail(err)
		}
	}
	if *rs {
		if err := rust(*work); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gnoapicov:", err)
	os.Exit(1)
}

func run(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// row is one package's figures.
type row struct {
	name, version string
	want, got     int
	via           int // missed in the package, found in the crate it re-exports
	missed        []string
}

func report(eco string, rows []row) {
	fmt.Printf("\n### %s\n\n| package | version | public names | extracted | share | + via re-exported crate | missed (first 12) |\n| --- | --- | --- | --- | --- | --- | --- |\n", eco)
	var w, g, v int
	for _, r := range rows {
		w += r.want
		g += r.got
		v += r.via
		fmt.Printf("| %s | %s | %d | %d | %.3f | %.3f | %s |\n", r.name, r.version, r.want, r.got, share(r.got, r.want), share(r.got+r.via, r.want), strings.Join(first(r.missed, 12), ", "))
	}
	fmt.Printf("| **all** | | %d | %d | **%.3f** | **%.3f** | |\n", w, g, share(g, w), share(g+v, w))
}

func share(g, w int) float64 {
	if w == 0 {
		return 1
	}
	return float64(g) / float64(w)
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("… %d more", len(s)-n))
	}
	return s
}

func python(work string) error {
	venv := filepath.Join(work, "venv")
	pyBin := filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(pyBin); err != nil {
		if _, err := run(work, nil, "python3", "-m", "venv", venv); err != nil {
			return err
		}
	}
	var specs []string
	for _, p := range pyPackages {
		specs = append(specs, p[0])
	}
	if _, err := run(work, []string{"PIP_DISABLE_PIP_VERSION_CHECK=1"}, pyBin, append([]string{"-m", "pip", "install", "-q"}, specs...)...); err != nil {
		return err
	}
	sites, _ := filepath.Glob(filepath.Join(venv, "lib", "python*", "site-packages"))
	if len(sites) != 1 {
		return fmt.Errorf("site-packages: %v", sites)
	}
	var rows []row
	for _, p := range pyPackages {
		dist, mod := strings.Split(p[0], "==")[0], p[1]
		out, err := run(work, nil, pyBin, "-I", "-c", pyNames, mod)
		if err != nil {
			return err
		}
		var want []string
		if err := json.Unmarshal([]byte(out), &want); err != nil {
			return fmt.Errorf("%s: %w", mod, err)
		}
		d, err := apidoc.Extract(context.Background(), apidoc.Package{Ecosystem: apidoc.Python, Name: dist, Version: "installed", Dir: sites[0]}, apidoc.Limits{})
		if err != nil {
			return err
		}
		have := map[string]bool{}
		for _, u := range d.Units {
			if u.Symbol != nil {
				if rest, ok := strings.CutPrefix(u.Symbol.Name, mod+"."); ok && !strings.Contains(rest, ".") {
					have[rest] = true
				}
			}
		}
		rows = append(rows, compare(mod, pyVersion(sites[0], dist), want, have))
	}
	report("Python (public names of the top-level module: `python -I`, __all__ else dir())", rows)
	return nil
}

func pyVersion(site, dist string) string {
	m, _ := filepath.Glob(filepath.Join(site, strings.ReplaceAll(dist, "-", "_")+"-*.dist-info"))
	if len(m) == 0 {
		return "?"
	}
	b := strings.TrimSuffix(filepath.Base(m[0]), ".dist-info")
	return b[strings.LastIndexByte(b, '-')+1:]
}

func compare(name, version string, want []string, have map[string]bool) row {
	r := row{name: name, version: version, want: len(want)}
	for _, n := range want {
		if have[n] {
			r.got++
		} else {
			r.missed = append(r.missed, n)
		}
	}
	return r
}

func rust(work string) error {
	dir := filepath.Join(work, "crate")
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("[package]\nname = \"scratch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\n")
	for _, c := range crates {
		fmt.Fprintf(&b, "%s = %s\n", c[0], c[1])
	}
	if err := os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "lib.rs"), nil, 0o644); err != nil {
		return err
	}
	env := []string{"CARGO_HOME=" + filepath.Join(work, "cargo-home")}
	if _, err := run(dir, env, "cargo", "doc", "-q"); err != nil {
		return err
	}
	srcs, _ := filepath.Glob(filepath.Join(work, "cargo-home", "registry", "src", "*"))
	if len(srcs) == 0 {
		return fmt.Errorf("no registry sources")
	}
	lock, err := os.ReadFile(filepath.Join(dir, "Cargo.lock"))
	if err != nil {
		return err
	}
	var rows []row
	for _, c := range crates {
		v := lockVersion(string(lock), c[0])
		html, err := os.ReadFile(filepath.Join(dir, "target", "doc", c[0], "all.html"))
		if err != nil {
			return err
		}
		want := rustdocItems(string(html))
		d, err := apidoc.Extract(context.Background(), apidoc.Package{Ecosystem: apidoc.Rust, Name: c[0], Version: v, Dir: filepath.Join(srcs[0], c[0]+"-"+v)}, apidoc.Limits{})
		if err != nil {
			return err
		}
		have := rustNames(d)
		r := compare(c[0], v, want, have)
		if deps := facades[c[0]]; len(deps) > 0 {
			via := map[string]bool{}
			for _, dep := range deps {
				dv := lockVersion(string(lock), dep)
				if dv == "?" {
					continue // not a dependency with these features
				}
				dd, err := apidoc.Extract(context.Background(), apidoc.Package{Ecosystem: apidoc.Rust, Name: dep, Version: dv, Dir: filepath.Join(srcs[0], dep+"-"+dv)}, apidoc.Limits{})
				if err != nil {
					return err
				}
				for n := range rustNames(dd) {
					via[n] = true
				}
			}
			var still []string
			for _, n := range r.missed {
				if via[n] {
					r.via++
				} else {
					still = append(still, n)
				}
			}
			r.missed = still
		}
		rows = append(rows, r)
	}
	report("Rust (items of `cargo doc`'s all.html)", rows)
	return nil
}

func rustNames(d *apidoc.Docs) map[string]bool {
	have := map[string]bool{}
	for _, u := range d.Units {
		if u.Symbol != nil && u.Symbol.Kind != apidoc.SymPackage {
			have[u.Symbol.Name] = true
		}
	}
	return have
}

func lockVersion(lock, name string) string {
	m := regexp.MustCompile(`(?m)^name = "` + regexp.QuoteMeta(name) + `"\nversion = "([^"]+)"`).FindStringSubmatch(lock)
	if m == nil {
		return "?"
	}
	return m[1]
}

var itemHref = regexp.MustCompile(`href="([^"]+)\.html"`)

// rustdocItems reads all.html's links: "time/fn.sleep.html" is
// time::sleep, "macro.select.html" select.
func rustdocItems(html string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range itemHref.FindAllStringSubmatch(html, -1) {
		p := m[1]
		if strings.Contains(p, "://") || strings.HasPrefix(p, "..") || strings.HasPrefix(p, "#") {
			continue
		}
		dir, file := filepath.Split(p)
		kind, name, ok := strings.Cut(file, ".")
		if !ok || kind == "index" || kind == "all" || kind == "help" || kind == "settings" {
			continue
		}
		segs := strings.Split(strings.Trim(dir, "/"), "/")
		if segs[0] == "" {
			segs = nil
		}
		full := strings.Join(append(segs, name), "::")
		if !seen[full] {
			seen[full] = true
			out = append(out, full)
		}
	}
	sort.Strings(out)
	return out
}
