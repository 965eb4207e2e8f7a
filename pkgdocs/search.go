package pkgdocs

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// Search modes: the engine's, with fast (BM25 and vectors fused, no
// reranking) as its own name.
const (
	ModeSearch = "search"
	ModeFast   = "fast"
	ModeQuery  = "query"
)

// DefaultMode is the mode of a search that names none. The judged set
// (bench/RESULTS.md, "Package docs") decides it.
const DefaultMode = ModeFast

// SearchRequest is a search of a project's dependencies' docs.
type SearchRequest struct {
	Query string
	// Projects are the project folders whose dependencies are searched.
	Projects []string
	// Package (a name or short name) and Ecosystem narrow the search.
	Package, Ecosystem string
	// Path is the file the caller is editing (a path or a bare name:
	// "cmd/main.go", "package.json"). Without Ecosystem, its language
	// narrows the search to that ecosystem's packages when the projects
	// have any (EcosystemOfPath, searchScope).
	Path  string
	Limit int
	// Mode is search, fast or query (default DefaultMode).
	Mode     string
	MinScore float64
	Explain  bool
	// MaxTokens bounds the answer (0: unbounded).
	MaxTokens int
	// Auto indexes a project never added, and re-indexes one whose
	// manifests changed, before searching (installed packages only).
	Auto bool
	// Notes are added to the answer's notes before the budget applies
	// (a front end's word on where the project came from).
	Notes []string
}

// SearchResults is the answer of Search.
type SearchResults struct {
	Results []retrieval.Result `json:"results"`
	Meta    retrieval.Meta     `json:"meta"`
	Scope   Scope              `json:"scope"`
	// Truncated is set when results were left out for the token budget.
	Truncated bool `json:"truncated,omitempty"`
}

// engineMode maps a package search mode to the engine's.
func engineMode(mode string) (retrieval.Mode, bool, error) {
	switch mode {
	case "", ModeFast:
		return retrieval.ModeQuery, true, nil
	case ModeSearch, "bm25":
		return retrieval.ModeSearch, false, nil
	case ModeQuery:
		return retrieval.ModeQuery, false, nil
	case string(retrieval.ModeVSearch):
		return retrieval.ModeVSearch, false, nil
	}
	return "", false, gnoerr.New(gnoerr.InvalidInput, "mode %q: want search, fast or query", mode)
}

// Search runs a search over the docs of the projects' dependencies.
func (x *Index) Search(ctx context.Context, req SearchRequest) (*SearchResults, error) {
	if req.Mode == "" {
		req.Mode = DefaultMode
	}
	mode, fast, err := engineMode(req.Mode)
	if err != nil {
		return nil, err
	}
	sr := retrieval.SearchRequest{Query: req.Query, Limit: req.Limit, MinScore: req.MinScore, Explain: req.Explain}
	if err := sr.Validate(); err != nil {
		return nil, err
	}
	s, err := x.searchScope(ctx, req)
	if err != nil {
		return nil, err
	}
	ctx, end, err := x.pk.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	versions := s.keys()
	if n, err := x.pk.VersionCount(ctx); err == nil && n == len(versions) && len(s.notes) == 0 {
		// The scope is every stored version: no filter, so BM25 reads the
		// word index alone (a filter joins every match to its document).
		versions = nil
	}
	weigh, want := s.hasStdlib(), cmp.Or(max(req.Limit, 0), 5) // 5: the engine's default
	sr.Limit = candidatePool(want)
	if weigh {
		sr.Explain = true // weighStdlib reads which results the vector search found
	}
	// The pool is for the re-orderings; the lists go as deep as the
	// caller's own limit would make them.
	ps := retrieval.PackageSearch{QueryRequest: retrieval.QueryRequest{SearchRequest: sr, Fast: fast}, Versions: versions, ListsFor: want}
	if weigh && mode == retrieval.ModeQuery {
		embedded, err := x.pk.VersionsEmbedded(ctx, s.stdlibKeys())
		if err != nil {
			return nil, err
		}
		ps.Sides = s.vectorSides(embedded)
	}
	res, err := x.pk.Run(ctx, mode, ps)
	if err != nil {
		return nil, err
	}
	if weigh {
		res.Results = weighStdlib(req.Query, res.Results, mode == retrieval.ModeVSearch)
		if !req.Explain {
			res.Meta.Timings = nil
			for i := range res.Results {
				res.Results[i].Explain = nil
			}
		}
	}
	exact, err := x.exactSymbols(ctx, s, req.Query)
	if err != nil {
		return nil, err
	}
	limit := want
	plain := rescorePlain(req.Query, len(exact))
	if plain {
		res.Results = weighData(res.Results)
	}
	if res.Results, err = x.asItems(ctx, s, res.Results); err != nil {
		return nil, err
	}
	res.Results = aboveMinScore(foldExamples(demoteOverviews(res.Results)), req.MinScore, plain)
	if plain {
		res.Results = diversifySiblings(res.Results, siblingsTop, siblingsPer)
	}
	if res.Results, err = x.withExact(ctx, exact, res.Results, limit); err != nil {
		return nil, err
	}
	if len(res.Results) > limit {
		res.Results = res.Results[:limit]
	}
	res.Meta.TotalResults = len(res.Results)
	out := &SearchResults{Results: res.Results, Meta: res.Meta, Scope: s.Scope}
	if out.Results == nil {
		out.Results = []retrieval.Result{}
	}
	if err := x.wholeHits(ctx, out.Results); err != nil {
		return nil, err
	}
	for i := range out.Results {
		out.Results[i].Source = retrieval.Source{RelPath: out.Results[i].Source.RelPath, Mime: out.Results[i].Source.Mime}
	}
	out.Meta.Notes = append(append(s.notes, req.Notes...), out.Meta.Notes...)
	if len(s.versions) == 0 {
		out.Meta.Notes = append(out.Meta.Notes, "no indexed packages in scope")
	}
	if req.MaxTokens > 0 {
		out.fit(req.MaxTokens)
	}
	return out, nil
}

