package pkgdocs

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/gnosearch/gno/retrieval"
)

// A search hit is shown whole: an API item's doc and first example (its
// signature is the result's symbol.signature), a prose hit's passage;
// never a window cut mid-sentence around the matched words. A longer one
// is cut at the last sentence or paragraph end that fits, and marked; the
// whole section is one gno_get_package_doc call away (section = the
// hit's URI or heading).

// Bounds of a hit's text, in bytes.
const (
	maxAPIHitBytes   = 1600
	maxProseHitBytes = 1200
)

// wholeHits replaces each result's snippet with its whole unit text.
func (x *Index) wholeHits(ctx context.Context, results []retrieval.Result) error {
	for i := range results {
		r := &results[i]
		req := retrieval.GetRequest{Ref: r.URI}
		if r.Symbol == nil && r.Lines.End >= r.Lines.Start && r.Lines.Start > 0 {
			req.FromLine, req.LineCount = r.Lines.Start, r.Lines.End-r.Lines.Start+1
		}
		d, err := x.pk.Get(ctx, req)
		if err != nil {
			return err
		}
		if r.Symbol != nil {
			doc, examples := apiParts(d.Content)
			text := doc
			if len(examples) > 0 {
				text = strings.TrimSpace(text + "\n\n" + examples[0])
			}
			r.Snippet = cutSentence(text, maxAPIHitBytes)
			continue
		}
		r.Snippet = cutSentence(strings.TrimSpace(d.Content), maxProseHitBytes)
	}
	return nil
}

// cutSentence shortens s to at most n bytes at the last paragraph end,
// else sentence end, else line end, else word end that fits (never
// inside a code fence's line or a rune), marking the cut with " …".
func cutSentence(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	best := -1
	for _, sep := range []string{"\n\n", ". ", ".\n", "\n", " "} {
		if i := strings.LastIndex(cut, sep); i > n/3 {
			best = i
			if sep == ". " || sep == ".\n" {
				best++ // keep the full stop
			}
			break
		}
	}
	if best > 0 {
		cut = cut[:best]
	}
	cut = strings.TrimRight(cut, " \n")
	// An open code fence is closed, so the cut reads as Markdown.
	if strings.Count(cut, "```")%2 == 1 {
		cut += "\n```"
	}
	return cut + " …"
}
