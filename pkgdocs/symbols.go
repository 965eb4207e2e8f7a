package pkgdocs

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gnosearch/gno/retrieval"
)

// Exact symbol lookup: a question that names an API item finds it
// first, before the fuzzy search, however the name is written
// ("PersistentFlags", "errgroup.SetLimit", "cobra.Command.PersistentFlags()",
// "z.string().email()", "std::collections::HashMap", "Command#run",
// "raise_for_status"): case aside, and with ".", "::", "/", "#" and "()"
// alike. Only a word that really looks like a name counts (a dot, a
// separator, an underscore or a capital inside it; or a capitalised word
// inside a sentence, which must then match an item's case), so a how-to
// question that merely contains "parse" or "retry" is not taken over by
// an item of that name.

// symbolRef is one name a query may refer to: its parts, the item's last
// part last.
type symbolRef struct {
	parts []string
	// weak: a capitalised word inside a sentence ("implement Deserialize
	// by hand"); it counts only when an item's last part has its case.
	weak bool
}

// maxSymbolRefs bounds the names read from one query.
const maxSymbolRefs = 4

// splitSymbol cuts a written name into its parts: "." "::" "/" "#" and
// "->" separate; calls and generics ("()", "(x)", "<T>") are dropped.
// It returns nil when a part is not an identifier (a number, a URL).
func splitSymbol(s string) []string {
	if strings.Contains(s, "://") {
		return nil
	}
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(' || r == '<' || r == '[':
			depth++
		case r == ')' || r == '>' || r == ']':
			if depth > 0 {
				depth--
			}
			if r == '>' && depth == 0 {
				// "->" separates; a stray ">" too.
				b.WriteByte('.')
			}
		case depth > 0:
		case r == '.' || r == ':' || r == '/' || r == '#' || r == '-':
			b.WriteByte('.')
		default:
			b.WriteRune(r)
		}
	}
	var parts []string
	for _, p := range strings.Split(b.String(), ".") {
		if p == "" {
			continue
		}
		if !isIdent(p) {
			return nil
		}
		parts = append(parts, p)
	}
	return parts
}

// isIdent reports whether s is an identifier in the ecosystems' sense:
// a letter, "_" or "$" first, then letters, digits, "_" or "$".
func isIdent(s string) bool {
	for i, r := range s {
		ok := unicode.IsLetter(r) || r == '_' || r == '$' || (i > 0 && unicode.IsDigit(r))
		if !ok {
			return false
		}
	}
	return s != ""
}

// trimToken drops the punctuation a word carries in a sentence.
func trimToken(t string) string {
	t = strings.Trim(t, "`'\",;!?*")
	t = strings.TrimRight(t, ".:")
	return t
}

// looksLikeName reports whether a word of a sentence is written as code:
// a separator between name parts, a call, an underscore or a capital
// after a small letter inside it.
func looksLikeName(t string) bool {
	if strings.Contains(t, "://") || strings.HasPrefix(t, "-") {
		return false
	}
	if strings.ContainsAny(t, ".:/#(") {
		return true
	}
	prevLower := false
	for i, r := range t {
		if r == '_' && i > 0 && i < len(t)-1 {
			return true
		}
		if unicode.IsUpper(r) && prevLower {
			return true
		}
		prevLower = unicode.IsLower(r)
	}
	return false
}

// capitalised reports whether t is a capitalised word (not an acronym).
func capitalised(t string) bool {
	r, n := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(r) && strings.IndexFunc(t[n:], unicode.IsLower) >= 0
}

// symbolRefs reads the names a query refers to. isPackage tells a word
// that names a package in scope: a short query of such a word and plain
// words ("itertools join") asks for the package's item of that name.
func symbolRefs(query string, isPackage func(string) bool) []symbolRef {
	words := strings.Fields(query)
	var out []symbolRef
	add := func(parts []string, weak bool) {
		if len(parts) > 0 && len(out) < maxSymbolRefs {
			out = append(out, symbolRef{parts: parts, weak: weak})
		}
	}
	if len(words) == 1 {
		add(splitSymbol(trimToken(words[0])), false)
		return out
	}
	if len(words) <= 3 {
		for i, w := range words {
			w = trimToken(w)
			if !isIdent(w) || !isPackage(w) {
				continue
			}
			for j, o := range words {
				if j != i {
					if parts := splitSymbol(trimToken(o)); len(parts) > 0 {
						add(append([]string{w}, parts...), false)
					}
				}
			}
			return out
		}
	}
	for i, w := range words {
		w = trimToken(w)
		switch {
		case looksLikeName(w):
			add(splitSymbol(w), false)
		case i > 0 && capitalised(w) && isIdent(w) && !properNouns[w]:
			add([]string{w}, true)
		}
	}
	return out
}

