package query

import (
	"strings"
	"testing"
)

// FuzzParseDoc checks that any query text parses, and that every
// typed line it reports came from the input.
func FuzzParseDoc(f *testing.F) {
	for _, s := range []string{"plain query", "lex: a b\nvec: c\nhyde: d\nintent: e", "LEX:x\n\nVec :y", "lex:\nvec:", ":\n::\nlex::x", "intent: why\nplain words"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := ParseDoc(s)
		for _, v := range append(append([]string{d.Hyde, d.Intent}, d.Lex...), d.Vec...) {
			if !strings.Contains(s, v) {
				t.Fatalf("variant %q not in the input", v)
			}
		}
		if len(d.Text) > len(s) {
			t.Fatalf("text %d bytes from %d", len(d.Text), len(s))
		}
	})
}
