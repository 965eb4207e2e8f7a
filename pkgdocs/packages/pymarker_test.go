package packages

import (
	"path/filepath"
	"runtime"
	"testing"
)

func TestMarkerHolds(t *testing.T) {
	env := newMarkerEnv("3.11", "3.11.7", "CPython")
	if runtime.GOOS != "linux" {
		t.Skip("the platform cases are written for linux")
	}
	for _, c := range []struct {
		marker string
		extras []string
		want   bool
	}{
		{"", nil, true},
		{`extra == "cli"`, nil, false},
		{`extra == "cli"`, []string{"cli"}, true},
		{`extra == 'CLI'`, []string{"cli"}, true},
		{`"cli" == extra`, []string{"cli"}, true},
		{`python_version < "3.8"`, nil, false},
		{`python_version >= "3.8"`, nil, true},
		{`python_version > "3.9" and python_version < "3.12"`, nil, true},
		{`python_full_version >= "3.11.8"`, nil, false},
		{`python_full_version ~= "3.11.2"`, nil, true},
		{`python_version ~= "3.10"`, nil, true},
		{`python_version == "3.*"`, nil, true},
		{`sys_platform == "win32"`, nil, false},
		{`sys_platform == "linux"`, nil, true},
		{`platform_system == "Windows" or os_name == "nt"`, nil, false},
		{`platform_system != "Windows"`, nil, true},
		{`implementation_name == "pypy"`, nil, false},
		{`implementation_name == "cpython" and (extra == "socks" or extra == "all")`, []string{"all"}, true},
		{`(python_version < "3.10") and extra == "x"`, []string{"x"}, false},
		{`sys_platform not in "win32 cygwin"`, nil, true},
		{`"linux" in sys_platform`, nil, true},
		// unknown key, unreadable text: hold
		{`platform_machine == "arm64"`, nil, true},
		{`weird_key === "x"`, nil, true},
		{`python_version <`, nil, true},
		{`((((`, nil, true},
		{`python_version == "3.11`, nil, true},
	} {
		if got := markerHolds(c.marker, env.with(c.extras...)); got != c.want {
			t.Errorf("%q with %v = %v, want %v", c.marker, c.extras, got, c.want)
		}
	}
}

// TestPythonExtrasNotTransitive: in a venv holding httpx, pydantic and
// rich installed by pip (no manifest), rich is a direct package: httpx
// requires it only under its "cli" extra.
func TestPythonExtrasNotTransitive(t *testing.T) {
	need(t, "python3")
	slow(t)
	dir := t.TempDir()
	run(t, dir, nil, "python3", "-m", "venv", ".venv")
	run(t, dir, []string{"PIP_DISABLE_PIP_VERSION_CHECK=1"}, filepath.Join(dir, ".venv", "bin", "python"), "-m", "pip", "install", "-q",
		"httpx==0.27.2", "pydantic", "rich")
	p := discover(t, dir, Options{Ecosystems: []Ecosystem{Python}})
	for _, n := range []string{"httpx", "pydantic", "rich"} {
		if x := find(t, p, Python, n); !x.Direct || x.Dir == "" {
			t.Errorf("%s: want a direct, installed package: %+v", n, x)
		}
	}
	// what they require unconditionally stays transitive
	for _, n := range []string{"httpcore", "pydantic-core", "markdown-it-py", "anyio"} {
		if has(p, Python, n, "") {
			t.Errorf("%s listed without --all:\n%s", n, describe(p))
		}
	}
	all := discover(t, dir, Options{All: true, Ecosystems: []Ecosystem{Python}})
	if x := find(t, all, Python, "httpcore"); x.Direct {
		t.Errorf("httpcore is direct: %+v", x)
	}
	// httpx's extras (brotli, h2, socksio…) are not installed and not asked for
	for _, n := range []string{"h2", "socksio", "brotli", "zstandard"} {
		if has(all, Python, n, "") {
			t.Errorf("%s (an extra nobody asked for) listed:\n%s", n, describe(all))
		}
	}
}
