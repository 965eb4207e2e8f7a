// Package expand is query expansion shared by every chat backend: the
// prompt a model is asked with, the defensive parser of its reply, the
// limits on what a reply may add, and a small cache of expansions. The
// backends (ollama, openai) only carry the prompt to their server and
// the reply back; they must not parse replies themselves, and this
// package must not talk to any server.
package expand

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/gnosearch/gno/inference"
)

// SystemPrompt asks a general chat model for keyword rewrites and one
// hypothetical answer passage (HyDE). Every backend sends it, so all
// expand alike.
const SystemPrompt = `You expand search queries for a document search engine. ` +
	`Reply with JSON only, no prose, exactly in this shape: {"keywords": ["..."], "passage": "..."}. ` +
	`"keywords": 2 to 4 short keyword queries of 2 to 6 words each, using different words than the query (synonyms, related terms, likely technical names), that would find documents answering it; never repeat the query itself. ` +
	`"passage": one short paragraph of 2 to 4 sentences that plausibly answers the query, written like an excerpt from a relevant document.`

// UserPrompt is the per-query message sent with SystemPrompt.
func UserPrompt(query string) string { return "Query: " + query }

// Schema is the JSON schema passed as Ollama's structured-output
// format, so models that support it cannot stray from the shape.
var Schema = json.RawMessage(`{"type":"object","properties":{"keywords":{"type":"array","items":{"type":"string"}},"passage":{"type":"string"}},"required":["keywords","passage"]}`)

// Limits bound what a model's reply may contribute, because a small local
// model can ramble, repeat itself or echo the prompt.
type Limits struct {
	// MaxKeywords caps how many keyword rewrites are kept (extra BM25 lists).
	MaxKeywords int
	// MaxKeywordRunes drops longer "keywords": they are sentences.
	MaxKeywordRunes int
	// MaxPassageRunes truncates the passage at a word boundary.
	MaxPassageRunes int
	// MaxResponseBytes rejects a raw reply longer than this outright.
	MaxResponseBytes int
}

// DefaultLimits suit the fused query: four extra BM25 lists and a passage
// about as long as one indexed chunk.
var DefaultLimits = Limits{MaxKeywords: 4, MaxKeywordRunes: 80, MaxPassageRunes: 1200, MaxResponseBytes: 16 << 10}

// WithDefaults fills zero fields from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	if l.MaxKeywords <= 0 {
		l.MaxKeywords = DefaultLimits.MaxKeywords
	}
	if l.MaxKeywordRunes <= 0 {
		l.MaxKeywordRunes = DefaultLimits.MaxKeywordRunes
	}
	if l.MaxPassageRunes <= 0 {
		l.MaxPassageRunes = DefaultLimits.MaxPassageRunes
	}
	if l.MaxResponseBytes <= 0 {
		l.MaxResponseBytes = DefaultLimits.MaxResponseBytes
	}
	return l
}

// Parse failure reasons, short enough for a query's meta.
var (
	errEmptyReply  = errors.New("empty response")
	errTooLong     = errors.New("response too long")
	errNotJSON     = errors.New("response is not JSON")
	errOnlyEchoes  = errors.New("response only echoes the query or prompt")
	errNoExpansion = errors.New("response has no keywords or passage")
)

