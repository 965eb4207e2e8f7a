package pkgdocs

import (
	"sort"
	"strings"
	"unicode"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/store/wordtok"
)

// A how-to question ("how do I make a flag every subcommand inherits")
// is written in plain words. BM25 and the vectors both reward an API item
// whose NAME shares those words as much as one whose doc answers it, and
// agree on the look-alikes: cobra's InheritedFlags, HasInheritedFlags,
// NonInheritedFlags and HasAvailableInheritedFlags took the first four
// places, the user guide's "Persistent Flags" section the fifth. Fusion
// weights do not separate them (bench/RESULTS.md, "Field-aware
// re-scoring"). Search re-orders the results of such a question
// (plainQuestion):
//
//   - a data member (a field or property that is not a function: zod's
//     internal ZodLazy.schema, ZodEffectsDef.schema on "schema") is
//     weighted dataWeight (weighData, before the other re-orderings): a
//     how-to question asks what to call, and a function, method, class
//     or passage answers it;
//   - look-alike siblings (names sharing a run of words: InheritedFlags,
//     HasInheritedFlags…) take at most siblingsPer of the first
//     siblingsTop places; the others follow the next answers
//     (diversifySiblings, last).
//
// A question that names a symbol (a code token: `PersistentFlags`,
// `errgroup.SetLimit`) is left alone: there a name match is the
// evidence, and exact symbol lookup (symbols.go) puts the item first.
//
// Re-scoring by the question's words in each candidate's doc field
// (BM25 over the doc alone, fused by rank with the fused order, over the
// first 30) was measured too and not kept: +0.02 on the tuning half,
// −0.03 hit@3 project-wide on the checking half (npm −0.07 to −0.17 in
// every scope; npm's .d.ts items mostly have no doc comment, so a doc
// field can only lift their documented rivals), at 30 unit reads a
// question. The misses it was meant for are semantic ("give up after a
// fixed number of retries" → WithMaxRetries, whose doc says "called too
// many times"): no lexical field tells them apart.

// Of a sibling group (siblings), at most siblingsPer items stay in the
// first siblingsTop results. One per group (the best-ranked) measured
// the same overall and lost a Rust question whose answer was a second
// sibling.
const (
	siblingsTop = 3
	siblingsPer = 2
)

// dataWeight weighs a data member (dataItem) in a plain-words question;
// 0.7 and 0.85 measured the same on the tuning half.
const dataWeight = 0.85

// plainQuestion reports whether q is a question in plain words: no code
// token, and at least two words that are not stop words.
func plainQuestion(q string) bool {
	return len(codeTokens(q)) == 0 && len(questionTerms(q)) >= 2
}

// weighData weighs rs's data members (dataItem) and re-sorts by score
// (stable).
func weighData(rs []retrieval.Result) []retrieval.Result {
	changed := false
	for i := range rs {
		if dataItem(rs[i]) {
			rs[i].Score *= dataWeight
			changed = true
		}
	}
	if changed {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Score > rs[j].Score })
	}
	return rs
}

// dataItem reports whether r is a data member: a property (kind
// "property") that is not a function ("schema: T", "get schema(): T"),
// not a method typed as a property ("ansi256: (index: number) =>
// this"), and not a step of a fluent API, typed as its own owner
// ("readonly bold: this", "get not(): ZodString" of ZodString). Go and
// Rust struct fields are no units of their own (their struct's
// signature lists them): there is no "field" kind to weigh (accepting
// one measured the same).
func dataItem(r retrieval.Result) bool {
	if r.Symbol == nil || r.Symbol.Kind != "property" {
		return false
	}
	sig := strings.TrimSpace(r.Symbol.Signature)
	if i := strings.LastIndexByte(sig, ':'); i >= 0 {
		typ := strings.TrimSpace(strings.TrimRight(sig[i+1:], "; "))
		owner := strings.TrimSuffix(r.Symbol.Name, "."+leaf(r.Symbol.Name))
		if typ == "this" || typ == leaf(owner) {
			return false
		}
	}
	if strings.HasPrefix(sig, "get ") || strings.HasPrefix(sig, "readonly ") {
		return true
	}
	return !strings.Contains(sig, "=>") && !strings.Contains(sig, "(")
}

// diversifySiblings keeps at most per items of a sibling group
// (siblings) in the first k results: a later sibling of per items already
// there moves just below the k-th, in order. The scores of the results
// moved are left as they are (a result's score is its own evidence; the
// order is the answer's).
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
	return append(append(append(out, head...), deferred...), tail...)
}

// siblings reports whether a and b are API items of one package version
// whose names' last parts are look-alikes: the same words, a run of at
// least two words in common (InheritedFlags in HasInheritedFlags and
// NonInheritedFlags), or one word that begins the other's (combinations,
// combinations_with_replacement). A name ending in another's one word is
// not its sibling (PersistentFlags and Flags).
func siblings(a, b retrieval.Result) bool {
	if a.Symbol == nil || b.Symbol == nil || a.Package == nil || b.Package == nil || *a.Package != *b.Package {
		return false
	}
	wa, wb := nameWords(leaf(a.Symbol.Name)), nameWords(leaf(b.Symbol.Name))
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

// nameWords are the words of an identifier-like text, split at
// camelCase humps, underscores and punctuation, each folded and stemmed
// as the word index does ("HasInheritedFlags" → ha, inherit, flag;
// "HTTPServer" → http, server).
func nameWords(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, w := range camelWords(part) {
			out = wordtok.Words.Append(out, w)
		}
	}
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
