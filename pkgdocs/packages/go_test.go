package packages

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

var goFixture onceDir

// goProject is a module requiring cobra (direct), its two dependencies
// (indirect) and BurntSushi/toml (an upper-case path, escaped in the
// cache), all downloaded by the go command into a module cache of the
// test run's own. It returns the project and the module cache.
func goProject(t *testing.T) (string, string) {
	need(t, "go")
	slow(t)
	dir := goFixture.get(t, "go", func(dir string) error {
		write(t, filepath.Join(dir, "app", "go.mod"), `module example.com/app

go 1.22

require (
	github.com/BurntSushi/toml v1.4.0
	github.com/spf13/cobra v1.8.1
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.5 // indirect
)
`)
		run(t, filepath.Join(dir, "app"), []string{"GOMODCACHE=" + filepath.Join(dir, "modcache"), "GOFLAGS=-modcacherw", "GOWORK=off"},
			"go", "mod", "download", "github.com/BurntSushi/toml@v1.4.0", "github.com/spf13/cobra@v1.8.1",
			"github.com/inconshreveable/mousetrap@v1.1.0", "github.com/spf13/pflag@v1.0.5")
		return nil
	})
	return filepath.Join(dir, "app"), filepath.Join(dir, "modcache")
}

func TestGoDirect(t *testing.T) {
	app, cache := goProject(t)
	p := discover(t, app, Options{Ecosystems: []Ecosystem{Go}, Env: env("GOMODCACHE=" + cache)})
	if len(p.Warnings) > 0 {
		t.Errorf("warnings: %v", p.Warnings)
	}
	if len(p.Packages) != 2 {
		t.Fatalf("want the 2 direct modules, got:\n%s", describe(p))
	}
	cobra := find(t, p, Go, "github.com/spf13/cobra")
	if cobra.Version != "v1.8.1" || !cobra.Direct || cobra.Missing != "" || cobra.Fetched {
		t.Errorf("cobra: %+v", cobra)
	}
	if want := filepath.Join(cache, "github.com", "spf13", "cobra@v1.8.1"); cobra.Dir != want {
		t.Errorf("cobra dir %s, want %s", cobra.Dir, want)
	}
	if cobra.License != "Apache-2.0" || cobra.Repository != "https://github.com/spf13/cobra" {
		t.Errorf("cobra metadata: licence %q repository %q", cobra.License, cobra.Repository)
	}
	toml := find(t, p, Go, "github.com/BurntSushi/toml")
	if !strings.HasSuffix(toml.Dir, filepath.Join("github.com", "!burnt!sushi", "toml@v1.4.0")) || toml.License != "MIT" {
		t.Errorf("escaped path: %+v", toml)
	}
	if p.Ecosystems[0] != Go || p.Fingerprint == "" {
		t.Errorf("ecosystems %v fingerprint %q", p.Ecosystems, p.Fingerprint)
	}
}

func TestGoAll(t *testing.T) {
	app, cache := goProject(t)
	p := discover(t, app, Options{All: true, Ecosystems: []Ecosystem{Go}, Env: env("GOMODCACHE=" + cache)})
	pflag := find(t, p, Go, "github.com/spf13/pflag")
	if pflag.Direct || pflag.Version != "v1.0.5" || pflag.Dir == "" {
		t.Errorf("pflag: %+v", pflag)
	}
	if len(p.Packages) != 4 {
		t.Errorf("want 4 modules with --all:\n%s", describe(p))
	}
}

// TestGoModCacheFromGoEnv: with GOMODCACHE unset the go command is asked,
// once per environment.
func TestGoModCacheFromGoEnv(t *testing.T) {
	need(t, "go")
	gopath := t.TempDir()
	d, err := newDiscovery(t.TempDir(), &Options{Env: env("GOMODCACHE=", "GOPATH="+gopath)})
	if err != nil {
		t.Fatal(err)
	}
	delete(d.env.m, "GOMODCACHE")
	want := filepath.Join(gopath, "pkg", "mod")
	if got := d.goModCache(context.Background()); got != want {
		t.Fatalf("go env GOMODCACHE = %s, want %s", got, want)
	}
	d.env.m["PATH"] = "" // a second call must not need the go command
	if got := d.goModCache(context.Background()); got != want {
		t.Fatalf("memoised answer %s, want %s", got, want)
	}
}

