package answer

import (
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval"
)

// FuzzCheck: whatever the model writes, every citation kept lies inside a
// passage, and every citation-shaped text left in the answer is one of
// them (including ones formed by dropping a citation between two halves).
func FuzzCheck(f *testing.F) {
	f.Add("A [#abc123:3-8]. B [#def456:2; #abc123:9-12] [2] [0] [#zz:1-2]")
	f.Add("[#abc123:8-3] [#ABC123] [#abc123:5–6] [1,2]")
	f.Add("no citations at all.")
	f.Add("[#0:0-[0]0]0")
	f.Add("[#0:0-[#0:0-[9]0]0]0 [[3]1]")
	ps := []Passage{{N: 1, DocID: "#abc123", Lines: retrieval.LineRange{Start: 3, End: 8}},
		{N: 2, DocID: "#def456", Lines: retrieval.LineRange{Start: 1, End: 4}}}
	f.Fuzz(func(t *testing.T, raw string) {
		out, cites, _ := Check(raw, ps)
		for _, c := range cites {
			p := ps[c.Passage-1]
			if c.DocID != p.DocID || c.Lines.Start < p.Lines.Start || c.Lines.End > p.Lines.End || c.Lines.Start > c.Lines.End {
				t.Fatalf("citation %+v outside passage %+v (input %q)", c, p, raw)
			}
		}
		for _, m := range citation().FindAllStringSubmatch(out, -1) {
			ok := false
			for _, c := range cites {
				if strings.EqualFold(c.DocID, m[1]) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("unchecked citation %q in %q", m[0], out)
			}
		}
	})
}
