package pkgdocs

import (
	"context"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/store/wordtok"
)

// A how-to question ("give up after a fixed number of retries") is
// written in plain words. BM25 and the vectors both reward an API item
// whose NAME shares those words (backoff's Retry, RetryWithData, cobra's
// HasInheritedFlags…) about as much as one whose DOC says what the
// question asks; fusion weights do not separate the two (bench/RESULTS.md,
// "Field-aware re-scoring"). rescoreFields adds a third opinion over the
// first rescoreDepth fused results: their rank by BM25 over the doc field
// alone (an API item's doc comment, without its name and signature; a
// prose passage's heading and body), with the question's words weighted
// by their rarity among those candidates (the word every candidate
// shares, "flag" in cobra, says nothing), fused by rank with the fused
// order; a data member (a field, not a function) is weighed down; and
// look-alike siblings (InheritedFlags, HasInheritedFlags…) take at most
// two of the first three places. A question that names a symbol (a code
// token: `PersistentFlags`, `errgroup.SetLimit`) is left alone: there a
// name match is the evidence, and exact symbol lookup (symbols.go) puts
// the item first.

// rescoreDepth is how many of the fused results are re-scored; the
// engine is asked for at least that many.
const rescoreDepth = 30

// docRankWeight and rescoreK fuse the doc-field rank with the fused one
// (1/(k+fused rank) + docRankWeight/(k+doc rank)), measured on the tuning
// half of the ranking set (bench/RESULTS.md, "Field-aware re-scoring"):
// weights 0.3/0.5/0.7/1.0 and k 5/10/20 within ±0.02 of one another;
// 0.5 and 10 had the best MRR@10 at both scopes.
const (
	docRankWeight = 0.5
	rescoreK      = 10.0
)

// Of a sibling group (siblings), at most siblingsPer items stay in the
// first siblingsTop results: cobra's InheritedFlags, HasInheritedFlags,
// NonInheritedFlags and HasAvailableInheritedFlags took the first four
// places for "a flag every subcommand inherits", the "Persistent Flags"
// section fifth. One per group (the best-ranked) measured the same
// overall and lost a Rust question whose answer was a second sibling.
const (
	siblingsTop = 3
	siblingsPer = 2
)

// dataWeight weighs a data member (dataItem) in a plain-words question:
// such a question asks how to do something, which a function, method,
// class or passage answers, not a field (zod's internal ZodLazy.schema,
// ZodEffectsDef.schema, ZodDefaultDef.defaultValue on "schema" and
// "default"). 0.7 and 0.85 measured the same.
const dataWeight = 0.85

// BM25's constants for the doc field (the usual ones).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// fieldText is a candidate's text by field.
type fieldText struct {
	// name is an API item's name and signature, "" for prose.
	name string
	// doc is an API item's doc, a prose passage's heading and body.
	doc string
}

// rescore re-scores the first rescoreDepth results (rescoreFields) and
// keeps limit of them.
func (x *Index) rescore(ctx context.Context, q string, rs []retrieval.Result, limit int) ([]retrieval.Result, error) {
	head := rs[:min(len(rs), rescoreDepth)]
	fields, err := x.unitFields(ctx, head)
	if err != nil {
		return nil, err
	}
	rs = append(rescoreFields(q, head, fields), rs[len(head):]...)
	if limit > 0 && len(rs) > limit {
		rs = rs[:limit]
	}
	return rs, nil
}

// unitFields reads the text of each result by field.
func (x *Index) unitFields(ctx context.Context, rs []retrieval.Result) ([]fieldText, error) {
	out := make([]fieldText, len(rs))
	for i := range rs {
		r := &rs[i]
		req := retrieval.GetRequest{Ref: r.URI}
		if r.Symbol == nil && r.Lines.End >= r.Lines.Start && r.Lines.Start > 0 {
			req.FromLine, req.LineCount = r.Lines.Start, r.Lines.End-r.Lines.Start+1
		}
		d, err := x.pk.Get(ctx, req)
		if err != nil {
			return nil, err
		}
		if r.Symbol != nil {
			doc, _ := apiParts(d.Content)
			out[i] = fieldText{name: r.Symbol.Name + "\n" + r.Symbol.Signature, doc: doc}
			continue
		}
		out[i] = fieldText{doc: r.Title + "\n" + r.Headings + "\n" + d.Content}
	}
	return out, nil
}

// plainQuestion reports whether q is a question in plain words: no code
// token, and at least two words that are not stop words.
func plainQuestion(q string) bool {
	return len(codeTokens(q)) == 0 && len(questionTerms(q)) >= 2
}

