package packages

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// eachLimited runs f for 0..n-1, a few at a time: clients are network
// bound, but each is a process with its own start-up cost.
func eachLimited(n, limit int, f func(i int)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}

// failAll marks every package still without a folder missing for reason.
func failAll(ps []*Package, reason string) {
	for _, p := range ps {
		if p.Dir == "" {
			p.Missing = reason
		}
	}
}

// npmFetch fetches packages with `npm pack` and unpacks the tarballs into
// the fetch cache. npm runs in a scratch folder holding a copy of the
// project's .npmrc, so the project's scopes and registries apply while
// the project itself is never written.
func (d *discovery) npmFetch(ctx context.Context, missing []*Package) {
	var todo []*Package
	for _, p := range missing {
		if p.Dir == "" {
			todo = append(todo, p)
		}
	}
	if len(todo) == 0 {
		return
	}
	bin, err := d.env.lookPath("npm")
	if err != nil {
		failAll(todo, "npm not found on PATH")
		return
	}
	dir, err := d.scratch("npm-")
	if err != nil {
		failAll(todo, "fetch cache: "+err.Error())
		return
	}
	defer removeAll(dir)
	if rc := d.path(".npmrc"); exists(rc) {
		if data, err := d.read.readFile(rc, maxManifest); err == nil {
			os.WriteFile(filepath.Join(dir, ".npmrc"), data, 0o600)
		} else {
			d.warn(rc, "cannot read: %v", err)
		}
	}
	c := &client{bin: bin, dir: dir, timeout: d.fetchTimeout(),
		env: d.env.with("npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")}
	pack := func(ps []*Package) error {
		args := []string{"pack", "--json", "--ignore-scripts", "--pack-destination", dir}
		if d.opt.Offline {
			args = append(args, "--offline")
		}
		for _, p := range ps {
			args = append(args, p.Name+"@"+p.Version)
		}
		d.progress("npm pack: %d to fetch", len(ps))
		out, err := c.run(ctx, args...)
		if err != nil {
			var e struct {
				Error struct{ Code, Summary string }
			}
			if json.Unmarshal(out, &e) == nil && e.Error.Summary != "" {
				return &clientError{msg: "npm: " + shortError(e.Error.Code+": "+e.Error.Summary), output: e.Error.Code}
			}
			return err
		}
		var res []struct{ Name, Version, Filename string }
		if err := json.Unmarshal(out, &res); err != nil {
			return errors.New("npm pack: unreadable output")
		}
		used := make([]bool, len(ps))
		for _, p := range ps {
			p.Missing = "npm pack: no tarball returned"
		}
		for _, r := range res {
			for i, p := range ps {
				if used[i] || p.Name != r.Name {
					continue
				}
				used[i] = true
				d.npmUnpack(p, r.Version, filepath.Join(dir, filepath.Base(r.Filename)))
				break
			}
		}
		return nil
	}
	// One bad spec (unknown name or version, a private scope) fails the
	// whole batch: only then is each retried, to tell which.
	if err := pack(todo); err == nil || len(todo) == 1 || !mentions(err, "E404", "ETARGET", "E403", "E401", "EINVALID") {
		if err != nil {
			failAll(todo, err.Error())
		}
		return
	}
	eachLimited(len(todo), 4, func(i int) {
		if err := pack(todo[i : i+1]); err != nil {
			failAll(todo[i:i+1], err.Error())
		}
	})
}

// npmUnpack unpacks a tarball npm pack wrote into the fetch cache.
func (d *discovery) npmUnpack(p *Package, version, tgz string) {
	f, err := os.Open(tgz)
	if err != nil {
		p.Missing = "npm pack: " + err.Error()
		return
	}
	defer f.Close()
	dst := d.npmCacheDir(p.Name, version)
	if err := unpackTarGz(f, dst, 1, defaultUnpack); err != nil {
		p.Missing = "unpacking " + filepath.Base(tgz) + ": " + err.Error()
		return
	}
	p.Version = version
	d.npmFill(p, dst)
	if p.Dir == "" {
		p.Missing = "fetched tarball has no readable package.json"
	}
}

// repoURL turns the repository spellings of manifests (git+https://,
// git://, git@host:, "github:user/repo", "user/repo") into a browsable
// https URL; anything else is kept as written.
func repoURL(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	for _, p := range []string{"github:", "gitlab:", "bitbucket:"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			host := map[string]string{"github:": "github.com", "gitlab:": "gitlab.com", "bitbucket:": "bitbucket.org"}[p]
			return "https://" + host + "/" + strings.TrimSuffix(rest, ".git")
		}
	}
	if !strings.Contains(s, ":") && strings.Count(s, "/") == 1 && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, ".") {
		return "https://github.com/" + s
	}
	s = strings.TrimPrefix(s, "git+")
	if rest, ok := strings.CutPrefix(s, "git@"); ok {
		if host, p, ok := strings.Cut(rest, ":"); ok {
			s = "https://" + host + "/" + p
		}
	}
	for _, p := range []string{"git://", "ssh://git@", "git+ssh://git@", "https://git@"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s = "https://" + rest
		}
	}
	if strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") {
		s = strings.TrimSuffix(strings.TrimSuffix(s, "/"), ".git")
	}
	return s
}
