package packages

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The npm fixture: two packages of the issue (commander, zod), a scoped
// one, and debug@2.6.9 beside ms@2.1.3 so that debug's ms@2.0.0 is
// installed nested under node_modules/debug/node_modules.
const npmManifest = `{
  "name": "app",
  "version": "1.0.0",
  "private": true,
  "dependencies": {
    "commander": "11.1.0",
    "zod": "3.22.4",
    "debug": "2.6.9",
    "ms": "2.1.3"
  },
  "devDependencies": {
    "@types/ms": "0.7.34"
  }
}
`

var npmFixture, pnpmFixture onceDir

func npmProject(t *testing.T) string {
	need(t, "npm")
	slow(t)
	return npmFixture.get(t, "npm", func(dir string) error {
		write(t, filepath.Join(dir, "package.json"), npmManifest)
		run(t, dir, nil, "npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
		return nil
	})
}

func pnpmProject(t *testing.T) string {
	need(t, "npx")
	slow(t)
	return pnpmFixture.get(t, "pnpm", func(dir string) error {
		write(t, filepath.Join(dir, "package.json"), npmManifest)
		run(t, dir, nil, "npx", "--yes", "pnpm@9.15.9", "install", "--ignore-scripts", "--store-dir", filepath.Join(shared, "pnpm-store"), "--reporter=silent")
		return nil
	})
}

// checkNPM checks what both layouts must give.
func checkNPM(t *testing.T, dir string) {
	p := discover(t, dir, Options{Ecosystems: []Ecosystem{NPM}})
	if len(p.Warnings) > 0 {
		t.Errorf("warnings: %v", p.Warnings)
	}
	// @types/ms pairs with ms (which ships no declarations): not listed
	if len(p.Packages) != 4 {
		t.Fatalf("want the 4 direct packages, @types/ms paired with ms:\n%s", describe(p))
	}
	c := find(t, p, NPM, "commander")
	if c.Version != "11.1.0" || !c.Direct || c.Dir == "" || c.License != "MIT" || c.Repository != "https://github.com/tj/commander.js" || c.Summary == "" {
		t.Errorf("commander: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "typings", "index.d.ts")); err != nil {
		t.Errorf("commander's folder lacks its typings: %v", err)
	}
	if z := find(t, p, NPM, "zod"); z.Version != "3.22.4" {
		t.Errorf("zod: %+v", z)
	}
	if s := find(t, p, NPM, "ms"); s.TypesFrom != "@types/ms@0.7.34" || !strings.HasSuffix(s.TypesDir, filepath.Join("@types", "ms")) {
		t.Errorf("ms not paired with its scoped @types package: %+v", s)
	}
	if c := find(t, p, NPM, "commander"); c.TypesDir != "" {
		t.Errorf("commander has its own types: %+v", c)
	}
	if has(p, NPM, "ms", "2.0.0") {
		t.Errorf("transitive ms@2.0.0 listed without --all")
	}

	all := discover(t, dir, Options{All: true, Ecosystems: []Ecosystem{NPM}})
	var nested Package
	for _, x := range all.Packages {
		if x.Name == "ms" && x.Version == "2.0.0" {
			nested = x
		}
	}
	if nested.Dir == "" || nested.Direct {
		t.Fatalf("debug's ms@2.0.0 not found with --all:\n%s", describe(all))
	}
	if ms := find(t, all, NPM, "ms"); ms.Version != "2.0.0" && !ms.Direct {
		t.Errorf("ms@2.1.3 should stay direct: %+v", ms)
	}
}

func TestNPMNested(t *testing.T) {
	dir := npmProject(t)
	checkNPM(t, dir)
	all := discover(t, dir, Options{All: true, Ecosystems: []Ecosystem{NPM}})
	for _, x := range all.Packages {
		if x.Name == "ms" && x.Version == "2.0.0" && !strings.Contains(x.Dir, filepath.Join("debug", "node_modules", "ms")) {
			t.Errorf("nested ms should be under debug/node_modules: %s", x.Dir)
		}
	}
}

func TestNPMPnpm(t *testing.T) {
	dir := pnpmProject(t)
	checkNPM(t, dir)
	p := discover(t, dir, Options{Ecosystems: []Ecosystem{NPM}})
	if c := find(t, p, NPM, "commander"); !strings.Contains(c.Dir, filepath.Join("node_modules", ".pnpm", "commander@11.1.0")) {
		t.Errorf("pnpm's link not resolved to its real folder: %s", c.Dir)
	}
	d := &discovery{dir: dir, read: newReader(dir), opt: &Options{}}
	lock := d.readNPMLock()
	if lock == nil || lock.root["zod"] != "3.22.4" || lock.root["@types/ms"] != "0.7.34" || lock.only("debug") != "2.6.9" {
		t.Fatalf("pnpm-lock.yaml misread: %+v %v", lock, d.warnings)
	}
}

// TestNPMFetch: declared in package.json and the lockfile but not
// installed: fetched with `npm pack` into the fetch cache at the locked
// version; with the network cut, listed missing with npm's reason.
func TestNPMFetch(t *testing.T) {
	src := npmProject(t)
	proj := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(proj, f), string(data))
	}
	p := discover(t, proj, Options{Ecosystems: []Ecosystem{NPM}})
	if c := find(t, p, NPM, "commander"); c.Version != "11.1.0" || c.Missing == "" {
		t.Fatalf("commander should be missing at the locked version: %+v", c)
	}
	before := snapshot(t, proj)
	cache := t.TempDir()
	p = discover(t, proj, Options{Fetch: true, CacheDir: cache, Ecosystems: []Ecosystem{NPM}})
	for _, name := range []string{"commander", "zod", "debug", "ms"} {
		x := find(t, p, NPM, name)
		if x.Dir == "" || !x.Fetched || !strings.HasPrefix(x.Dir, cache) {
			t.Errorf("%s not fetched: %+v", name, x)
		}
	}
	if s := find(t, p, NPM, "ms"); filepath.Base(s.TypesDir) != "@types+ms@0.7.34" {
		t.Errorf("scoped package cached at %s", s.TypesDir)
	}
	if after := snapshot(t, proj); len(after) != len(before) {
		t.Errorf("the project was written")
	}
	// Fetched earlier: found in the cache without fetching again.
	again := discover(t, proj, Options{CacheDir: cache, Ecosystems: []Ecosystem{NPM}})
	if z := find(t, again, NPM, "zod"); z.Dir == "" || !z.Fetched {
		t.Errorf("zod not found in the fetch cache: %+v", z)
	}

	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"offline", Options{Offline: true, Env: env("npm_config_cache=" + t.TempDir())}},
		{"unreachable registry", Options{Env: env("npm_config_cache="+t.TempDir(), "npm_config_registry=http://127.0.0.1:9/", "npm_config_fetch_retries=0")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Fetch, tc.opt.CacheDir, tc.opt.Ecosystems = true, t.TempDir(), []Ecosystem{NPM}
			p := discover(t, proj, tc.opt)
			z := find(t, p, NPM, "zod")
			if z.Dir != "" || !strings.HasPrefix(z.Missing, "npm: ") || len(z.Missing) > 220 {
				t.Errorf("want zod missing with npm's reason, got %+v", z)
			}
			t.Logf("reason: %s", z.Missing)
		})
	}
}

