package packages

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// pyCacheDir is where a fetched wheel is unpacked: a folder laid out like
// site-packages, read the same way.
func (d *discovery) pyCacheDir(name, version string) string {
	return filepath.Join(d.opt.CacheDir, "pypi", normalizePyName(name)+"-"+version)
}

// pyFromCache fills missing distributions gno fetched on an earlier run.
func (d *discovery) pyFromCache(missing []pyMissing) {
	if d.opt.CacheDir == "" {
		return
	}
	for _, m := range missing {
		if m.p.Version == "" || m.p.Version == "latest" {
			continue
		}
		dir := d.pyCacheDir(m.p.Name, m.p.Version)
		if _, err := os.Stat(dir); err == nil {
			d.pyFill(m.p, dir)
		}
	}
}

// pyFill reads an unpacked wheel into p.
func (d *discovery) pyFill(p *Package, dir string) bool {
	real, err := d.read.dir(dir)
	if err != nil {
		return false
	}
	for _, dist := range d.scanSite([]string{real}) {
		if dist.norm != normalizePyName(p.Name) {
			continue
		}
		q := d.pyPackage(dist)
		if q == nil || q.Dir == "" {
			return false
		}
		q.Direct, q.Fetched = p.Direct, true
		*p = *q
		return true
	}
	return false
}

// pyFetch downloads wheels with `pip download --no-deps` and unpacks them
// into the fetch cache. pip runs from the project's environment when it
// has pip (its pip.conf applies), else from python3 on PATH; PIP_* and
// the user's pip.conf apply either way. Only wheels are taken: pip builds
// an sdist to read its metadata, which runs the package's code.
func (d *discovery) pyFetch(ctx context.Context, env *pyEnv, missing []pyMissing) {
	var todo []pyMissing
	var ps []*Package
	for _, m := range missing {
		if m.p.Dir == "" {
			todo = append(todo, m)
			ps = append(ps, m.p)
		}
	}
	if len(todo) == 0 {
		return
	}
	var pythons []string
	if env != nil {
		for _, p := range []string{filepath.Join(env.root, "bin", "python"), filepath.Join(env.root, "Scripts", "python.exe")} {
			if _, err := os.Stat(p); err == nil {
				pythons = append(pythons, p)
			}
		}
	}
	for _, name := range []string{"python3", "python"} {
		if p, err := d.env.lookPath(name); err == nil {
			pythons = append(pythons, p)
		}
	}
	if len(pythons) == 0 {
		failAll(ps, "python not found on PATH")
		return
	}
	dir, err := d.scratch("pip-")
	if err != nil {
		failAll(ps, "fetch cache: "+err.Error())
		return
	}
	defer removeAll(dir)
	spec := func(m pyMissing) string {
		if v := m.p.Version; v != "" && v != "latest" {
			return m.req.name + "==" + v
		}
		return m.req.name + m.req.spec
	}
	download := func(python string, ms []pyMissing) error {
		out := filepath.Join(dir, "dl")
		removeAll(out)
		args := []string{"-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
			"--no-input", "--progress-bar", "off", "-d", out}
		if d.opt.Offline {
			args = append(args, "--no-index")
		}
		if env != nil && env.version != "" && !strings.HasPrefix(python, env.root) {
			args = append(args, "--python-version", env.version)
		}
		for _, m := range ms {
			args = append(args, spec(m))
		}
		c := &client{bin: python, dir: dir, env: d.env.with("PIP_DISABLE_PIP_VERSION_CHECK=1"), timeout: d.fetchTimeout()}
		d.progress("pip download: %d to fetch", len(ms))
		if _, err := c.run(ctx, args...); err != nil {
			return err
		}
		for _, m := range ms {
			m.p.Missing = "pip download: no wheel returned"
		}
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			name, version, ok := wheelName(e.Name())
			if !ok {
				continue
			}
			for _, m := range ms {
				if m.p.Dir != "" || normalizePyName(m.req.name) != normalizePyName(name) {
					continue
				}
				dst := d.pyCacheDir(name, version)
				if err := unpackZip(filepath.Join(out, e.Name()), dst, defaultUnpack); err != nil {
					m.p.Missing = "unpacking " + e.Name() + ": " + err.Error()
					break
				}
				m.p.Version = version
				if !d.pyFill(m.p, dst) {
					m.p.Missing = "fetched wheel " + e.Name() + " has no readable metadata"
				}
				break
			}
		}
		return nil
	}
	// pip with a python lacking it: try the next python.
	var python string
	for _, py := range pythons {
		python = py
		if err = download(py, todo); err == nil || !strings.Contains(err.Error(), "No module named pip") {
			break
		}
	}
	// pip stops at the first requirement it cannot satisfy, naming it:
	// that one is missing, the rest is tried again (twice at most, since
	// a network that is down fails every requirement the same way).
	for retry := 0; err != nil; retry++ {
		bad := -1
		for i, m := range todo {
			if mentions(err, "No matching distribution found for "+spec(m)+"\n") {
				bad = i
			}
		}
		if bad < 0 || len(todo) == 1 || retry == 2 || ctx.Err() != nil {
			for _, m := range todo {
				m.p.Missing = pipReason(err)
			}
			return
		}
		todo[bad].p.Missing = pipReason(err)
		todo = append(todo[:bad:bad], todo[bad+1:]...)
		err = download(python, todo)
	}
}

// pipReason shortens pip's failure.
func pipReason(err error) string {
	s := err.Error()
	if mentions(err, "from versions: none") {
		return s + " (no wheel for this platform, or no index reachable)"
	}
	return s
}

// wheelName splits a wheel file name:
// {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl.
func wheelName(file string) (name, version string, ok bool) {
	base, isWheel := strings.CutSuffix(file, ".whl")
	if !isWheel {
		return "", "", false
	}
	parts := strings.Split(base, "-")
	if len(parts) != 5 && len(parts) != 6 {
		return "", "", false
	}
	return parts[0], parts[1], parts[0] != "" && parts[1] != ""
}
