package packages

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var pyFixture onceDir

// pyProject is a project with a venv where pip installed requests and
// click, declared in requirements.txt (one through an -r include).
func pyProject(t *testing.T) string {
	need(t, "python3")
	slow(t)
	return pyFixture.get(t, "python", func(dir string) error {
		write(t, filepath.Join(dir, "requirements.txt"), "# pinned\nrequests==2.31.0  # HTTP\n-r requirements-dev.txt\n")
		write(t, filepath.Join(dir, "requirements-dev.txt"), "click==8.1.7\n")
		run(t, dir, nil, "python3", "-m", "venv", ".venv")
		run(t, dir, []string{"PIP_DISABLE_PIP_VERSION_CHECK=1"}, filepath.Join(dir, ".venv", "bin", "python"), "-m", "pip", "install", "-q", "-r", "requirements.txt")
		return nil
	})
}

func TestPythonVenv(t *testing.T) {
	dir := pyProject(t)
	p := discover(t, dir, Options{Ecosystems: []Ecosystem{Python}})
	if len(p.Warnings) > 0 {
		t.Errorf("warnings: %v", p.Warnings)
	}
	if len(p.Packages) != 2 {
		t.Fatalf("want requests and click:\n%s", describe(p))
	}
	r := find(t, p, Python, "requests")
	if r.Version != "2.31.0" || !r.Direct || filepath.Base(r.Dir) != "requests" || filepath.Base(filepath.Dir(r.Dir)) != "site-packages" {
		t.Errorf("requests: %+v", r)
	}
	if !slices.Contains(r.Files, filepath.Join(r.Dir, "api.py")) || slices.ContainsFunc(r.Files, func(f string) bool { return !strings.HasSuffix(f, ".py") }) {
		t.Errorf("requests files from RECORD: %v", r.Files)
	}
	if r.Summary != "Python HTTP for Humans." || r.License != "Apache 2.0" || r.Homepage != "https://requests.readthedocs.io" ||
		r.Repository != "https://github.com/psf/requests" || r.DescriptionType != "text/markdown" || !strings.Contains(r.Description, "Requests") {
		t.Errorf("requests metadata: summary %q licence %q home %q repo %q type %q", r.Summary, r.License, r.Homepage, r.Repository, r.DescriptionType)
	}
	if c := find(t, p, Python, "click"); c.Version != "8.1.7" || filepath.Base(c.Dir) != "click" {
		t.Errorf("click: %+v", c)
	}

	all := discover(t, dir, Options{All: true, Ecosystems: []Ecosystem{Python}})
	for _, n := range []string{"urllib3", "idna", "certifi", "charset-normalizer"} {
		if x := find(t, all, Python, n); x.Direct || x.Dir == "" {
			t.Errorf("%s: %+v", n, x)
		}
	}
	if has(all, Python, "pip", "") || has(all, Python, "setuptools", "") {
		t.Errorf("pip's seed packages are no dependency:\n%s", describe(all))
	}

	// Nothing declared: the distributions nothing else requires are
	// the direct ones.
	bare := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, ".venv"), filepath.Join(bare, ".venv")); err != nil {
		t.Fatal(err)
	}
	p = discover(t, bare, Options{Ecosystems: []Ecosystem{Python}})
	if !has(p, Python, "requests", "2.31.0") || !has(p, Python, "click", "") || has(p, Python, "urllib3", "") {
		t.Errorf("top-level distributions:\n%s", describe(p))
	}
}

