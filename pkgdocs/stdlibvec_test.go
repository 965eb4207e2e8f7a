package pkgdocs

import "testing"

func TestCompactAPIText(t *testing.T) {
	for body, want := range map[string]string{
		"# strings.TrimLeftFunc\n\nfunction\n\n```go\nfunc TrimLeftFunc(s string, f func(rune) bool) string\n```\n\nTrimLeftFunc returns a slice of the string s. More here.\n": "strings.TrimLeftFunc\nfunc TrimLeftFunc(s string, f func(rune) bool) string\nTrimLeftFunc returns a slice of the string s.",
		"# ssl.SSLObject.unwrap\n\nmethod\n\n```python\n@property\ndef unwrap(self)\n```\n\nStart the SSL shutdown handshake":                                                   "ssl.SSLObject.unwrap\ndef unwrap(self)\nStart the SSL shutdown handshake",
		"# x.y\n\nconst\n\n```go\nconst Y = 1\n```\n":             "x.y\nconst Y = 1",
		"Some prose without a heading.":                           "",
		"# Example: foo\n\nno code here":                          "",
		"# Example_minimal\n\n```go\nvar buf bytes.Buffer\n```\n": "",
	} {
		if got := compactAPIText(body); got != want {
			t.Errorf("compactAPIText(%q) = %q, want %q", body, got, want)
		}
	}
}