// rescoreFields re-orders rs (best first) by the fusion of its order
// with the candidates' rank by doc-field BM25, as the comment above
// says; fields[i] is rs[i]'s text. Scores stay on the fused scale: the
// first keeps the best fused score, the others theirs in proportion to
// their fused key, so a minimum score means what it did.
func rescoreFields(q string, rs []retrieval.Result, fields []fieldText) []retrieval.Result {
	terms := questionTerms(q)
	if len(rs) < 2 || len(terms) < 2 || len(fields) != len(rs) || rs[0].Score <= 0 {
		return rs
	}
	tfs := make([]map[string]int, len(rs))
	lens := make([]float64, len(rs))
	df := map[string]int{}
	avg := 0.0
	for i, f := range fields {
		toks := wordtok.Words.Tokens(f.doc)
		lens[i] = float64(len(toks))
		avg += lens[i]
		tfs[i] = map[string]int{}
		for _, t := range toks {
			tfs[i][t]++
		}
		names := wordSet(nameWords(f.name))
		for _, t := range terms {
			if tfs[i][t] > 0 || names[t] {
				df[t]++
			}
		}
	}
	avg = max(avg/float64(len(rs)), 1)
	n := float64(len(rs))
	bm := make([]float64, len(rs))
	for i := range rs {
		for _, t := range terms {
			if tf := float64(tfs[i][t]); tf > 0 {
				idf := math.Log(1 + n/(float64(df[t])+0.5))
				bm[i] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*lens[i]/avg))
			}
		}
	}
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return bm[order[a]] > bm[order[b]] })
	keys := make([]float64, len(rs))
	for rank, i := range order {
		key := 1 / (rescoreK + float64(i+1))
		if bm[i] > 0 { // no question word in its doc: no second opinion
			key += docRankWeight / (rescoreK + float64(rank+1))
		}
		if dataItem(rs[i]) {
			key *= dataWeight
		}
		keys[i] = key
	}
	top := rs[0].Score
	best := 0.0
	for _, k := range keys {
		best = max(best, k)
	}
	for i := range rs {
		rs[i].Score = top * keys[i] / best
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Score > rs[j].Score })
	return diversifySiblings(rs, siblingsTop, siblingsPer)
}

// diversifySiblings keeps at most per items of a sibling group
// (siblings) in the first k results: a later sibling of per items already
// there moves just below the k-th, in order.
func diversifySiblings(rs []retrieval.Result, k, per int) []retrieval.Result {
	var head, deferred, tail []retrieval.Result
	for _, r := range rs {
		if len(head) >= k {
			tail = append(tail, r)
			continue
		}
		n := 0
		for _, h := range head {
			if siblings(h, r) {
				n++
			}
		}
		if n >= per {
			deferred = append(deferred, r)
		} else {
			head = append(head, r)
		}
	}
	if len(deferred) == 0 {
		return rs
	}
	out := make([]retrieval.Result, 0, len(rs))
	out = append(append(append(out, head...), deferred...), tail...)
	return out
}

// siblings reports whether a and b are API items of one package version
// whose names' last parts are look-alikes: the same words, a run of at
// least two words in common (InheritedFlags in HasInheritedFlags and
// NonInheritedFlags), or one word that begins the other's (combinations,
// combinations_with_replacement). A name ending in
// another's one word is not a sibling (PersistentFlags is not a kind of
// Flags' look-alike).
func siblings(a, b retrieval.Result) bool {
	if a.Symbol == nil || b.Symbol == nil || a.Package == nil || b.Package == nil || *a.Package != *b.Package {
		return false
	}
	wa, wb := nameWords(leafName(a.Symbol.Name)), nameWords(leafName(b.Symbol.Name))
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	if len(wa) == 1 {
		return len(wb) == 1 && wa[0] == wb[0] || len(wb) > 1 && wa[0] == wb[0] && len(wa[0]) >= 4
	}
	// A common run of at least two words.
	for i := 0; i+1 < len(wa); i++ {
		for j := 0; j+1 < len(wb); j++ {
			if wa[i] == wb[j] && wa[i+1] == wb[j+1] {
				return true
			}
		}
	}
	return false
}

// leafName is the last part of a qualified name ("Command.InheritedFlags"
// → "InheritedFlags", "ser::Serializer::serialize_seq" →
// "serialize_seq", "os/exec.Command" → "Command").
func leafName(s string) string {
	if i := strings.LastIndexAny(s, ".:/#"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// nameWords are the words of an identifier-like text, split at
// camelCase humps, underscores and punctuation, each folded and stemmed
// as the word index does ("HasInheritedFlags" → ha, inherit, flag;
// "HTTPServer" → http, server).
func nameWords(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = wordtok.Words.Append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, c := range rs {
		switch {
		case unicode.IsUpper(c):
			// A hump: lower or digit before, or an acronym's last capital
			// before a lower-case letter ("HTTPServer": HTTP | Server).
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
				unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				flush()
			}
			cur = append(cur, c)
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			cur = append(cur, c)
		default:
			flush()
		}
	}
	flush()
	return out
}

// questionTerms are the distinct words of a question, folded and stemmed
// as the word index does, without stop words.
func questionTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range nameWords(q) {
		if stopWords[t] || seen[t] || len(t) < 2 {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

func wordSet(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// stopWords are the question words that say nothing about the answer,
// stemmed as the word index writes them.
var stopWords = wordSet(wordtok.Words.Tokens(`a an the and or but of to in on at by for from with without into onto
	over under as is are was were be been being do does did done how what which who whom whose when where why
	i me my we our you your it its this that these those there here can could should would will shall may might
	must have has had get gets got make makes made use using used want need let some any each every all one
	not no so if then than just like way thing something instead also only very`))

// dataItem reports whether r is a data member: a property or field that
// is not a function ("schema: T", "get schema(): T"), not a method typed
// as a property ("ansi256: (index: number) => this").
func dataItem(r retrieval.Result) bool {
	if r.Symbol == nil || r.Symbol.Kind != "property" {
		return false
	}
	sig := strings.TrimSpace(r.Symbol.Signature)
	if strings.HasPrefix(sig, "get ") || strings.HasPrefix(sig, "readonly ") {
		return true
	}
	return !strings.Contains(sig, "=>") && !strings.Contains(sig, "(")
}