// TestGoFetch: a module the cache lacks is downloaded with `go mod
// download`; with the network cut (GOPROXY=off, or a proxy nobody
// answers) it is listed missing with the go command's reason.
func TestGoFetch(t *testing.T) {
	need(t, "go")
	slow(t)
	proj := t.TempDir()
	write(t, filepath.Join(proj, "go.mod"), "module example.com/x\n\ngo 1.22\n\nrequire github.com/google/uuid v1.6.0\n")
	before := snapshot(t, proj)
	// A module cache of its own: in the run's shared one, a second run
	// of the test (-count) found uuid there already and fetched nothing.
	cache := filepath.Join(t.TempDir(), "modcache")
	var lines []string
	p := discover(t, proj, Options{Fetch: true, CacheDir: filepath.Join(shared, "gno-cache"), Ecosystems: []Ecosystem{Go},
		Env: env("GOMODCACHE="+cache, "GOFLAGS=-modcacherw"), Progress: func(e Ecosystem, l string) { lines = append(lines, string(e)+" "+l) }})
	if len(lines) != 1 || lines[0] != "go go mod download: 1 to fetch" {
		t.Errorf("progress: %q", lines)
	}
	uuid := find(t, p, Go, "github.com/google/uuid")
	if uuid.Dir == "" || !uuid.Fetched || uuid.Missing != "" || !strings.HasPrefix(uuid.Dir, cache) {
		t.Fatalf("uuid not fetched: %+v\n%s", uuid, describe(p))
	}
	if after := snapshot(t, proj); len(after) != len(before) {
		t.Errorf("the project was written: %v", after)
	}

	for _, tc := range []struct {
		name string
		opt  Options
		want string
	}{
		{"offline", Options{Offline: true, Env: env("GOMODCACHE="+t.TempDir(), "GOFLAGS=-modcacherw")}, "GOPROXY=off"},
		{"unreachable proxy", Options{Env: env("GOMODCACHE="+t.TempDir(), "GOFLAGS=-modcacherw", "GOPROXY=http://127.0.0.1:9")}, "127.0.0.1:9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Fetch, tc.opt.CacheDir, tc.opt.Ecosystems = true, t.TempDir(), []Ecosystem{Go}
			p := discover(t, proj, tc.opt)
			uuid := find(t, p, Go, "github.com/google/uuid")
			if uuid.Dir != "" || !strings.Contains(uuid.Missing, tc.want) || len(uuid.Missing) > 220 {
				t.Errorf("want missing with %q, got %+v", tc.want, uuid)
			}
			t.Logf("reason: %s", uuid.Missing)
		})
	}
}

// TestGoBrokenMod: a go.mod that does not parse is a warning naming it and
// its line; the other ecosystems are still discovered.
func TestGoBrokenMod(t *testing.T) {
	proj := t.TempDir()
	write(t, filepath.Join(proj, "go.mod"), "module example.com/x\n\ngo 1.22\n\nrequire github.com/a/b\n")
	write(t, filepath.Join(proj, "package.json"), `{"dependencies": {"left-pad": "1.3.0"}}`)
	p := discover(t, proj, Options{Env: env("GOMODCACHE=" + t.TempDir())})
	w, ok := warned(p, "go.mod", "5:")
	if !ok || w.Path != "go.mod" {
		t.Fatalf("no warning naming go.mod line 5: %v", p.Warnings)
	}
	if lp := find(t, p, NPM, "left-pad"); lp.Version != "1.3.0" || lp.Missing == "" {
		t.Errorf("left-pad: %+v", lp)
	}
}
