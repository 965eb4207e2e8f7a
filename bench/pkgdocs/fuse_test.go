package pkgdocs

import "testing"

// TestFuseScore: the Bitap port finds what Fuse.js finds: an exact
// substring scores 0 (before the norm), a near match a little more, a
// different text no match.
func TestFuseScore(t *testing.T) {
	for _, tc := range []struct {
		text, pattern string
		match         bool
	}{
		{"Old Man's War", "od man", true},
		{"The Lock Artist", "lock", true},
		{"hello world", "wrld", true},
		{"hello world", "xyzzy", false},
		{"Use PersistentFlags to define a flag available to every command under this one", "flag every subcommand", true},
	} {
		s, ok := fuseScore(tc.text, tc.pattern, 0.4)
		if ok != tc.match {
			t.Errorf("%q in %q: match %v (score %.3f), want %v", tc.pattern, tc.text, ok, s, tc.match)
		}
	}
	if b, _ := bitap("the lock artist", "lock", 0.4); !b {
		t.Error("exact substring not found")
	}
}
