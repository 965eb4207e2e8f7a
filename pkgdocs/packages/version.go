package packages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/mod/module"
)

// ErrNoVersion is wrapped by FetchVersion's error when the ecosystem's
// client says the version does not exist (or cannot be had here); the
// error names the versions the client lists when it can.
var ErrNoVersion = errors.New("version not available")

// releaseVersion is what a version asked for may look like: letters,
// digits and . + _ - (1.2.3, v1.8.0, 2.0.0-rc.1+build, 0.27.post1).
var releaseVersion = regexp.MustCompile(`^v?[0-9][0-9A-Za-z.+_-]*$`)

// FetchVersion finds one version of a package that the project need not
// use ("latest": the newest release the client lists)
// (`gno packages diff` compares the installed version with another):
// from the package caches first (gno's fetch cache, the Go module cache,
// CARGO_HOME), else, with opt.Fetch, through the ecosystem's own client
// exactly as Discover fetches a missing dependency, so the user's
// registries and proxies apply. projectDir gives the client its settings
// (.npmrc, .cargo/config.toml, the venv's pip) and is never written.
//
// A version that cannot be had is an error wrapping ErrNoVersion with the
// client's reason and, where the client can list them, the versions that
// exist.
func FetchVersion(ctx context.Context, projectDir string, opt Options, eco Ecosystem, name, version string) (*Package, error) {
	if opt.Fetch && opt.CacheDir == "" {
		return nil, errors.New("packages: Fetch needs a CacheDir")
	}
	if strings.TrimSpace(name) == "" || strings.TrimSpace(version) == "" || strings.ContainsAny(name+version, " \t\n\x00") {
		return nil, fmt.Errorf("%w: %q@%q is not a package name and version", ErrNoVersion, name, version)
	}
	// Only a release: a client given "file:/dir", a URL or a git spec
	// would pack that source as a version of the package (npm does).
	if version != "latest" && !releaseVersion.MatchString(version) {
		return nil, fmt.Errorf("%w: %q is not a version of %s (a release such as 1.2.3, or latest)", ErrNoVersion, version, name)
	}
	d, err := newDiscovery(projectDir, &opt)
	if err != nil {
		return nil, err
	}
	d = d.forEcosystem(eco)
	if version == "latest" {
		if !opt.Fetch || opt.Offline {
			return nil, fmt.Errorf("%w: %s %s@latest: finding the latest version needs the client online", ErrNoVersion, eco, name)
		}
		if version = latestRelease(d.listVersions(ctx, name)); version == "" {
			return nil, fmt.Errorf("%w: %s %s@latest: the client lists no release", ErrNoVersion, eco, name)
		}
	}
	p := &Package{Ecosystem: eco, Name: name, Version: version}
	switch eco {
	case Go:
		d.goVersion(ctx, p)
	case NPM:
		d.npmFromCache([]*Package{p})
		if p.Dir == "" && opt.Fetch {
			d.npmFetch(ctx, []*Package{p})
		}
	case Python:
		m := []pyMissing{{p: p, req: pyRequirement{name: name}}}
		d.pyFromCache(m)
		if p.Dir == "" && opt.Fetch {
			d.pyFetch(ctx, d.findPyEnv(""), m)
		}
	case Rust:
		home := d.cargoHome()
		if dir := newCargoSources(d, home).find(cargoLockPackage{Name: name, Version: version}); dir != "" {
			d.cargoFill(p, dir)
		} else if opt.Fetch {
			d.cargoFetch(ctx, home, []cargoWant{{p: p, req: "=" + version}})
		}
	default:
		return nil, fmt.Errorf("%w: %s %s@%s: %s packages cannot be fetched (no client runs for them)", ErrNoVersion, eco, name, version, eco)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.Dir != "" {
		p.Missing = ""
		if p.License == "" {
			p.License = d.licenseOf(p.Dir)
		}
		return p, nil
	}
	reason := p.Missing
	if reason == "" {
		reason = "not in the package caches"
		if !opt.Fetch {
			reason += " (fetching is off)"
		}
	}
	msg := fmt.Sprintf("%s %s@%s: %s", eco, name, version, reason)
	if opt.Fetch && !opt.Offline {
		if vs := d.listVersions(ctx, name); len(vs) > 0 {
			msg += "; versions available: " + shortList(vs, 30)
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrNoVersion, msg)
}

// goVersion finds a module version in the module cache, else downloads it.
func (d *discovery) goVersion(ctx context.Context, p *Package) {
	cache := d.goModCache(ctx)
	if cache != "" {
		d.read.allow(cache)
	}
	p.Repository = goRepository(p.Name)
	m := module.Version{Path: p.Name, Version: p.Version}
	if dir, ok := d.goModuleDir(cache, m); ok {
		p.Dir = dir
		return
	}
	if !d.opt.Fetch {
		return
	}
	pkgs := []Package{*p}
	d.goFetch(ctx, pkgs, []int{0}, []module.Version{m})
	*p = pkgs[0]
}

// listVersions asks the ecosystem's client which versions of name exist,
// newest last as the clients list them; nil when it cannot tell.
func (d *discovery) listVersions(ctx context.Context, name string) []string {
	dir, err := d.scratch("versions-")
	if err != nil {
		return nil
	}
	defer removeAll(dir)
	run := func(bin string, env []string, args ...string) string {
		path, err := d.env.lookPath(bin)
		if err != nil {
			return ""
		}
		c := &client{bin: path, dir: dir, env: d.env.with(env...), timeout: d.fetchTimeout(), maxOut: queryMaxOut}
		out, err := c.run(ctx, args...)
		var ce *clientError
		if err != nil && errors.As(err, &ce) {
			return ce.output
		}
		return string(out)
	}
	switch d.eco {
	case Go:
		out := run("go", []string{"GOWORK=off", "GO111MODULE=on", "GOTOOLCHAIN=local", "GOFLAGS="}, "list", "-m", "-versions", name)
		if f := strings.Fields(out); len(f) > 1 && f[0] == name {
			return f[1:]
		}
	case NPM:
		out := run("npm", []string{"npm_config_update_notifier=false"}, "view", name, "versions", "--json")
		var vs []string
		if json.Unmarshal([]byte(out), &vs) == nil {
			return vs
		}
	case Python:
		for _, py := range []string{"python3", "python"} {
			out := run(py, []string{"PIP_DISABLE_PIP_VERSION_CHECK=1"}, "-m", "pip", "index", "versions", "--no-input", name)
			if _, list, ok := strings.Cut(out, "Available versions:"); ok {
				list, _, _ = strings.Cut(list, "\n")
				vs := strings.Split(list, ",")
				for i := range vs {
					vs[i] = strings.TrimSpace(vs[i])
				}
				// pip lists newest first; the others oldest first.
				for i, j := 0, len(vs)-1; i < j; i, j = i+1, j-1 {
					vs[i], vs[j] = vs[j], vs[i]
				}
				return vs
			}
		}
	case Rust:
		return d.cargoVersions(ctx, name, dir, run)
	}
	return nil
}

// cargoCandidates is cargo's list of the versions a requirement missed.
var cargoCandidates = regexp.MustCompile(`candidate versions found which didn't match: ([^\n]+)`)

// cargoVersions asks cargo for a version no crate has on a scratch
// manifest: its error lists the versions that exist (cargo has no
// command listing a crate's versions).
func (d *discovery) cargoVersions(ctx context.Context, name, dir string, run func(string, []string, ...string) string) []string {
	manifest := fmt.Sprintf("[package]\nname = \"gno-versions\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[lib]\npath = \"lib.rs\"\n\n[workspace]\n\n[dependencies]\nd0 = { package = %q, version = \"=99999.0.0\" }\n", name)
	if os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte(manifest), 0o644) != nil || os.WriteFile(filepath.Join(dir, "lib.rs"), nil, 0o644) != nil {
		return nil
	}
	env := []string{"CARGO_TERM_COLOR=never", "CARGO_TERM_PROGRESS_WHEN=never"}
	if home := d.cargoHome(); home != "" {
		env = append(env, "CARGO_HOME="+home)
	}
	m := cargoCandidates.FindStringSubmatch(run("cargo", env, "fetch"))
	if m == nil {
		return nil
	}
	var vs []string
	for _, v := range strings.Split(m[1], ",") {
		if v = strings.TrimSpace(v); v != "" && v != "..." {
			vs = append(vs, v)
		}
	}
	// cargo lists newest first.
	for i, j := 0, len(vs)-1; i < j; i, j = i+1, j-1 {
		vs[i], vs[j] = vs[j], vs[i]
	}
	return vs
}

// shortList joins the last n versions (the newest, as the clients order
// them), saying how many earlier ones were left out.
func shortList(vs []string, n int) string {
	if len(vs) <= n {
		return strings.Join(vs, ", ")
	}
	return fmt.Sprintf("… %d earlier, %s", len(vs)-n, strings.Join(vs[len(vs)-n:], ", "))
}

// latestRelease is the last of versions (the clients list them oldest
// first, as listVersions returns them) that is no pre-release: digits and
// dots only, after Go's "v".
func latestRelease(vs []string) string {
	for i := len(vs) - 1; i >= 0; i-- {
		v := strings.TrimPrefix(vs[i], "v")
		if v != "" && strings.Trim(v, "0123456789.") == "" {
			return vs[i]
		}
	}
	return ""
}