// TestNPMFetchConfig: one unknown package fails npm's batch but only
// itself; the project's .npmrc is what npm reads (here naming a registry
// nobody answers).
func TestNPMFetchConfig(t *testing.T) {
	need(t, "npm")
	slow(t)
	proj := t.TempDir()
	write(t, filepath.Join(proj, "package.json"), `{"dependencies": {"zod": "3.22.4", "gno-no-such-package-zz9": "1.0.0"}}`)
	p := discover(t, proj, Options{Fetch: true, CacheDir: t.TempDir(), Ecosystems: []Ecosystem{NPM}})
	if z := find(t, p, NPM, "zod"); z.Dir == "" || !z.Fetched {
		t.Errorf("zod not fetched beside an unknown package: %+v", z)
	}
	if bad := find(t, p, NPM, "gno-no-such-package-zz9"); bad.Dir != "" || !strings.Contains(bad.Missing, "404") {
		t.Errorf("unknown package: %+v", bad)
	}
	write(t, filepath.Join(proj, ".npmrc"), "registry=http://127.0.0.1:9/\nfetch-retries=0\n")
	p = discover(t, proj, Options{Fetch: true, CacheDir: t.TempDir(), Ecosystems: []Ecosystem{NPM}, Env: env("npm_config_cache=" + t.TempDir())})
	if z := find(t, p, NPM, "zod"); z.Dir != "" || !strings.Contains(z.Missing, "127.0.0.1:9") {
		t.Errorf("the project's .npmrc was not applied: %+v", z)
	}
}