// poolFactor is how many more results than asked for the engine returns
// for the re-orderings after it to draw on: the standard-library
// weighting moves a dependency's answer up from below the standard
// library's; an item found below its example takes the example's place
// (liftItems), a Python special method its class's (foldDunders), a
// look-alike sibling leaves room for the next answer (diversifySiblings).
// With only the asked-for results, those moves could not reach an answer
// just past the cut, and the first results of a search asked for 5 were
// not those of one asked for 10 (the ranking set's tuning half: MRR@10
// +0.00 to +0.01 in every scope, bench/RESULTS.md "pkgrank7"). The
// fused lists go as deep as for the caller's limit (max(50, limit):
// PackageSearch.ListsFor), not for the pool, so a limit of 17 or more
// costs no deeper lists than before.
const poolFactor = 3

// candidatePool is how many results the engine is asked for when want
// are to be returned: poolFactor times want, at least 10 of them.
func candidatePool(want int) int {
	// Clamped before the product: a huge limit must not overflow to a
	// negative pool (the engine's default 5).
	return min(min(max(want, 10), retrieval.MaxLimit)*poolFactor, retrieval.MaxLimit)
}

// rescorePlain reports whether a question gets the plain-words
// rescoring (weighData, diversifySiblings): a question in plain words
// that names no symbol exactly. A question naming one ("how do I add a
// Router with middleware") is about that item: its exact hit goes first
// and the rest keeps the engine's order.
func rescorePlain(query string, exact int) bool {
	return plainQuestion(query) && exact == 0
}

// aboveMinScore drops the results that the standard-library weighting or
// the overview demotion took below the request's minimum score (the
// engine applied it to the scores before them). The data-member
// weighting (weighed: weighData ran) is not one of them: a property is
// held to the minimum by its score before it, so weighing it moves it
// down but never drops it. Exact symbol hits are added after this, at
// score 1.
func aboveMinScore(rs []retrieval.Result, minScore float64, weighed bool) []retrieval.Result {
	if minScore <= 0 {
		return rs
	}
	out := rs[:0]
	for _, r := range rs {
		score := r.Score
		if weighed && dataItem(r) {
			score /= dataWeight
		}
		if score >= minScore {
			out = append(out, r)
		}
	}
	return out
}