// The expressions below are compiled on first use: this package is linked
// into every gno command, and only query expansion needs them.
var (
	thinkBlock = lazyRegexp(`(?is)<(think|thinking|reasoning)>.*?</(think|thinking|reasoning)>`)
	thinkOpen  = lazyRegexp(`(?i)<(think|thinking|reasoning)>`)
	thinkClose = lazyRegexp(`(?i)</(think|thinking|reasoning)>`)
	listMarker = lazyRegexp(`^(?:[-*•]+|\d+[.)])\s+`)
	lineLabel  = lazyRegexp(`(?i)^\s*(?:[-*•]\s*)?(lex|vec|keywords?|queries|hyde|passage|answer)\s*:\s*(.*)$`)
	queryLabel = lazyRegexp(`(?i)^(?:query|keywords?)\s*:\s*`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Parse turns a model's raw reply into an Expansion, defensively.
// It strips thinking blocks and code fences, accepts the JSON object
// anywhere in the text (also with the aliases queries/rewrites/lex and
// hyde/answer), falls back to qmd-style "lex:/vec:/hyde:" lines, drops
// rewrites that echo the query or the prompt, de-duplicates, caps counts
// and lengths, and fails when nothing usable is left. The error's text is
// a short reason for a query's meta.
func Parse(raw, query string, lim Limits) (*inference.Expansion, error) {
	lim = lim.WithDefaults()
	if len(raw) > lim.MaxResponseBytes {
		return nil, errTooLong
	}
	text := stripThinking(raw)
	if strings.TrimSpace(text) == "" {
		return nil, errEmptyReply
	}

	kws, passage, ok := fromJSON(text)
	if !ok {
		kws, passage, ok = fromLines(text)
	}
	if !ok {
		return nil, errNotJSON
	}

	nq := norm(query)
	echo := func(s string) bool { return isEcho(norm(s), nq) }
	exp := &inference.Expansion{Keywords: []string{}}
	seen := map[string]bool{nq: true}
	echoes := 0
	for _, k := range kws {
		k = cleanKeyword(k)
		if k == "" || utf8.RuneCountInString(k) > lim.MaxKeywordRunes {
			continue
		}
		nk := norm(k)
		if nk == "" || echo(k) {
			echoes++
			continue
		}
		if seen[nk] {
			continue
		}
		seen[nk] = true
		exp.Keywords = append(exp.Keywords, k)
		if len(exp.Keywords) == lim.MaxKeywords {
			break
		}
	}
	passage = strings.Join(strings.Fields(passage), " ")
	if passage != "" {
		if echo(passage) {
			echoes++
		} else {
			exp.Passage = truncateWords(passage, lim.MaxPassageRunes)
		}
	}
	if len(exp.Keywords) == 0 && exp.Passage == "" {
		if echoes > 0 {
			return nil, errOnlyEchoes
		}
		return nil, errNoExpansion
	}
	return exp, nil
}

// stripThinking removes reasoning a model wrote before its answer: closed
// blocks, a dangling close tag whose opener was in the template, and an
// unclosed block at the end (the reply ran out while still thinking).
func stripThinking(s string) string {
	s = thinkBlock().ReplaceAllString(s, "")
	if loc := thinkClose().FindAllStringIndex(s, -1); len(loc) > 0 {
		s = s[loc[len(loc)-1][1]:]
	}
	if loc := thinkOpen().FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	return s
}

// fromJSON decodes the first JSON object (or array of strings) in text,
// which also skips code fences and prose around it.
func fromJSON(text string) (kws []string, passage string, ok bool) {
	for start, tries := 0, 0; tries < 8; tries++ {
		i := strings.IndexAny(text[start:], "{[")
		if i < 0 {
			return nil, "", false
		}
		start += i
		dec := json.NewDecoder(strings.NewReader(text[start:]))
		var v any
		if err := dec.Decode(&v); err != nil {
			start++
			continue
		}
		if kws, passage, ok = fromValue(v); ok {
			return kws, passage, true
		}
		// A well-formed value of the wrong shape: skip all of it, not
		// just its first byte, so nested arrays are not mistaken for
		// keyword lists.
		start += int(dec.InputOffset())
	}
	return nil, "", false
}

// Key aliases seen from various models, tried in this order so the result
// does not depend on map iteration.
var (
	keywordKeys = []string{"keywords", "keyword", "queries", "rewrites", "lex", "vec", "expansions", "keyword_queries"}
	passageKeys = []string{"passage", "hyde", "answer", "hypothetical_answer", "document"}
)

func fromValue(v any) (kws []string, passage string, ok bool) {
	switch t := v.(type) {
	case []any:
		kws = stringsOf(t)
		return kws, "", len(kws) > 0
	case map[string]any:
		lower := make(map[string]any, len(t))
		for k, val := range t {
			lower[strings.ToLower(k)] = val
		}
		known := false
		for _, k := range keywordKeys {
			_, has := lower[k]
			known = known || has
			switch val := lower[k].(type) {
			case string:
				// One string where a list was asked for: split it.
				kws = append(kws, strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == ';' || r == '\n' })...)
			default:
				kws = append(kws, stringsOf(val)...)
			}
		}
		for _, k := range passageKeys {
			_, has := lower[k]
			known = known || has
			if p := strings.Join(stringsOf(lower[k]), " "); passage == "" && strings.TrimSpace(p) != "" {
				passage = p
			}
		}
		// The right shape with nothing in it is "no expansion", not "not JSON".
		return kws, passage, known
	}
	return nil, "", false
}

// stringsOf accepts a string or a list of strings; anything else is
// ignored rather than trusted.
func stringsOf(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// fromLines reads the "lex: …", "vec: …", "hyde: …" line format that qmd's
// expansion models produce, so such a model works without JSON.
func fromLines(text string) (kws []string, passage string, ok bool) {
	for _, line := range strings.Split(text, "\n") {
		m := lineLabel().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		val := strings.TrimSpace(m[2])
		switch strings.ToLower(m[1]) {
		case "hyde", "passage", "answer":
			if passage == "" {
				passage = val
			}
		case "lex", "vec":
			kws = append(kws, val)
		default:
			kws = append(kws, strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == ';' })...)
		}
	}
	return kws, passage, len(kws) > 0 || passage != ""
}

func cleanKeyword(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = listMarker().ReplaceAllString(s, "")
	s = queryLabel().ReplaceAllString(s, "")
	s = strings.Trim(s, "\"'`“”‘’ ")
	return s
}

// norm lower-cases and keeps letters and digits, for echo and duplicate
// comparisons that ignore punctuation and spacing.
func norm(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		} else {
			space = true
		}
	}
	return b.String()
}

var normPrompt = sync.OnceValue(func() string { return norm(SystemPrompt) })

// promptSentences are the instruction sentences long enough that finding
// one inside a reply means the model copied its instructions.
var promptSentences = sync.OnceValue(func() []string {
	var out []string
	for _, s := range strings.Split(SystemPrompt, ". ") {
		if n := norm(s); len(n) >= 30 {
			out = append(out, n)
		}
	}
	return out
})

// isEcho reports a rewrite that is the query again or a piece of the
// prompt. Short phrases that merely occur in the prompt ("search engine")
// are legitimate keywords; four or more words copied from it are not.
func isEcho(n, nq string) bool {
	if n == nq || n == "query "+nq {
		return true
	}
	if strings.Count(n, " ") >= 3 && strings.Contains(normPrompt(), n) {
		return true
	}
	for _, s := range promptSentences() {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// truncateWords cuts s to at most n runes, at a word boundary when one is
// reasonably close, so the passage stays readable for the embedder.
func truncateWords(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:")
}
