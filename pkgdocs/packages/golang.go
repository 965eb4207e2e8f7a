package packages

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// discoverGo reads go.mod (and go.sum for --all on pre-1.17 modules,
// whose go.mod does not list every module of the build) and finds each
// module in the module cache.
func discoverGo(ctx context.Context, d *discovery) (bool, []Package) {
	gomod := d.path("go.mod")
	if !exists(gomod) {
		return false, nil
	}
	data, err := d.read.readFile(gomod, maxManifest)
	if err != nil {
		d.warn(gomod, "cannot read: %v", err)
		return true, nil
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		d.warn(gomod, "cannot parse, Go modules skipped: %s", strings.TrimPrefix(err.Error(), "go.mod:"))
		return true, nil
	}
	mods := goRequirements(d, f)
	cache := d.goModCache(ctx)
	if cache != "" {
		d.read.allow(cache)
	}
	var pkgs []Package
	var missing []int
	var fetch []module.Version
	for _, m := range mods {
		p := Package{Ecosystem: Go, Name: m.req.Path, Version: m.req.Version, Direct: m.direct}
		p.Repository = goRepository(m.req.Path)
		if m.local {
			continue // a local replacement is the project's own code
		}
		if dir, ok := d.goModuleDir(cache, m.mod); ok {
			p.Dir = dir
		} else if dir, ok := d.goVendorDir(m.req.Path); ok {
			p.Dir = dir
		} else {
			p.Missing = "not in the module cache"
			if cache == "" {
				p.Missing = "no module cache (GOMODCACHE unset and go not found)"
			}
			missing = append(missing, len(pkgs))
			fetch = append(fetch, m.mod)
		}
		pkgs = append(pkgs, p)
	}
	if d.opt.Fetch && len(missing) > 0 {
		d.goFetch(ctx, pkgs, missing, fetch)
	}
	for i := range pkgs {
		if pkgs[i].Dir != "" {
			pkgs[i].License = d.licenseOf(pkgs[i].Dir)
		}
	}
	return true, pkgs
}

// goModule is one required module after replacements.
type goModule struct {
	req    module.Version // as required
	mod    module.Version // what is read: the replacement if any
	direct bool
	local  bool // replaced by a folder
}

// goRequirements lists the modules to report: the direct requirements,
// or all of them with --all.
func goRequirements(d *discovery, f *modfile.File) []goModule {
	repl := map[module.Version]*modfile.Replace{}
	for _, r := range f.Replace {
		repl[r.Old] = r
	}
	apply := func(v module.Version) (module.Version, bool) {
		r := repl[v]
		if r == nil {
			r = repl[module.Version{Path: v.Path}]
		}
		if r == nil {
			return v, false
		}
		if r.New.Version == "" {
			return r.New, true
		}
		return r.New, false
	}
	var out []goModule
	seen := map[string]bool{}
	for _, r := range f.Require {
		if r.Indirect && !d.opt.All {
			continue
		}
		mod, local := apply(r.Mod)
		out = append(out, goModule{req: r.Mod, mod: mod, direct: !r.Indirect, local: local})
		seen[r.Mod.Path] = true
	}
	goVersion := ""
	if f.Go != nil {
		goVersion = f.Go.Version
	}
	if d.opt.All && (goVersion == "" || semver.Compare("v"+goVersion, "v1.17") < 0) {
		for _, v := range d.goSumModules() {
			if seen[v.Path] {
				continue
			}
			mod, local := apply(v)
			out = append(out, goModule{req: v, mod: mod, local: local})
		}
	}
	return out
}

// goSumModules lists, per module of go.sum with a source hash, its
// highest version: a go.mod before Go 1.17 names only part of the build.
func (d *discovery) goSumModules() []module.Version {
	gosum := d.path("go.sum")
	if !exists(gosum) {
		return nil
	}
	data, err := d.read.readFile(gosum, maxLockfile)
	if err != nil {
		d.warn(gosum, "cannot read: %v", err)
		return nil
	}
	best := map[string]string{}
	var order []string
	for i, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 3 {
			d.warn(gosum, "line %d malformed, skipped", i+1)
			continue
		}
		path, ver := fields[0], fields[1]
		if strings.HasSuffix(ver, "/go.mod") || module.Check(path, ver) != nil {
			continue
		}
		if old, ok := best[path]; !ok {
			order = append(order, path)
			best[path] = ver
		} else if semver.Compare(ver, old) > 0 {
			best[path] = ver
		}
	}
	out := make([]module.Version, 0, len(order))
	for _, p := range order {
		out = append(out, module.Version{Path: p, Version: best[p]})
	}
	return out
}

// goModuleDir is a module's folder in the module cache, if extracted.
func (d *discovery) goModuleDir(cache string, m module.Version) (string, bool) {
	if cache == "" {
		return "", false
	}
	ep, err1 := module.EscapePath(m.Path)
	ev, err2 := module.EscapeVersion(m.Version)
	if err1 != nil || err2 != nil {
		return "", false
	}
	dir := filepath.Join(cache, filepath.FromSlash(ep)+"@"+ev)
	real, err := d.read.dir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.warn(dir, "%v", err)
		}
		return "", false
	}
	return real, true
}