// properNouns are capitalised words of questions that name no item
// ("goroutines in Go" is not errgroup's Group.Go).
var properNouns = map[string]bool{"Go": true, "Golang": true, "Python": true, "Rust": true, "Swift": true, "Node": true,
	"Deno": true, "Bun": true, "Java": true, "Kotlin": true, "Ruby": true, "Linux": true, "Windows": true, "Mac": true,
	"Docker": true, "Kubernetes": true, "Postgres": true, "English": true, "French": true, "German": true, "Unicode": true}

// symbolParts cuts a stored symbol into its parts.
func symbolParts(sym string) []string {
	return strings.FieldsFunc(sym, func(r rune) bool { return r == '.' || r == ':' || r == '/' || r == '#' })
}

// matchSymbol scores how well ref names unit u of a package: the last
// parts are equal (case aside, the store matched them); each qualifier
// the user wrote counts +2 when it is one of the item's parts in order or
// names the package, +1 when it is part of one ("string" of
// "ZodString", "z" of "zod"), -2 when it matches nothing; a name written
// with all of the item's parts gets +1. ok is false for a weak ref whose
// case differs.
func matchSymbol(ref symbolRef, u retrieval.PackageUnit, pkg string) (score int, ok bool) {
	sp := symbolParts(u.Symbol)
	if len(sp) == 0 {
		return 0, false
	}
	leaf := ref.parts[len(ref.parts)-1]
	if !strings.EqualFold(sp[len(sp)-1], leaf) {
		return 0, false
	}
	if ref.weak && sp[len(sp)-1] != leaf {
		return 0, false
	}
	quals, rest := ref.parts[:len(ref.parts)-1], sp[:len(sp)-1]
	pkgUsed := false
	j := 0
	for _, q := range quals {
		ql := strings.ToLower(q)
		if k := slices.IndexFunc(rest[j:], func(s string) bool { return strings.EqualFold(s, q) }); k >= 0 {
			score += 2
			j += k + 1
			continue
		}
		if !pkgUsed && packageWord(pkg, ql) {
			score += 2
			pkgUsed = true
			continue
		}
		if k := slices.IndexFunc(rest[j:], func(s string) bool {
			sl := strings.ToLower(s)
			return len(ql) >= 3 && (strings.HasSuffix(sl, ql) || strings.HasPrefix(sl, ql))
		}); k >= 0 {
			score++
			j += k + 1
			continue
		}
		if !pkgUsed && strings.HasPrefix(strings.ToLower(shortName(pkg)), ql) {
			score++
			pkgUsed = true
			continue
		}
		score -= 2
	}
	if len(quals) > 0 && len(quals) >= len(rest) && score == 2*len(quals) {
		score++
	}
	return score, true
}

// packageWord reports whether w (lowercase) names package pkg: its name,
// short name or a part of its path ("errgroup" is not, "sync" of
// golang.org/x/sync is; "dateutil" of python-dateutil is).
func packageWord(pkg, w string) bool {
	if nameMatches(pkg, w) {
		return true
	}
	for _, p := range strings.FieldsFunc(strings.ToLower(pkg), func(r rune) bool { return r == '/' || r == '-' || r == '@' || r == '.' || r == '_' }) {
		if p == w && len(p) >= 2 {
			return true
		}
	}
	return false
}

// exactHit is one item an exact lookup found.
type exactHit struct {
	docID int64
	score int
	// direct and symLen order hits of one score: a direct dependency
	// first, then the shorter name.
	direct bool
	symLen int
}

// maxExact bounds the items an exact lookup puts first.
const maxExact = 3

// exactSymbols finds the API items of the scope's versions that the
// query names, best first (at most maxExact): the items of the best
// score among names whose qualifiers all matched something.
func (x *Index) exactSymbols(ctx context.Context, s *scoped, query string) ([]int64, error) {
	if len(s.versions) == 0 {
		return nil, nil
	}
	refs := symbolRefs(query, func(w string) bool {
		for _, v := range s.versions {
			if nameMatches(v.Name, w) {
				return true
			}
		}
		return false
	})
	if len(refs) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(s.versions))
	byID := map[int64]retrieval.ProjectVersion{}
	for i, v := range s.versions {
		ids[i] = v.ID
		byID[v.ID] = v
	}
	leaves := make([]string, 0, len(refs))
	for _, r := range refs {
		leaves = append(leaves, strings.ToLower(r.parts[len(r.parts)-1]))
	}
	units, err := x.pk.SymbolCandidates(ctx, ids, leaves, 500)
	if err != nil || len(units) == 0 {
		return nil, err
	}
	best := map[int64]exactHit{}
	for _, r := range refs {
		for _, u := range units {
			v := byID[u.VersionID]
			sc, ok := matchSymbol(r, u, v.Name)
			if !ok || sc < 0 {
				continue
			}
			if h, seen := best[u.DocID]; !seen || sc > h.score {
				best[u.DocID] = exactHit{docID: u.DocID, score: sc, direct: v.Direct, symLen: len(u.Symbol)}
			}
		}
	}
	hits := make([]exactHit, 0, len(best))
	for _, h := range best {
		hits = append(hits, h)
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.direct != b.direct {
			return a.direct
		}
		if a.symLen != b.symLen {
			return a.symLen < b.symLen
		}
		return a.docID < b.docID
	})
	var out []int64
	for _, h := range hits {
		if h.score < hits[0].score || len(out) == maxExact {
			break
		}
		out = append(out, h.docID)
	}
	return out, nil
}