// TestPythonFetch: declared in pyproject.toml, no environment: fetched
// with `pip download` as wheels into the fetch cache; with the network
// cut, listed missing with pip's reason.
func TestPythonFetch(t *testing.T) {
	need(t, "python3")
	slow(t)
	proj := t.TempDir()
	write(t, filepath.Join(proj, "pyproject.toml"), "[project]\nname = \"demo\"\ndependencies = [\"six==1.16.0\", \"attrs>=23\", \"pywin32; sys_platform == 'win32'\"]\n"+
		"[project.optional-dependencies]\ndocs = [\"sphinx>=7\"]\n")
	p := discover(t, proj, Options{Ecosystems: []Ecosystem{Python}})
	if six := find(t, p, Python, "six"); six.Version != "1.16.0" || !strings.Contains(six.Missing, "no Python environment") {
		t.Fatalf("six: %+v", six)
	}
	if has(p, Python, "sphinx", "") {
		t.Errorf("an extra's dependency that is not installed is listed")
	}
	before := snapshot(t, proj)
	cache := t.TempDir()
	p = discover(t, proj, Options{Fetch: true, CacheDir: cache, Ecosystems: []Ecosystem{Python}})
	six := find(t, p, Python, "six")
	if six.Dir == "" || !six.Fetched || six.Version != "1.16.0" || !slices.Contains(six.Files, filepath.Join(six.Dir, "six.py")) {
		t.Fatalf("six not fetched: %+v\n%s", six, describe(p))
	}
	attrs := find(t, p, Python, "attrs")
	if attrs.Dir == "" || attrs.Version < "23" || filepath.Base(attrs.Dir) != "attrs" {
		t.Errorf("attrs: %+v", attrs)
	}
	if after := snapshot(t, proj); len(after) != len(before) {
		t.Errorf("the project was written")
	}
	if again := discover(t, proj, Options{CacheDir: cache, Ecosystems: []Ecosystem{Python}}); find(t, again, Python, "six").Dir == "" {
		t.Errorf("six not found in the fetch cache on a second run")
	}

	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"offline", Options{Offline: true, Env: env("PIP_FIND_LINKS=", "PIP_NO_CACHE_DIR=1")}},
		{"unreachable index", Options{Env: env("PIP_FIND_LINKS=", "PIP_NO_CACHE_DIR=1", "PIP_INDEX_URL=http://127.0.0.1:9/simple", "PIP_RETRIES=0", "PIP_TIMEOUT=2")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Fetch, tc.opt.CacheDir, tc.opt.Ecosystems = true, t.TempDir(), []Ecosystem{Python}
			p := discover(t, proj, tc.opt)
			six := find(t, p, Python, "six")
			if six.Dir != "" || !strings.Contains(six.Missing, "six") || len(six.Missing) > 300 {
				t.Errorf("want six missing with pip's reason, got %+v", six)
			}
			t.Logf("reason: %s", six.Missing)
		})
	}
}

// TestPythonFetchOneBad: pip stops at an unknown distribution; the
// others are still fetched.
func TestPythonFetchOneBad(t *testing.T) {
	need(t, "python3")
	slow(t)
	proj := t.TempDir()
	write(t, filepath.Join(proj, "requirements.txt"), "gno-no-such-dist-zz9==1.0\nsix==1.16.0\n")
	p := discover(t, proj, Options{Fetch: true, CacheDir: t.TempDir(), Ecosystems: []Ecosystem{Python}})
	if six := find(t, p, Python, "six"); six.Dir == "" {
		t.Errorf("six not fetched beside an unknown distribution: %+v", six)
	}
	if bad := find(t, p, Python, "gno-no-such-dist-zz9"); bad.Dir != "" || !strings.Contains(bad.Missing, "gno-no-such-dist-zz9") {
		t.Errorf("unknown distribution: %+v", bad)
	}
}

// fakeDist writes an installed distribution by hand, as pip lays it out.
func fakeDist(t *testing.T, site, name, version string, files ...string) {
	info := filepath.Join(site, strings.ReplaceAll(name, "-", "_")+"-"+version+".dist-info")
	write(t, filepath.Join(info, "METADATA"), "Metadata-Version: 2.1\nName: "+name+"\nVersion: "+version+"\nSummary: the "+name+" package\n\nLong text.\n")
	var rec strings.Builder
	for _, f := range files {
		write(t, filepath.Join(site, filepath.FromSlash(f)), "def f():\n    pass\n")
		rec.WriteString(f + ",sha256=x,10\n")
	}
	write(t, filepath.Join(info, "RECORD"), rec.String())
}

