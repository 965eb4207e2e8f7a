package config

import (
	"regexp"
	"strings"
	"testing"
)

// TestIsName checks the hand-written name rule against the regexp it
// replaced.
func TestIsName(t *testing.T) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	cases := []string{"", "a", "default", "my-notes.v2_x", "-a", ".a", "_a", "A", "a b", "a/b", "é", "a\n",
		strings.Repeat("a", 64), strings.Repeat("a", 65), "9", "a-", "ab\x00"}
	for _, s := range cases {
		if got, want := isName(s), re.MatchString(s); got != want {
			t.Errorf("isName(%q) = %v, regexp says %v", s, got, want)
		}
	}
}

func FuzzIsName(f *testing.F) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	for _, s := range []string{"a", "-a", strings.Repeat("z", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isName(s), re.MatchString(s); got != want {
			t.Errorf("isName(%q) = %v, regexp says %v", s, got, want)
		}
	})
}
