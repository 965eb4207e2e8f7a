package packages

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var rustFixture onceDir

// rustProject is a Cargo workspace whose member depends on anyhow,
// serde (through [workspace.dependencies]) and serde_json (which brings
// itoa and ryu), fetched by cargo into a CARGO_HOME of the test run's
// own. It returns the project and CARGO_HOME.
func rustProject(t *testing.T) (string, string) {
	need(t, "cargo")
	slow(t)
	dir := rustFixture.get(t, "rust", func(dir string) error {
		proj := filepath.Join(dir, "ws")
		write(t, filepath.Join(proj, "Cargo.toml"), `[workspace]
members = ["crates/*"]
resolver = "2"

[workspace.dependencies]
serde = { version = "=1.0.204", default-features = false }
`)
		write(t, filepath.Join(proj, "crates", "app", "Cargo.toml"), `[package]
name = "app"
version = "0.1.0"
edition = "2021"

[dependencies]
anyhow = "=1.0.86"
serde = { workspace = true }
json = { package = "serde_json", version = "=1.0.120" }
`)
		write(t, filepath.Join(proj, "crates", "app", "src", "lib.rs"), "")
		run(t, proj, []string{"CARGO_HOME=" + filepath.Join(dir, "cargo-home"), "CARGO_TERM_PROGRESS_WHEN=never"}, "cargo", "fetch")
		return nil
	})
	return filepath.Join(dir, "ws"), filepath.Join(dir, "cargo-home")
}

func TestRust(t *testing.T) {
	proj, home := rustProject(t)
	p := discover(t, proj, Options{Ecosystems: []Ecosystem{Rust}, Env: env("CARGO_HOME=" + home)})
	if len(p.Warnings) > 0 {
		t.Errorf("warnings: %v", p.Warnings)
	}
	if len(p.Packages) != 3 {
		t.Fatalf("want anyhow, serde, serde_json:\n%s", describe(p))
	}
	a := find(t, p, Rust, "anyhow")
	if a.Version != "1.0.86" || !a.Direct || filepath.Base(a.Dir) != "anyhow-1.0.86" || !strings.HasPrefix(a.Dir, filepath.Join(home, "registry", "src")) {
		t.Errorf("anyhow: %+v", a)
	}
	if a.License != "MIT OR Apache-2.0" || a.Repository != "https://github.com/dtolnay/anyhow" || !strings.Contains(a.Summary, "error") {
		t.Errorf("anyhow metadata: %+v", a)
	}
	if s := find(t, p, Rust, "serde"); s.Version != "1.0.204" || s.Dir == "" {
		t.Errorf("serde (from the workspace table): %+v", s)
	}
	if j := find(t, p, Rust, "serde_json"); j.Version != "1.0.120" || j.Dir == "" {
		t.Errorf("serde_json (renamed json): %+v", j)
	}
	all := discover(t, proj, Options{All: true, Ecosystems: []Ecosystem{Rust}, Env: env("CARGO_HOME=" + home)})
	for _, n := range []string{"itoa", "ryu"} {
		if x := find(t, all, Rust, n); x.Direct || x.Dir == "" {
			t.Errorf("%s: %+v", n, x)
		}
	}
}

