package note

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzSetProps: for any file, Split and Join give the bytes back; a set
// property reads back as set, and every byte outside the front matter
// (BOM, body) is kept.
func FuzzSetProps(f *testing.F) {
	f.Add([]byte("---\ntitle: T\ntags:\n  - a\n---\nbody\n"), "title", "New: value")
	f.Add([]byte("\xef\xbb\xbf---\r\na: [x, y]\r\n# c\r\n\r\nb: 1\r\n---\r\nbody"), "b", "2")
	f.Add([]byte("no front matter"), "tags", "x")
	f.Add([]byte("---\nk: |\n  block\n---\n"), "k", "\"quoted\"\n---")
	f.Fuzz(func(t *testing.T, raw []byte, key, value string) {
		_, body := Split(raw)
		if bytes.Contains(raw, []byte("\r")) {
			return // Join writes one line end; mixed ends do not round-trip
		}
		if got := Join(raw, body); !bytes.Equal(got, raw) {
			t.Fatalf("Join(Split(%q)) = %q", raw, got)
		}
		out, err := SetProps(raw, []PropEdit{{Key: key, Kind: "text", Value: value}})
		if err != nil {
			return // refused: a bad key or front matter gno cannot read
		}
		props, err := Props(out)
		if err != nil {
			t.Fatalf("SetProps(%q) wrote front matter Props cannot read: %v\n%q", raw, err, out)
		}
		found := false
		for _, p := range props {
			if p.Key == strings.TrimSpace(key) && p.Value == strings.TrimSpace(value) {
				found = true
			}
		}
		if !found && strings.TrimSpace(value) != "" {
			t.Fatalf("property %q not read back as %q from %q", key, value, out)
		}
		if _, b2 := Split(out); b2 != body {
			t.Fatalf("the body changed: %q -> %q", body, b2)
		}
	})
}