// TestNPMBadInput: a corrupt package.json of one package, a link out of
// the project and a dangling link are warnings naming them; nothing
// behind the link is read, the rest is discovered.
func TestNPMBadInput(t *testing.T) {
	proj := t.TempDir()
	outside := t.TempDir()
	write(t, filepath.Join(outside, "package.json"), `{"name": "secret", "version": "6.6.6", "description": "read from outside"}`)
	write(t, filepath.Join(proj, "package.json"), `{"dependencies": {"good": "^1", "broken": "^1", "linked": "^1", "dangling": "^1"}}`)
	write(t, filepath.Join(proj, "node_modules", "good", "package.json"), `{"name": "good", "version": "1.2.3", "license": {"type": "ISC"}, "repository": "github:o/good"}`)
	write(t, filepath.Join(proj, "node_modules", "broken", "package.json"), `{"name": "broken", "version": `)
	if err := os.Symlink(outside, filepath.Join(proj, "node_modules", "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(proj, "nowhere"), filepath.Join(proj, "node_modules", "dangling")); err != nil {
		t.Fatal(err)
	}
	p := discover(t, proj, Options{Ecosystems: []Ecosystem{NPM}})
	if g := find(t, p, NPM, "good"); g.Version != "1.2.3" || g.License != "ISC" || g.Repository != "https://github.com/o/good" {
		t.Errorf("good: %+v", g)
	}
	if _, ok := warned(p, filepath.Join("node_modules", "broken", "package.json"), "corrupt package.json"); !ok {
		t.Errorf("no warning for the corrupt package.json: %v", p.Warnings)
	}
	if _, ok := warned(p, filepath.Join("node_modules", "linked"), "outside the project"); !ok {
		t.Errorf("no warning for the link out: %v", p.Warnings)
	}
	if _, ok := warned(p, filepath.Join("node_modules", "dangling"), "dangling symlink"); !ok {
		t.Errorf("no warning for the dangling link: %v", p.Warnings)
	}
	if l := find(t, p, NPM, "linked"); l.Dir != "" || !strings.Contains(l.Missing, "outside") {
		t.Errorf("linked: %+v", l)
	}
	for _, x := range p.Packages {
		if x.Version == "6.6.6" || strings.HasPrefix(x.Dir, outside) || x.Summary == "read from outside" {
			t.Errorf("read outside the project: %+v", x)
		}
	}

	// A corrupt root package.json: the lockfile names the direct ones.
	write(t, filepath.Join(proj, "package.json"), "{not json")
	write(t, filepath.Join(proj, "package-lock.json"), `{"lockfileVersion": 3, "packages": {"": {}, "node_modules/good": {"version": "1.2.3"}}}`)
	p = discover(t, proj, Options{Ecosystems: []Ecosystem{NPM}})
	if _, ok := warned(p, "package.json", "corrupt package.json"); !ok {
		t.Errorf("no warning for the corrupt root package.json: %v", p.Warnings)
	}
	if g := find(t, p, NPM, "good"); g.Dir == "" {
		t.Errorf("good not found from the lockfile: %+v", g)
	}
}

// TestPairTypes: an @types package pairs with an installed package that
// has no declarations of its own, and only then leaves the list.
func TestPairTypes(t *testing.T) {
	root := t.TempDir()
	dir := func(name, pj string, files ...string) string {
		d := filepath.Join(root, name)
		write(t, filepath.Join(d, "package.json"), pj)
		for _, f := range files {
			write(t, filepath.Join(d, f), "")
		}
		return d
	}
	pkgs := []Package{
		{Ecosystem: NPM, Name: "express", Version: "4.21.2", Dir: dir("express", `{"name":"express"}`, "index.js")},
		{Ecosystem: NPM, Name: "@types/express", Version: "4.17.21", Dir: dir("@types/express", `{"name":"@types/express"}`, "index.d.ts"), Direct: true},
		{Ecosystem: NPM, Name: "commander", Version: "14.0.0", Dir: dir("commander", `{"name":"commander","types":"typings/index.d.ts"}`)},
		{Ecosystem: NPM, Name: "@types/commander", Version: "2.12.0", Dir: dir("@types/commander", `{}`, "index.d.ts")},
		{Ecosystem: NPM, Name: "@babel/core", Version: "7.0.0", Dir: dir("@babel/core", `{}`, "lib/index.js")},
		{Ecosystem: NPM, Name: "@types/babel__core", Version: "7.20.5", Dir: dir("@types/babel__core", `{}`, "index.d.ts")},
		{Ecosystem: NPM, Name: "@types/node", Version: "22.0.0", Dir: dir("@types/node", `{}`, "index.d.ts")},
		{Ecosystem: NPM, Name: "left-pad", Version: "1.3.0", Missing: "not installed in node_modules"},
		{Ecosystem: NPM, Name: "@types/left-pad", Version: "1.2.0", Dir: dir("@types/left-pad", `{}`, "index.d.ts")},
	}
	typesDir := pkgs[1].Dir
	got := map[string]Package{}
	for _, p := range pairTypes(pkgs) {
		got[p.Name] = p
	}
	if e := got["express"]; e.TypesFrom != "@types/express@4.17.21" || e.TypesDir != typesDir {
		t.Errorf("express: %+v", e)
	}
	if b := got["@babel/core"]; b.TypesFrom != "@types/babel__core@7.20.5" {
		t.Errorf("@babel/core: %+v", b)
	}
	for _, gone := range []string{"@types/express", "@types/babel__core"} {
		if _, ok := got[gone]; ok {
			t.Errorf("%s listed beside the package it declares", gone)
		}
	}
	// kept: a package with its own types, one with no partner, one whose partner is missing
	for _, kept := range []string{"@types/commander", "@types/node", "@types/left-pad"} {
		if _, ok := got[kept]; !ok {
			t.Errorf("%s dropped", kept)
		}
	}
	if got["commander"].TypesDir != "" {
		t.Errorf("commander paired though it ships its own types")
	}
}
