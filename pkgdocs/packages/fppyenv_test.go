package packages

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFingerprintPyenv: with standard libraries on, choosing another
// Python for the project through pyenv (.python-version, PYENV_VERSION)
// changes the fingerprint, so the next add reads that Python's stdlib.
func TestFingerprintPyenv(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte("[project]\nname = \"app\"\nversion = \"1\"\n"), 0o644)
	fp := func(env ...string) string {
		t.Helper()
		s, err := Fingerprint(context.Background(), dir, Options{Stdlib: true, Ecosystems: []Ecosystem{Python}, Env: append([]string{"HOME=" + dir, "PATH="}, env...)})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := fp()
	if fp() != before {
		t.Fatal("fingerprint not stable")
	}
	if err := os.WriteFile(filepath.Join(dir, ".python-version"), []byte("3.12.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withFile := fp()
	if withFile == before {
		t.Error(".python-version did not change the fingerprint")
	}
	if fp("PYENV_VERSION=3.11.7") == withFile {
		t.Error("PYENV_VERSION did not change the fingerprint")
	}
}

// TestStdlibPoetryEnv: a Poetry project whose environment lives in
// Poetry's central folder gets that environment's interpreter for its
// standard library, not python3 on PATH.
func TestStdlibPoetryEnv(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH: the test runs it")
	}
	// The interpreter itself, not a shim (pyenv's is a script).
	out, err := exec.Command(py, "-I", "-S", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skipf("python3 cannot start: %v", err)
	}
	py = strings.TrimSpace(string(out))
	dir, venvs := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte("[tool.poetry]\nname = \"app\"\nversion = \"1\"\n"), 0o644)
	real, _ := filepath.EvalSymlinks(dir)
	env := filepath.Join(venvs, poetryEnvName("app", real)+"-py3.99")
	os.MkdirAll(filepath.Join(env, "bin"), 0o755)
	os.MkdirAll(filepath.Join(env, "lib", "python3.99", "site-packages"), 0o755)
	os.WriteFile(filepath.Join(env, "pyvenv.cfg"), []byte("home = "+filepath.Dir(py)+"\n"), 0o644)
	if err := os.Symlink(py, filepath.Join(env, "bin", "python")); err != nil {
		t.Skip(err)
	}
	proj, err := Discover(context.Background(), dir, Options{Stdlib: true, Ecosystems: []Ecosystem{Python},
		Env: append(os.Environ(), "POETRY_VIRTUALENVS_PATH="+venvs, "VIRTUAL_ENV=")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range proj.Packages {
		if p.IsStdlib() {
			if !strings.HasPrefix(p.Interpreter, env) && p.Missing == "" {
				t.Errorf("stdlib read with %s, not the Poetry environment's %s", p.Interpreter, env)
			}
			return
		}
	}
	t.Errorf("no stdlib entry: %+v %v", proj.Packages, proj.Warnings)
}
