package retrieval

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/segment"
)

// snippetRunes is the target length of a snippet.
const snippetRunes = 220

// word is a span of a snippet's body; hit says it matched the query.
type word struct {
	start, end int
	hit        bool
}

// mergeWords adds gram hits to the scanned words: the whole-run words they
// fall in are dropped (they never match), the rest is ordered by position
// and overlapping hits ("花火" and "火大") become one span.
func mergeWords(words, grams []word) []word {
	out := make([]word, 0, len(words)+len(grams))
	for _, w := range words {
		if w.hit {
			out = append(out, w)
		}
	}
	out = append(out, grams...)
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	merged := out[:0]
	for _, w := range out {
		if n := len(merged); n > 0 && w.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, w.end)
			continue
		}
		merged = append(merged, w)
	}
	return merged
}

// makeSnippet picks the window of body with the most query-word matches
// and marks matched words with \x01 and \x02. Matching is by lowercase word
// with a shared stem (prefix of at least five letters, or the whole word),
// close to what the porter tokenizer matched, without a second FTS query.
func makeSnippet(body string, q query.Keywords) string {
	body = strings.TrimSpace(body)
	terms := append([]string(nil), q.Terms...)
	for _, p := range q.Phrases {
		terms = append(terms, strings.Fields(p)...)
	}
	var words []word
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRuneInString(body[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += size
			continue
		}
		j := i
		for j < len(body) {
			r2, s2 := utf8.DecodeRuneInString(body[j:])
			if !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
				break
			}
			j += s2
		}
		words = append(words, word{start: i, end: j, hit: len(terms) > 0 && matches(strings.ToLower(body[i:j]), terms)})
		i = j
	}
	// Unspaced script matched by its grams (package segment): mark each
	// gram's occurrences, so the window centres on where the query's words
	// are and not on one whole-run match that rarely exists.
	var grams []word
	for _, run := range q.CJK {
		for _, g := range segment.QueryGrams(run) {
			for k, n := 0, 0; n < 16; n++ {
				i := strings.Index(body[k:], g)
				if i < 0 {
					break
				}
				grams = append(grams, word{start: k + i, end: k + i + len(g), hit: true})
				k += i + len(g)
			}
		}
	}
	if len(grams) > 0 {
		words = mergeWords(words, grams)
	}
	// Slide a window of about snippetRunes over the words.
	bestStart, bestHits := 0, -1
	for i := range words {
		if !words[i].hit {
			continue
		}
		hits := 0
		for j := i; j < len(words) && words[j].start-words[i].start < snippetRunes*3/2; j++ {
			if words[j].hit {
				hits++
			}
		}
		if hits > bestHits {
			bestHits, bestStart = hits, words[i].start
		}
	}
	// Start a little before the first hit, on a word boundary.
	from := 0
	if bestHits > 0 {
		from = bestStart
		back := 0
		for from > 0 && back < 40 {
			_, size := utf8.DecodeLastRuneInString(body[:from])
			from -= size
			back++
		}
		for from > 0 && !unicode.IsSpace(rune(body[from-1])) && from < bestStart {
			from++
		}
	}
	to := from
	for n := 0; to < len(body) && n < snippetRunes; n++ {
		_, size := utf8.DecodeRuneInString(body[to:])
		to += size
	}
	if to < len(body) {
		if sp := strings.LastIndexAny(body[from:to], " \n\t"); sp > (to-from)/2 {
			to = from + sp
		}
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	pos := from
	for _, w := range words {
		if !w.hit || w.start < from || w.end > to {
			continue
		}
		if w.start < pos {
			continue
		}
		b.WriteString(body[pos:w.start])
		b.WriteString("\x01")
		b.WriteString(body[w.start:w.end])
		b.WriteString("\x02")
		pos = w.end
	}
	b.WriteString(body[pos:to])
	if to < len(body) {
		b.WriteString("…")
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func matches(w string, terms []string) bool {
	for _, t := range terms {
		if w == t {
			return true
		}
		n := commonPrefix(w, t)
		if n >= 5 || (n >= 4 && n == min(len(w), len(t))) {
			return true
		}
	}
	return false
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