// fit drops results from the end until the answer's JSON fits the
// budget; a lone result too big for it keeps a shortened snippet.
func (r *SearchResults) fit(maxTokens int) {
	if tokensOf(r) <= maxTokens {
		return
	}
	r.Truncated = true
	notes := r.Meta.Notes
	note := func() {
		r.Meta.TotalResults = len(r.Results)
		r.Meta.Notes = append(notes[:len(notes):len(notes)], fmt.Sprintf("truncated to %d results to fit %d tokens: narrow with package or ask for fewer", len(r.Results), maxTokens))
	}
	all := r.Results
	k := keepFitting(len(all), func(k int) bool {
		r.Results = all[:k]
		note()
		return tokensOf(r) <= maxTokens
	})
	r.Results = all[:max(k, min(1, len(all)))]
	note()
	for i := 0; i < 8 && len(r.Results) == 1 && tokensOf(r) > maxTokens; i++ {
		res := &r.Results[0]
		res.Content, res.Explain = "", nil
		res.Snippet = cutTokens(res.Snippet, max(chunk.EstimateTokens(res.Snippet)-(tokensOf(r)-maxTokens)-10, 0))
	}
	// Last the notes, oldest first (the truncation note stays).
	for tokensOf(r) > maxTokens && len(r.Meta.Notes) > 1 {
		r.Meta.Notes = r.Meta.Notes[1:]
	}
}

// keepFitting returns the largest k ≤ n for which fits(k) holds (k = 0
// when none does), by binary search: an answer is measured log n times,
// not once per item dropped.
func keepFitting(n int, fits func(k int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// tokensOf estimates the tokens of v's JSON form.
func tokensOf(v any) int {
	b, _ := json.Marshal(v)
	return chunk.EstimateTokens(string(b))
}

// truncMark ends a text cut for the budget.
const truncMark = "\n[… truncated]"

// cutTokens shortens s to about n tokens at a line (else rune) boundary,
// marking the cut.
func cutTokens(s string, n int) string {
	if chunk.EstimateTokens(s) <= n {
		return s
	}
	limit := max(n*4-len(truncMark), 0)
	if limit > len(s) {
		limit = len(s)
	}
	cut := s[:limit]
	if i := strings.LastIndexByte(cut, '\n'); i > limit/2 {
		cut = cut[:i]
	}
	for len(cut) > 0 && !validEnd(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + truncMark
}

// validEnd reports whether s does not end inside a UTF-8 sequence.
func validEnd(s string) bool {
	for i := len(s) - 1; i >= 0 && i >= len(s)-4; i-- {
		c := s[i]
		if c < 0x80 {
			return true
		}
		if c >= 0xC0 {
			need := 2
			if c >= 0xF0 {
				need = 4
			} else if c >= 0xE0 {
				need = 3
			}
			return len(s)-i == need
		}
	}
	return false
}

// Text is the human form of search results.
func (r *SearchResults) Text() string {
	var b strings.Builder
	if len(r.Results) == 0 {
		fmt.Fprintf(&b, "No package docs match %q (mode %s, %d packages searched).", r.Meta.Query, r.Meta.Mode, r.Scope.Packages)
	} else {
		fmt.Fprintf(&b, "%d results for %q (mode %s, %d packages searched)\n", len(r.Results), r.Meta.Query, r.Meta.Mode, r.Scope.Packages)
	}
	for i, res := range r.Results {
		fmt.Fprintf(&b, "\n%d. ", i+1)
		if p := res.Package; p != nil {
			fmt.Fprintf(&b, "%s %s %s", p.Ecosystem, p.Name, p.Version)
		}
		if s := res.Symbol; s != nil {
			fmt.Fprintf(&b, " · %s %s", s.Kind, s.Name)
		} else if res.Title != "" {
			fmt.Fprintf(&b, " · %s", oneLine(res.Title, 100))
		}
		fmt.Fprintf(&b, " (%.2f)\n   %s\n", res.Score, res.URI)
		if s := res.Symbol; s != nil && s.Signature != "" {
			fmt.Fprintf(&b, "   %s\n", oneLine(s.Signature, 200))
		}
		if sn := oneLine(res.Snippet, 300); sn != "" {
			fmt.Fprintf(&b, "   %s\n", sn)
		}
	}
	for _, n := range r.Meta.Notes {
		fmt.Fprintf(&b, "\nNote: %s", n)
	}
	return strings.TrimRight(b.String(), "\n")
}

// oneLine squeezes s onto one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
