package apidoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRustTokio: tokio writes its core items inside cfg_rt! { … } and
// cfg_time! { … }, re-exports them with `pub use`, and defines select!
// through a doc! wrapper that adds #[macro_export] and the docs.
func TestRustTokio(t *testing.T) {
	dir := filepath.Join(cratesWith(t, "crates-tokio", "tokio = \"=1.40.0\"\n"), "tokio-1.40.0")
	d := extract(t, Rust, "tokio", "1.40.0", dir)
	// tokio::spawn: `pub use task::spawn` at the root, defined in a
	// private module of task, inside cfg_rt!
	// the signature is written indented by 4 inside cfg_rt! { … }; it is
	// kept without that indentation, every line otherwise as written
	s := unit(t, d, "api/spawn")
	sig := "pub fn spawn<F>(future: F) -> JoinHandle<F::Output>\nwhere\n    F: Future + Send + 'static,\n    F::Output: Send + 'static,"
	if s.Symbol.Signature != sig {
		t.Errorf("spawn signature\n got %q\nwant %q", s.Symbol.Signature, sig)
	}
	src, err := os.ReadFile(filepath.Join(dir, "src", "task", "spawn.rs"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "    "+strings.ReplaceAll(sig, "\n", "\n    ")) {
		t.Errorf("spawn signature not in src/task/spawn.rs as written")
	}
	if lines := strings.Split(string(src), "\n"); s.Line < 1 || s.Line > len(lines) || strings.TrimSpace(lines[s.Line-1]) != "pub fn spawn<F>(future: F) -> JoinHandle<F::Output>" {
		t.Errorf("spawn line %d", s.Line)
	}
	doc := "Spawns a new asynchronous task, returning a\n[`JoinHandle`](JoinHandle) for it."
	if !strings.Contains(s.Doc, doc) || !strings.Contains(s.Doc, "Re-export of `task::spawn`") || !strings.Contains(string(src), "    /// Spawns a new asynchronous task, returning a\n    /// [`JoinHandle`](JoinHandle) for it.") {
		t.Errorf("spawn doc %.100q", s.Doc)
	}
	if s.File != "src/task/spawn.rs" || s.Symbol.Kind != SymFunc {
		t.Errorf("spawn: file %s kind %s", s.File, s.Symbol.Kind)
	}
	if ts := unit(t, d, "api/task::spawn"); ts.Symbol.Signature != sig || ts.File != s.File {
		t.Errorf("task::spawn = %+v", ts.Symbol)
	}
	// tokio::time::sleep: cfg_time! { pub mod time; }, then `pub use sleep::{sleep, …}`
	sl := unit(t, d, "api/time::sleep")
	checkSource(t, dir, sl, "pub fn sleep(duration: Duration) -> Sleep", "Waits until `duration` has elapsed.", "/// Waits until `duration` has elapsed.")
	// select!: in #[doc(hidden)] pub mod macros, through doc! {macro_rules! select {…}}
	m := unit(t, d, "api/select")
	if m.Symbol.Kind != SymMacro || !strings.HasPrefix(m.Symbol.Signature, "macro_rules! select {") ||
		!strings.Contains(m.Doc, "Waits on multiple concurrent branches, returning when the **first** branch") {
		t.Errorf("select! = %+v\ndoc %.200q", m.Symbol, m.Doc)
	}
	if m.File != "src/macros/select.rs" {
		t.Errorf("select! file %s", m.File)
	}
	for _, p := range []string{"api/join", "api/sync::Mutex", "api/sync::Mutex::lock", "api/runtime::Runtime::block_on", "api/task::JoinHandle"} {
		unit(t, d, p)
	}
	// in pin_project_lite::pin_project! { … }; in a #[doc(hidden)] module, re-exported
	if j := unit(t, d, "api/io::Join"); !strings.HasPrefix(j.Symbol.Signature, "pub struct Join<R, W>") {
		t.Errorf("io::Join = %q", j.Symbol.Signature)
	}
	if u := unit(t, d, "api/net::UnixDatagram"); !strings.Contains(u.Doc, "An I/O object representing a Unix datagram socket.") || u.File != "src/net/unix/datagram/socket.rs" {
		t.Errorf("net::UnixDatagram = %+v", u.Symbol)
	}
	if hasUnit(d, func(u Unit) bool { return strings.HasPrefix(u.Path, "api/net::unix::datagram::") }) {
		t.Error("the hidden module's path is listed")
	}
	if hasUnit(d, func(u Unit) bool { return strings.HasPrefix(u.Path, "api/support::") || u.Path == "api/select_variant" }) {
		t.Error("hidden macro plumbing is listed")
	}
}

// TestRustMacroWrapped: items in ident! { … } blocks, pub use chains and
// globs, include_str! docs (inside the crate only), and a macro that
// never closes.
func TestRustMacroWrapped(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"Cargo.toml": "[package]\nname = \"wrap\"\nversion = \"0.1.0\"\n",
		"README.md":  "# wrap\n\nThe crate.\n",
		"docs/f.md":  "Doc of f from a file.",
		"src/lib.rs": "#![doc = include_str!(\"../README.md\")]\n" +
			"macro_rules! cfg_x { ($($item:item)*) => { $( #[cfg(feature = \"x\")] $item )* } }\n" +
			"cfg_x! {\n    /// Wrapped.\n    pub fn wrapped() -> u8 { 1 }\n    pub mod inner;\n}\n" +
			"mod imp;\npub use imp::{f as g, deep::*, linked};\npub use self::imp::f;\n" +
			"#[doc = include_str!(\"../../outside.md\")]\npub fn escape() {}\n" +
			"cfg_x! {\n    pub fn open_ended() {}\n    pub struct Never {\n",
		"src/inner.rs": "/// Sleeps.\npub fn nap() {}\n",
		"src/imp.rs":   "#[doc = include_str!(\"../docs/f.md\")]\npub fn f(x: u32) -> u32 { x }\npub mod deep { pub fn d() {} }\n#[doc = include_str!(\"../docs/link.md\")]\npub fn linked() {}\n",
	})
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "docs", "link.md")); err != nil {
		t.Fatal(err)
	}
	d := extract(t, Rust, "wrap", "0.1.0", dir)
	if w := unit(t, d, "api/wrapped"); w.Doc != "Wrapped." || w.Symbol.Signature != "pub fn wrapped() -> u8" {
		t.Errorf("wrapped = %+v", w)
	}
	unit(t, d, "api/inner::nap")
	if f := unit(t, d, "api/f"); f.Doc != "Doc of f from a file." || f.File != "src/imp.rs" {
		t.Errorf("f = %+v", f)
	}
	if g := unit(t, d, "api/g"); g.Symbol.Signature != "pub fn f(x: u32) -> u32" || !strings.Contains(g.Doc, "Re-export of `f`") {
		t.Errorf("g = %+v", g)
	}
	unit(t, d, "api/d")
	if c := unit(t, d, "api/mod/wrap"); !strings.Contains(c.Doc, "The crate.") {
		t.Errorf("crate doc = %q", c.Doc)
	}
	if !warned(d, "src/lib.rs", "leaves the crate") {
		t.Errorf("include_str! out of the crate not warned: %v", d.Warnings)
	}
	if e := unit(t, d, "api/escape"); e.Doc != "" {
		t.Errorf("escape read a file outside the crate: %q", e.Doc)
	}
	unit(t, d, "api/open_ended")
	// a link out of the crate is not followed
	if l := unit(t, d, "api/linked"); strings.Contains(l.Text, "SECRET") || !warned(d, "src/imp.rs", "not read") {
		t.Errorf("linked = %q, warnings %v", l.Text, d.Warnings)
	}
}