// withExact puts the units an exact lookup found before the search's
// results (each once), keeping the limit.
func (x *Index) withExact(ctx context.Context, docIDs []int64, results []retrieval.Result, limit int) ([]retrieval.Result, error) {
	if len(docIDs) == 0 {
		return results, nil
	}
	// Scores run 0-1: a named item is a sure answer.
	scores := make([]float64, len(docIDs))
	for i := range scores {
		scores[i] = 1
	}
	first, err := x.pk.UnitResults(ctx, docIDs, scores)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := make([]retrieval.Result, 0, len(first)+len(results))
	for _, r := range append(first, results...) {
		if seen[r.URI] {
			continue
		}
		seen[r.URI] = true
		out = append(out, r)
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// foldDunders shows a Python special method's hit ("Session.__init__",
// "stop_after_attempt.__call__") as its class: the class is what a
// question about constructing or calling it is after, and its unit
// documents the same parameters. A class already ranked higher keeps
// its place (the method's hit is dropped).
func (x *Index) foldDunders(ctx context.Context, s *scoped, results []retrieval.Result) ([]retrieval.Result, error) {
	byKey := map[string]int64{}
	for _, v := range s.versions {
		byKey[v.Key] = v.ID
	}
	seen := map[string]bool{}
	out := results[:0:0]
	for _, r := range results {
		if r.Symbol != nil && r.Package != nil {
			if cls, ok := dunderClass(r.Symbol.Name); ok {
				if vid, ok := byKey[retrieval.PackageKey(r.Package.Ecosystem, r.Package.Name, r.Package.Version)]; ok {
					us, err := x.pk.Symbol(ctx, vid, cls)
					if err != nil {
						return nil, err
					}
					if len(us) > 0 && us[0].Symbol == cls {
						rs, err := x.pk.UnitResults(ctx, []int64{us[0].DocID}, []float64{r.Score})
						if err != nil {
							return nil, err
						}
						if len(rs) == 1 {
							rs[0].Explain = r.Explain // the method's evidence
							r = rs[0]
						}
					}
				}
			}
		}
		if seen[r.URI] {
			continue
		}
		seen[r.URI] = true
		out = append(out, r)
	}
	return out, nil
}

// dunderClass returns the class of a Python special method's qualified
// name ("a.B.__init__" → "a.B").
func dunderClass(sym string) (string, bool) {
	i := strings.LastIndexByte(sym, '.')
	if i <= 0 {
		return "", false
	}
	leaf := sym[i+1:]
	if len(leaf) > 4 && strings.HasPrefix(leaf, "__") && strings.HasSuffix(leaf, "__") {
		return sym[:i], true
	}
	return "", false
}

// symbolNamed finds the API items of version v that name (as a user
// writes it: any case, any separator, with a call's parentheses) names:
// those of the best match score, best first.
func (x *Index) symbolNamed(ctx context.Context, v retrieval.ProjectVersion, name string) ([]retrieval.PackageUnit, error) {
	parts := splitSymbol(strings.TrimSpace(name))
	if len(parts) == 0 {
		return nil, nil
	}
	return x.symbolsReferred(ctx, v, []symbolRef{{parts: parts}})
}

// symbolsReferred finds the API items of version v that any of refs
// names (the names symbolRefs reads in a query of several words: "how
// do I use PersistentFlags" names PersistentFlags), best match first.
func (x *Index) symbolsReferred(ctx context.Context, v retrieval.ProjectVersion, refs []symbolRef) ([]retrieval.PackageUnit, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	leaves := make([]string, len(refs))
	for i, r := range refs {
		leaves[i] = strings.ToLower(r.parts[len(r.parts)-1])
	}
	units, err := x.pk.SymbolCandidates(ctx, []int64{v.ID}, leaves, 500)
	if err != nil {
		return nil, err
	}
	type match struct {
		u          retrieval.PackageUnit
		score, ref int
	}
	var ms []match
	for _, u := range units {
		m := match{u: u, ref: -1}
		for i, ref := range refs {
			if sc, ok := matchSymbol(ref, u, v.Name); ok && sc >= 0 && (m.ref < 0 || sc > m.score) {
				m.score, m.ref = sc, i
			}
		}
		if m.ref >= 0 {
			ms = append(ms, m)
		}
	}
	// The best match first; of equal ones, the name written first.
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].score != ms[j].score {
			return ms[i].score > ms[j].score
		}
		return ms[i].ref < ms[j].ref
	})
	var out []retrieval.PackageUnit
	for _, m := range ms {
		out = append(out, m.u)
	}
	return out, nil
}