// goVendorDir is a module's folder under vendor/, for a vendored project
// whose module cache lacks it (vendor holds only the packages used).
func (d *discovery) goVendorDir(path string) (string, bool) {
	if !exists(d.path("vendor", "modules.txt")) {
		return "", false
	}
	dir := d.path("vendor", filepath.FromSlash(path))
	real, err := d.read.dir(dir)
	if err != nil {
		if errors.Is(err, ErrOutside) {
			d.warn(dir, "%v", err)
		}
		return "", false
	}
	return real, true
}

// goModCacheMemo remembers `go env GOMODCACHE` per environment: the go
// command takes tens of milliseconds to answer.
var goModCacheMemo sync.Map // key: env values that decide it → string

// goModCache is GOMODCACHE from the environment, else from `go env`
// (which reads the go env file too), else GOPATH's default.
func (d *discovery) goModCache(ctx context.Context) string {
	if v := d.env.get("GOMODCACHE"); v != "" {
		return v
	}
	key := strings.Join([]string{d.env.get("GOPATH"), d.env.home(), d.env.get("GOENV"), d.env.get("XDG_CONFIG_HOME"), d.env.get("PATH")}, "\x00")
	if v, ok := goModCacheMemo.Load(key); ok {
		return v.(string)
	}
	v := ""
	if bin, err := d.env.lookPath("go"); err == nil {
		c := &client{bin: bin, dir: d.dir, env: d.env.with("GOWORK=off", "GOTOOLCHAIN=local"), timeout: d.fetchTimeout(), maxOut: queryMaxOut}
		if out, err := c.run(ctx, "env", "GOMODCACHE"); err == nil {
			v = strings.TrimSpace(string(out))
		}
	}
	if v == "" {
		gopath := d.env.get("GOPATH")
		if gopath != "" {
			gopath = filepath.SplitList(gopath)[0]
		} else if h := d.env.home(); h != "" {
			gopath = filepath.Join(h, "go")
		}
		if gopath != "" {
			v = filepath.Join(gopath, "pkg", "mod")
		}
	}
	if v != "" {
		goModCacheMemo.Store(key, v)
	}
	return v
}

// goFetch downloads the missing modules with `go mod download -json`,
// run outside the project so its go.mod and go.sum stay untouched; the
// user's GOPROXY, GOPRIVATE, GONOSUMDB and GOFLAGS apply.
func (d *discovery) goFetch(ctx context.Context, pkgs []Package, missing []int, mods []module.Version) {
	fail := func(reason string) {
		for _, i := range missing {
			pkgs[i].Missing = reason
		}
	}
	bin, err := d.env.lookPath("go")
	if err != nil {
		fail("go not found on PATH")
		return
	}
	dir, err := d.scratch("go-")
	if err != nil {
		fail("fetch cache: " + err.Error())
		return
	}
	defer removeAll(dir)
	var goflags []string
	for _, f := range strings.Fields(d.env.get("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") {
			goflags = append(goflags, f)
		}
	}
	env := []string{"GOWORK=off", "GO111MODULE=on", "GOTOOLCHAIN=local", "GOFLAGS=" + strings.Join(goflags, " ")}
	if d.opt.Offline {
		env = append(env, "GOPROXY=off")
	}
	c := &client{bin: bin, dir: dir, env: d.env.with(env...), timeout: d.fetchTimeout()}
	args := []string{"mod", "download", "-json"}
	want := map[string]int{}
	for k, i := range missing {
		m := mods[k].Path + "@" + mods[k].Version
		args = append(args, m)
		want[m] = i
	}
	d.progress("go mod download: %d to fetch", len(missing))
	out, runErr := c.run(ctx, args...)
	dec := json.NewDecoder(bytes.NewReader(out))
	got := map[int]bool{}
	for {
		var r struct{ Path, Version, Error, Dir string }
		if err := dec.Decode(&r); err != nil {
			if err != io.EOF {
				d.warn("", "go mod download: unreadable output: %v", err)
			}
			break
		}
		i, ok := want[r.Path+"@"+r.Version]
		if !ok {
			continue
		}
		got[i] = true
		switch {
		case r.Error != "":
			pkgs[i].Missing = "go mod download: " + shortError(goErrorReason(r.Error))
		case r.Dir != "":
			if real, err := d.read.dir(r.Dir); err == nil {
				pkgs[i].Dir, pkgs[i].Missing, pkgs[i].Fetched = real, "", true
			} else {
				pkgs[i].Missing = "downloaded to " + r.Dir + " but unreadable: " + err.Error()
			}
		}
	}
	for _, i := range missing {
		if !got[i] && runErr != nil {
			pkgs[i].Missing = runErr.Error()
		}
	}
}

// goErrorReason drops the "path@version: " the go command prefixes.
func goErrorReason(s string) string {
	if i := strings.Index(s, ": "); i > 0 && strings.Contains(s[:i], "@") {
		return s[i+2:]
	}
	return s
}

// goRepository guesses a module's repository URL from its path for the
// hosts whose URLs are the path itself.
func goRepository(path string) string {
	parts := strings.Split(path, "/")
	switch parts[0] {
	case "github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "git.sr.ht":
		if len(parts) >= 3 {
			return "https://" + strings.Join(parts[:3], "/")
		}
	case "golang.org":
		if len(parts) >= 3 && parts[1] == "x" {
			return "https://go.googlesource.com/" + parts[2]
		}
	}
	return ""
}