// TestRustFetch: locked but not in CARGO_HOME, or declared with no
// Cargo.lock: fetched with `cargo fetch` on a scratch manifest; with the
// network cut, listed missing with cargo's reason.
func TestRustFetch(t *testing.T) {
	src, _ := rustProject(t)
	proj := t.TempDir()
	for _, f := range []string{"Cargo.toml", "Cargo.lock", "crates/app/Cargo.toml", "crates/app/src/lib.rs"} {
		data, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(proj, filepath.FromSlash(f)), string(data))
	}
	before := snapshot(t, proj)
	home := filepath.Join(shared, "cargo-home-fetch")
	p := discover(t, proj, Options{Fetch: true, CacheDir: t.TempDir(), Ecosystems: []Ecosystem{Rust}, Env: env("CARGO_HOME=" + home)})
	a := find(t, p, Rust, "anyhow")
	if a.Dir == "" || !a.Fetched || a.Version != "1.0.86" || !strings.HasPrefix(a.Dir, home) {
		t.Fatalf("anyhow not fetched: %+v\n%s", a, describe(p))
	}
	if after := snapshot(t, proj); len(after) != len(before) {
		t.Errorf("the project was written")
	}

	// No lockfile: the requirement is resolved by cargo.
	nolock := t.TempDir()
	write(t, filepath.Join(nolock, "Cargo.toml"), "[package]\nname = \"x\"\nversion = \"0.1.0\"\n\n[dependencies]\nanyhow = \"1.0.86\"\nlocal = { path = \"../local\" }\n")
	p = discover(t, nolock, Options{Ecosystems: []Ecosystem{Rust}, Env: env("CARGO_HOME=" + home)})
	if a := find(t, p, Rust, "anyhow"); a.Version != "1.0.86" || !strings.Contains(a.Missing, "no Cargo.lock") || has(p, Rust, "local", "") {
		t.Errorf("no lockfile: %+v", p.Packages)
	}
	p = discover(t, nolock, Options{Fetch: true, CacheDir: t.TempDir(), Ecosystems: []Ecosystem{Rust}, Env: env("CARGO_HOME=" + home)})
	if a := find(t, p, Rust, "anyhow"); a.Dir == "" || !strings.HasPrefix(a.Version, "1.0.") {
		t.Errorf("requirement not resolved by cargo: %+v", a)
	}

	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"offline", Options{Offline: true, Env: env("CARGO_HOME=" + t.TempDir())}},
		{"unreachable registry", Options{Env: env("CARGO_HOME="+t.TempDir(), "CARGO_HTTP_PROXY=http://127.0.0.1:9", "CARGO_NET_RETRY=0")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Fetch, tc.opt.CacheDir, tc.opt.Ecosystems = true, t.TempDir(), []Ecosystem{Rust}
			p := discover(t, proj, tc.opt)
			a := find(t, p, Rust, "anyhow")
			if a.Dir != "" || !strings.HasPrefix(a.Missing, "cargo: ") || len(a.Missing) > 220 {
				t.Errorf("want anyhow missing with cargo's reason, got %+v", a)
			}
			t.Logf("reason: %s", a.Missing)
		})
	}
}

// TestRustFetchConfig: the project's .cargo/config.toml applies to the
// scratch fetch (here a proxy nobody answers), and one unknown crate
// fails only itself.
func TestRustFetchConfig(t *testing.T) {
	need(t, "cargo")
	slow(t)
	proj := t.TempDir()
	write(t, filepath.Join(proj, "Cargo.toml"), "[package]\nname = \"x\"\nversion = \"0.1.0\"\n\n[dependencies]\nanyhow = \"=1.0.86\"\ngno-no-such-crate-zz9 = \"1\"\n")
	home := filepath.Join(shared, "cargo-home-fetch")
	p := discover(t, proj, Options{Fetch: true, CacheDir: t.TempDir(), Ecosystems: []Ecosystem{Rust}, Env: env("CARGO_HOME=" + home)})
	if a := find(t, p, Rust, "anyhow"); a.Dir == "" {
		t.Errorf("anyhow not fetched beside an unknown crate: %+v", a)
	}
	if bad := find(t, p, Rust, "gno-no-such-crate-zz9"); bad.Dir != "" || !strings.Contains(bad.Missing, "gno-no-such-crate-zz9") {
		t.Errorf("unknown crate: %+v", bad)
	}
	write(t, filepath.Join(proj, ".cargo", "config.toml"), "[http]\nproxy = \"http://127.0.0.1:9\"\n[net]\nretry = 0\n")
	p = discover(t, proj, Options{Fetch: true, CacheDir: t.TempDir(), Ecosystems: []Ecosystem{Rust}, Env: env("CARGO_HOME=" + t.TempDir())})
	if a := find(t, p, Rust, "anyhow"); a.Dir != "" || !strings.Contains(a.Missing, "connect") {
		t.Errorf("the project's .cargo/config.toml was not applied: %+v", a)
	}
}

// TestRustBroken: a Cargo.toml that does not parse and a corrupt
// Cargo.lock are warnings naming them (with the line).
func TestRustBroken(t *testing.T) {
	proj := t.TempDir()
	write(t, filepath.Join(proj, "Cargo.toml"), "[package]\nname = \"x\"\n[dependencies\nanyhow = 1\n")
	write(t, filepath.Join(proj, "Cargo.lock"), "version = 3\n[[package]]\nname = \"anyhow\"\nversion = \"1.0.86\"\nsource = 7\n")
	p := discover(t, proj, Options{Ecosystems: []Ecosystem{Rust}, Env: env("CARGO_HOME=" + t.TempDir())})
	if _, ok := warned(p, "Cargo.toml", "line 3"); !ok {
		t.Errorf("no warning naming Cargo.toml line 3: %v", p.Warnings)
	}
	if _, ok := warned(p, "Cargo.lock", "cannot parse"); !ok {
		t.Errorf("no warning naming Cargo.lock: %v", p.Warnings)
	}
}
