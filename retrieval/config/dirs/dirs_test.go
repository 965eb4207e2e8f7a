package dirs

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestIsName checks the hand-written name rule against the regexp it
// replaced.
func TestIsName(t *testing.T) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	cases := []string{"", "a", "default", "my-notes.v2_x", "-a", ".a", "_a", "A", "a b", "a/b", "é", "a\n", "..", "./a",
		strings.Repeat("a", 64), strings.Repeat("a", 65), "9", "a-", "ab\x00"}
	for _, s := range cases {
		if got, want := IsName(s), re.MatchString(s); got != want {
			t.Errorf("IsName(%q) = %v, regexp says %v", s, got, want)
		}
	}
}

// TestResolve: GNO_HOME wins over XDG; relative XDG values are ignored;
// GNO_MODELS_DIR overrides the model cache; --config is made absolute.
func TestResolve(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GNO_HOME", "")
	t.Setenv("GNO_MODELS_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "relative/ignored")
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "xd"))
	t.Setenv("XDG_CACHE_HOME", "")
	p, err := Resolve("", "")
	if err != nil {
		t.Fatal(err)
	}
	want := Paths{Index: "default", ConfigFile: filepath.Join(home, ".config", "gno", "default.yml"),
		IndexDir: filepath.Join(home, "xd", "gno", "default"), DBFile: filepath.Join(home, "xd", "gno", "default", "index.sqlite"),
		ModelsDir: filepath.Join(home, ".cache", "gno", "models")}
	if p != want {
		t.Errorf("XDG paths:\n got %+v\nwant %+v", p, want)
	}
	gh := filepath.Join(home, "gh")
	t.Setenv("GNO_HOME", gh)
	t.Setenv("GNO_MODELS_DIR", filepath.Join(home, "m"))
	p, err = Resolve("notes", "c.yml")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("c.yml")
	if p.IndexDir != filepath.Join(gh, "data", "notes") || p.ConfigFile != abs || p.ModelsDir != filepath.Join(home, "m") {
		t.Errorf("GNO_HOME paths: %+v", p)
	}
	if _, err := Resolve("../x", ""); err != ErrName {
		t.Errorf("../x: %v", err)
	}
}

// TestPathHelpers: on Unix the path-package helpers give path/filepath's
// answers.
func TestPathHelpers(t *testing.T) {
	for _, elems := range [][]string{{"/a/", "b"}, {"/a//b/../c", "./d/"}, {"rel", "x"}, {"/", ""}, {"", "a"}, {"/a", "../../b"}} {
		if got, want := join(elems...), filepath.Join(elems...); got != want {
			t.Errorf("join(%q) = %q, filepath says %q", elems, got, want)
		}
	}
	for _, p := range []string{"/a/b", "a/b", "./a", "../a/./b/", "/a/../.."} {
		if got, want := isAbs(p), filepath.IsAbs(p); got != want {
			t.Errorf("isAbs(%q) = %v, filepath says %v", p, got, want)
		}
		got, err1 := abs(p)
		want, err2 := filepath.Abs(p)
		if got != want || (err1 == nil) != (err2 == nil) {
			t.Errorf("abs(%q) = %q, %v; filepath says %q, %v", p, got, err1, want, err2)
		}
	}
}

// FuzzIsName checks the hand-written name rule against the regexp it
// replaced on any input.
func FuzzIsName(f *testing.F) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	for _, s := range []string{"a", "-a", strings.Repeat("z", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsName(s), re.MatchString(s); got != want {
			t.Errorf("IsName(%q) = %v, regexp says %v", s, got, want)
		}
	})
}
