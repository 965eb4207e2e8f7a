package packages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDiscoverAcross: one project with four ecosystems, direct and
// --all, counted and sorted.
func TestDiscoverAcross(t *testing.T) {
	proj, environ := synthetic{npm: 4, golang: 3, python: 2, rust: 2}.write(t, t.TempDir())
	p := discover(t, proj, Options{Env: environ})
	if len(p.Warnings) > 0 {
		t.Errorf("warnings: %v", p.Warnings)
	}
	if len(p.Packages) != 11 || len(p.Ecosystems) != 4 {
		t.Fatalf("want 11 direct packages in 4 ecosystems:\n%s", describe(p))
	}
	for i := 1; i < len(p.Packages); i++ {
		a, b := p.Packages[i-1], p.Packages[i]
		if a.Ecosystem == b.Ecosystem && a.Name > b.Name {
			t.Errorf("not sorted: %s before %s", a.Name, b.Name)
		}
	}
	for _, x := range p.Packages {
		if x.Dir == "" || x.Missing != "" || !x.Direct || x.Summary == "" && x.Ecosystem != Go {
			t.Errorf("%+v", x)
		}
	}
	if g := find(t, p, Go, "example.com/mod0"); g.License != "MIT" {
		t.Errorf("go licence: %+v", g)
	}
	all := discover(t, proj, Options{All: true, Env: environ})
	if len(all.Packages) != 22 {
		t.Errorf("want 22 with --all:\n%s", describe(all))
	}
	if x := find(t, all, Go, "example.com/Ind0"); x.Direct || x.Dir == "" {
		t.Errorf("indirect Go module (escaped path): %+v", x)
	}
	if x := find(t, all, Python, "py-dep-0"); x.Direct || len(x.Files) != 4 {
		t.Errorf("transitive Python dist: %+v", x)
	}
}

// TestFingerprint: equal while nothing changes, different after each kind
// of change discovery would see.
func TestFingerprint(t *testing.T) {
	root := t.TempDir()
	proj, environ := synthetic{npm: 2, golang: 2, python: 2, rust: 2}.write(t, root)
	ctx := context.Background()
	opt := Options{Env: environ}
	p := discover(t, proj, opt)
	fp, err := Fingerprint(ctx, proj, opt)
	if err != nil {
		t.Fatal(err)
	}
	if fp != p.Fingerprint {
		t.Fatalf("Fingerprint %s, Discover's %s", fp, p.Fingerprint)
	}
	if again, _ := Fingerprint(ctx, proj, opt); again != fp {
		t.Fatalf("unchanged project, new fingerprint")
	}
	if all, _ := Fingerprint(ctx, proj, Options{All: true, Env: environ}); all == fp {
		t.Errorf("--all gives the same fingerprint")
	}
	later := time.Now().Add(time.Minute)
	for name, change := range map[string]func(){
		"npm install":  func() { os.Chtimes(filepath.Join(proj, "node_modules", ".package-lock.json"), later, later) },
		"package.json": func() { write(t, filepath.Join(proj, "package.json"), `{"dependencies": {"pkg-0": "^1.0.0"}}`) },
		"pip install": func() {
			os.Mkdir(filepath.Join(proj, ".venv", "lib", "python3.11", "site-packages", "new-1.0.dist-info"), 0o755)
		},
		"Cargo.lock": func() { write(t, filepath.Join(proj, "Cargo.lock"), "version = 3\n") },
		"cargo extracts": func() {
			os.Mkdir(filepath.Join(root, "cargo-home", "registry", "src", "index.crates.io-1949cf8c6b5b557f", "x-1.0.0"), 0o755)
		},
		"go.sum":           func() { write(t, filepath.Join(proj, "go.sum"), "example.com/mod0 v1.2.3 h1:x=\n") },
		"module removed":   func() { os.RemoveAll(filepath.Join(root, "gomodcache", "example.com", "mod1@v1.2.3")) },
		"Package.resolved": func() { write(t, filepath.Join(proj, "Package.resolved"), `{"pins": [], "version": 2}`) },
	} {
		change()
		next, err := Fingerprint(ctx, proj, opt)
		if err != nil {
			t.Fatal(err)
		}
		if next == fp {
			t.Errorf("%s: fingerprint unchanged", name)
		}
		fp = next
	}
}

func TestDiscoverErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Discover(ctx, filepath.Join(t.TempDir(), "absent"), Options{}); !errors.Is(err, ErrNoProject) {
		t.Errorf("absent folder: %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	write(t, file, "x")
	if _, err := Discover(ctx, file, Options{}); !errors.Is(err, ErrNoProject) {
		t.Errorf("a file: %v", err)
	}
	if _, err := Discover(ctx, t.TempDir(), Options{Fetch: true}); err == nil {
		t.Errorf("Fetch without CacheDir accepted")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Discover(canceled, t.TempDir(), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	p := discover(t, t.TempDir(), Options{})
	if len(p.Packages) != 0 || len(p.Ecosystems) != 0 || len(p.Warnings) != 0 {
		t.Errorf("empty folder: %+v", p)
	}
}