// TestPythonBadVenv: a dangling dist-info link, a dist-info linked out of
// the environment and a dangling interpreter link are warnings (or
// harmless); nothing outside is read and the rest is discovered.
func TestPythonBadVenv(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	site := filepath.Join(proj, ".venv", "lib", "python3.11", "site-packages")
	write(t, filepath.Join(proj, ".venv", "pyvenv.cfg"), "home = /usr/bin\nversion = 3.11.7\n")
	os.MkdirAll(filepath.Join(proj, ".venv", "bin"), 0o755)
	os.Symlink("/nonexistent/python3", filepath.Join(proj, ".venv", "bin", "python"))
	fakeDist(t, site, "good", "1.0", "good/__init__.py", "good/api.py", "../../../bin/good")
	os.Symlink(filepath.Join(proj, "gone.dist-info"), filepath.Join(site, "ghost-1.0.dist-info"))
	write(t, filepath.Join(outside, "secret-6.6.6.dist-info", "METADATA"), "Name: secret\nVersion: 6.6.6\n")
	os.Symlink(filepath.Join(outside, "secret-6.6.6.dist-info"), filepath.Join(site, "secret-6.6.6.dist-info"))
	write(t, filepath.Join(proj, "requirements.txt"), "good\nghost\nsecret\n")

	p := discover(t, proj, Options{Ecosystems: []Ecosystem{Python}})
	g := find(t, p, Python, "good")
	if g.Version != "1.0" || filepath.Base(g.Dir) != "good" || len(g.Files) != 2 || g.Summary != "the good package" {
		t.Errorf("good: %+v", g)
	}
	if _, ok := warned(p, "ghost-1.0.dist-info", "dangling symlink"); !ok {
		t.Errorf("no warning for the dangling dist-info: %v", p.Warnings)
	}
	if _, ok := warned(p, "secret-6.6.6.dist-info", "outside the project"); !ok {
		t.Errorf("no warning for the link out: %v", p.Warnings)
	}
	for _, x := range p.Packages {
		if x.Version == "6.6.6" || strings.HasPrefix(x.Dir, outside) {
			t.Errorf("read outside: %+v", x)
		}
	}
	if s := find(t, p, Python, "secret"); s.Missing == "" {
		t.Errorf("secret should be missing: %+v", s)
	}

	// The environment itself a dangling link: a warning, the
	// declarations still listed.
	bad := t.TempDir()
	os.Symlink(filepath.Join(bad, "deleted-env"), filepath.Join(bad, ".venv"))
	write(t, filepath.Join(bad, "requirements.txt"), "good==1.0\n")
	p = discover(t, bad, Options{Ecosystems: []Ecosystem{Python}})
	if _, ok := warned(p, ".venv", "dangling symlink"); !ok {
		t.Errorf("no warning for the dangling .venv: %v", p.Warnings)
	}
	if g := find(t, p, Python, "good"); g.Version != "1.0" || g.Missing == "" {
		t.Errorf("good: %+v", g)
	}
}

// TestPythonEnvs: Poetry's central environment and uv's
// UV_PROJECT_ENVIRONMENT are found; Poetry's name is checked against
// Poetry's own algorithm run by Python.
func TestPythonEnvs(t *testing.T) {
	proj := t.TempDir()
	write(t, filepath.Join(proj, "pyproject.toml"), "[tool.poetry]\nname = \"My App!\"\n\n[tool.poetry.dependencies]\npython = \"^3.11\"\ngood = \"^1.0\"\n")
	venvs := t.TempDir()
	name := poetryEnvName("My App!", proj)
	if py, err := exec.LookPath("python3"); err == nil {
		out, err := exec.Command(py, "-c", `
import base64, hashlib, os, re, sys
name, cwd = sys.argv[1], sys.argv[2]
name = name.lower()
sanitized_name = re.sub(r'[ $`+"`"+`!*@"\\\r\n\t]', "_", name)[:42]
normalized_cwd = os.path.normcase(os.path.realpath(cwd))
h = base64.urlsafe_b64encode(hashlib.sha256(normalized_cwd.encode()).digest()).decode()[:8]
print(f"{sanitized_name}-{h}")`, "My App!", proj).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != name {
			t.Fatalf("poetry env name %s, Poetry's algorithm gives %s", name, got)
		}
	}
	env1 := filepath.Join(venvs, name+"-py3.11")
	write(t, filepath.Join(env1, "pyvenv.cfg"), "version = 3.11.7\n")
	fakeDist(t, filepath.Join(env1, "lib", "python3.11", "site-packages"), "good", "1.4", "good/__init__.py")
	p := discover(t, proj, Options{Ecosystems: []Ecosystem{Python}, Env: env("POETRY_VIRTUALENVS_PATH="+venvs, "VIRTUAL_ENV=")})
	if g := find(t, p, Python, "good"); g.Version != "1.4" || !strings.HasPrefix(g.Dir, env1) {
		t.Errorf("Poetry's central env not used: %+v", g)
	}
	if has(p, Python, "python", "") {
		t.Errorf("python is no dependency")
	}

	uv := filepath.Join(proj, "envs", "uv")
	write(t, filepath.Join(uv, "pyvenv.cfg"), "version_info = 3.12.1.final.0\n")
	fakeDist(t, filepath.Join(uv, "lib", "python3.12", "site-packages"), "good", "1.5", "good/__init__.py")
	p = discover(t, proj, Options{Ecosystems: []Ecosystem{Python}, Env: env("POETRY_VIRTUALENVS_PATH="+venvs, "UV_PROJECT_ENVIRONMENT=envs/uv")})
	if g := find(t, p, Python, "good"); g.Version != "1.5" {
		t.Errorf("UV_PROJECT_ENVIRONMENT not used: %+v", g)
	}
}
