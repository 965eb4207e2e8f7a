package packages

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// pyEnv is a Python environment (a venv) the project uses.
type pyEnv struct {
	root    string   // real path
	site    []string // site-packages folders, real paths
	version string   // "3.11" from pyvenv.cfg
	full    string   // "3.11.7" when pyvenv.cfg says
	impl    string   // "CPython" when pyvenv.cfg says (uv writes it)
}

// markers is the environment PEP 508 markers are evaluated against.
func (e *pyEnv) markers() markerEnv {
	if e == nil {
		return newMarkerEnv("", "", "")
	}
	return newMarkerEnv(e.version, e.full, e.impl)
}

// pyEnvCandidates lists where a project's environment may be, in the
// order tried: uv's UV_PROJECT_ENVIRONMENT, the in-project .venv (uv,
// Poetry's virtualenvs.in-project, python -m venv) and venv, the active
// $VIRTUAL_ENV, then Poetry's central one
// ({virtualenvs.path}/{name}-{hash}-py{X.Y}).
func (d *discovery) pyEnvCandidates(projectName string) []string {
	var out []string
	if v := d.env.get("UV_PROJECT_ENVIRONMENT"); v != "" {
		if !filepath.IsAbs(v) {
			v = d.path(v)
		}
		out = append(out, v)
	}
	out = append(out, d.path(".venv"), d.path("venv"))
	if v := d.env.get("VIRTUAL_ENV"); v != "" {
		out = append(out, v)
	}
	if projectName != "" {
		if dir := d.poetryVenvsDir(); dir != "" {
			matches, _ := filepath.Glob(filepath.Join(dir, glob(poetryEnvName(projectName, d.dir))+"-py*"))
			slices.SortFunc(matches, func(a, b string) int { return -strings.Compare(a, b) }) // newest Python first
			out = append(out, matches...)
		}
	}
	return out
}

// poetryEnvName is Poetry's EnvManager.generate_env_name: the lower-case
// project name with shell-hostile characters replaced, cut at 42, then
// the first 8 characters of the URL-safe base64 SHA-256 of the project's
// real path.
func poetryEnvName(name, projectDir string) string {
	n := poetrySanitize.ReplaceAllString(strings.ToLower(name), "_")
	if r := []rune(n); len(r) > 42 {
		n = string(r[:42])
	}
	p := projectDir
	if runtime.GOOS == "windows" {
		p = strings.ToLower(p) // os.path.normcase
	}
	sum := sha256.Sum256([]byte(p))
	return n + "-" + base64.URLEncoding.EncodeToString(sum[:])[:8]
}

var poetrySanitize = regexp.MustCompile("[ $`!*@\"\\\\\r\n\t]")

// glob escapes a literal for filepath.Glob.
func glob(s string) string {
	return regexp.MustCompile(`[*?\[\\]`).ReplaceAllString(s, `\$0`)
}

// poetryVenvsDir is Poetry's virtualenvs.path: POETRY_VIRTUALENVS_PATH,
// else {cache-dir}/virtualenvs with cache-dir POETRY_CACHE_DIR or the
// platform's user cache folder.
func (d *discovery) poetryVenvsDir() string {
	if v := d.env.get("POETRY_VIRTUALENVS_PATH"); v != "" {
		return v
	}
	if v := d.env.get("POETRY_CACHE_DIR"); v != "" {
		return filepath.Join(v, "virtualenvs")
	}
	home := d.env.home()
	switch runtime.GOOS {
	case "darwin":
		if home != "" {
			return filepath.Join(home, "Library", "Caches", "pypoetry", "virtualenvs")
		}
	case "windows":
		if v := d.env.get("LOCALAPPDATA"); v != "" {
			return filepath.Join(v, "pypoetry", "Cache", "virtualenvs")
		}
	default:
		if v := d.env.get("XDG_CACHE_HOME"); v != "" {
			return filepath.Join(v, "pypoetry", "virtualenvs")
		}
		if home != "" {
			return filepath.Join(home, ".cache", "pypoetry", "virtualenvs")
		}
	}
	return ""
}

// findPyEnv returns the first candidate that is a working venv; a broken
// one (dangling link, no pyvenv.cfg) is a warning.
func (d *discovery) findPyEnv(projectName string) *pyEnv {
	for _, c := range d.pyEnvCandidates(projectName) {
		if !exists(c) {
			continue
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			d.warn(c, "Python environment unusable: %v", danglingError(c, err))
			continue
		}
		cfg := filepath.Join(real, "pyvenv.cfg")
		if _, err := os.Stat(cfg); err != nil {
			if within(d.dir, real) {
				d.warn(c, "no pyvenv.cfg: not a virtual environment, skipped")
			}
			continue
		}
		// A venv is a package cache of its own: its folder becomes a
		// root of the read rule, wherever it lives.
		d.read.allow(real)
		env := &pyEnv{root: real}
		if data, err := d.read.readFile(cfg, maxManifest); err == nil {
			for _, l := range strings.Split(string(data), "\n") {
				k, v, ok := strings.Cut(l, "=")
				k = strings.TrimSpace(k)
				if ok && (k == "version" || k == "version_info") && env.version == "" {
					parts := strings.Split(strings.TrimSpace(v), ".")
					if len(parts) >= 2 {
						env.version = parts[0] + "." + parts[1]
						env.full = strings.TrimSpace(v)
					}
				}
				if ok && k == "implementation" {
					env.impl = strings.TrimSpace(v)
				}
			}
		}
		pats := []string{filepath.Join(real, "lib", "*", "site-packages"), filepath.Join(real, "Lib", "site-packages"), filepath.Join(real, "lib64", "*", "site-packages")}
		for _, pat := range pats {
			matches, _ := filepath.Glob(pat)
			for _, m := range matches {
				sp, err := d.read.dir(m)
				if err != nil {
					d.warn(m, "%v", danglingError(m, err))
					continue
				}
				if !slices.Contains(env.site, sp) {
					env.site = append(env.site, sp)
				}
			}
		}
		if len(env.site) == 0 {
			d.warn(c, "no site-packages in this environment")
		}
		return env
	}
	return nil
}

// danglingError names the target of a dangling symlink.
func danglingError(p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if t, lerr := os.Readlink(p); lerr == nil {
			return errors.New("dangling symlink to " + t)
		}
	}
	return err
}
