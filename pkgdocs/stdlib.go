package pkgdocs

import (
	"context"
	"sort"
	"strings"
	"unicode"

	"github.com/gnosearch/gno/pkgdocs/packages"
	"github.com/gnosearch/gno/retrieval"
)

// The standard library of each ecosystem a project uses (Go's GOROOT,
// Python's Lib and built-ins, Node's @types/node, Rust's rust-src) is a
// version like any other, "go:stdlib@go1.26.8": discovery adds it
// (packages.Options.Stdlib), Add extracts it once per toolchain version
// and every project built with that toolchain shares it. It is listed
// and described under the name "stdlib", as a direct dependency.
//
// Vectors: a standard library is 10,000+ units (Go 1.26: ~10,600,
// Python 3.11: ~11,100). Its BM25 index is written in seconds;
// embedding it on a laptop CPU takes minutes (bench/RESULTS.md), so
// the embedding that follows an add leaves standard libraries out
// (Index.Embed): they are searched by keywords, which finds API names
// well, and `gno packages add --embed-stdlib` embeds them when wanted,
// each API item as a compact text (stdlibvec.go): 2.6× cheaper.

// retried reports whether a run with these missing packages must be
// retried by the next add: a missing standard library is not (its
// reason is a toolchain or component that is not installed, which the
// fingerprint watches), a missing package is (the network may be back).
func retried(ms []Missing) bool {
	for _, m := range ms {
		if m.Name != packages.StdlibName {
			return true
		}
	}
	return false
}

// EmbedStdlib is Embed with the standard libraries included.
func (x *Index) EmbedStdlib(ctx context.Context, progress func(done, total int)) (*retrieval.EmbedResult, error) {
	return x.embed(ctx, progress, true)
}

func (x *Index) embed(ctx context.Context, progress func(done, total int), stdlib bool) (*retrieval.EmbedResult, error) {
	if !x.pk.Exists() {
		return nil, nil
	}
	vs, err := x.pk.VersionsNamed(ctx, packages.StdlibName, "")
	if err != nil {
		return nil, err
	}
	// std is looked up by collection name, lower-cased; the skip list
	// keeps the keys as stored.
	std := map[string]bool{}
	var skip []string
	for _, v := range vs {
		if v.Name == packages.StdlibName {
			std[strings.ToLower(v.Key)] = true
			if !stdlib {
				skip = append(skip, v.Key)
			}
		}
	}
	n, err := x.pk.Unembedded(ctx, skip)
	if err != nil || n == 0 {
		return nil, err
	}
	w, err := x.pk.Writer(ctx, x.opt.LockWait)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	text := func(col, title, headings, body string) string {
		if !std[strings.ToLower(col)] {
			return ""
		}
		return compactAPIText(body)
	}
	return w.Embed(ctx, retrieval.EmbedOptions{Progress: progress, Skip: skip, Text: text})
}

// stdlibWeight scales the score of a standard-library result the query
// does not name, in a search over a project's dependencies and its
// standard libraries: 20,000 API units of a toolchain otherwise crowd
// the dependencies' answers out of the top 3 for questions about them
// (the judged set, BM25: hit@3 0.55 → 0.41 with the libraries unweighted;
// bench/RESULTS.md). A query that names the item in code form
// ("context.WithTimeout", "re.findall", "WithTimeout", "dict.items")
// keeps its full score. In fast mode the weight applies on the same
// scale as in search mode: a standard-library unit has no vector, and
// fusion scores it over the BM25 list alone (fusion.Cover). Measured
// with that rule, on the ranking set's tuning half, 0.5 and 0.6 score
// alike and 0.7 to 1.0 trade project-scope answers for standard-library
// ones (bench/RESULTS.md, "Coverage-aware fusion").
const stdlibWeight = 0.5

// hasStdlib reports whether the scope holds a standard library besides
// other versions (a search of the standard library alone is not
// weighted).
func (s *scoped) hasStdlib() bool {
	std, other := false, false
	for _, v := range s.versions {
		if v.Name == packages.StdlibName {
			std = true
		} else {
			other = true
		}
	}
	return std && other
}

// vectorSides splits the vector search of a scope holding a standard
// library and other versions in two: the dependencies' vectors and the
// standard library's, each its own nearest-neighbour list
// (retrieval.PackageSearch.Sides), the standard library's weighted
// stdlibVectorListWeight. Only the standard-library versions embedded
// (embedded: retrieval.Packages.VersionsEmbedded) make a side; with none
// (the default: keyword-only) it returns nil and retrieval searches one
// list. With them (`gno packages add --embed-stdlib`), one 50-deep list
// was filled by the standard library's compact vectors, and a
// dependency's answer lost its vector vote: project scope, fast, tuning
// half 0.53 / 0.43 keyword-only → 0.47 / 0.39 one list → 0.53 / 0.44
// split (checking half 0.58 / 0.50 → 0.51 / 0.44 → 0.59 / 0.50),
// package scope 0.66 / 0.56 → 0.70 / 0.58 → 0.68 / 0.57
// (bench/RESULTS.md, "pkgrank8"). Every other version is on the
// dependencies' side, so the sides cover the scope (a search over every
// version needs that).
func (s *scoped) vectorSides(embedded map[string]bool) []retrieval.VectorSide {
	deps := retrieval.VectorSide{Name: "vector"}
	std := retrieval.VectorSide{Name: "vector-stdlib", Weight: stdlibVectorListWeight}
	for _, v := range s.versions {
		switch {
		case v.Name != packages.StdlibName:
			deps.Versions = append(deps.Versions, v.Key)
		case embedded[v.Key]:
			std.Versions = append(std.Versions, v.Key)
		}
	}
	if len(std.Versions) == 0 {
		return nil
	}
	return []retrieval.VectorSide{deps, std}
}

// stdlibKeys are the keys of the scope's standard-library versions.
func (s *scoped) stdlibKeys() []string {
	var keys []string
	for _, v := range s.versions {
		if v.Name == packages.StdlibName {
			keys = append(keys, v.Key)
		}
	}
	return keys
}

// The standard library's vectors in a split search (vectorSides): its
// list weighs a quarter of the dependencies' (its vote within the
// standard library's own results; fusion.Cover puts each side on the
// same scale), and a standard-library result that list found keeps 0.75
// of its score where a keyword-only one keeps stdlibWeight. Tuning half,
// fast, the four scopes (project, package, with and without the caller's
// file): list weight 1 / 0.5 / 0.25 alike but for Swift's project MRR
// (0.45 at 0.5, 0.52 at 0.25); the score kept 1 cost project scope
// 0.05 hit@3, 0.5 and 0.6 gave back the package-scope gain, 0.75 kept
// both.
const (
	stdlibVectorListWeight = 0.25
	stdlibVectorWeight     = 0.75
)

// weighStdlib lowers the standard-library results the query does not
// name and re-sorts by score (stable). A result the
// vector search found (an embedded standard library: `--embed-stdlib`)
// keeps stdlibVectorWeight of its score: the weight discounts
// keyword-only evidence, which fusion.Cover puts on the scale of a unit
// both lists agree on, and a unit the vectors found has that agreement,
// though its own list holds only its side's units. Measured on the ranking
// set's tuning half with the standard-library modules its questions
// touch embedded (bench/RESULTS.md, "Standard-library vectors"): fast,
// package scope with the caller's file 0.62 / 0.50 → 0.67 / 0.53,
// project scope 0.50 / 0.39 → 0.52 / 0.42; the discount on every
// standard-library result, embedded or not, gave 0.64 / 0.51.
// Results need their Explain (Search asks the engine for it). In a
// vector-only search (vectorOnly: vsearch) every result was found by the
// vectors, so the 0.75 would discount every standard-library result
// alike, an effect not measured: a result found there keeps its whole
// score, as before the split (pkgrank7).
func weighStdlib(query string, rs []retrieval.Result, vectorOnly bool) []retrieval.Result {
	named := codeTokens(query)
	for i := range rs {
		r := &rs[i]
		if r.Package == nil || r.Package.Name != packages.StdlibName || namesSymbol(named, r.Symbol) {
			continue
		}
		if r.Explain != nil && r.Explain.VectorRank > 0 {
			if !vectorOnly {
				r.Score *= stdlibVectorWeight // embedded, and the meaning agrees: a smaller discount
			}
			continue
		}
		r.Score *= stdlibWeight
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Score > rs[j].Score })
	return rs
}

// codeTokens are the words of a query written as code: with a dot,
// slash, "::", underscore or parenthesis, or an upper-case letter past
// the first ("WithTimeout", "os/exec", "str.split()"), trimmed of
// punctuation; plain words ("split", "Timeout") are not.
func codeTokens(q string) []string {
	var out []string
	for _, w := range strings.Fields(q) {
		w = strings.Trim(w, "`'\",;:?!()[]{}")
		w = strings.TrimSuffix(w, "()")
		if w == "" {
			continue
		}
		code := strings.ContainsAny(w, "./_(") || strings.Contains(w, "::")
		for _, c := range w[1:] {
			code = code || unicode.IsUpper(c)
		}
		if code {
			out = append(out, w)
		}
	}
	return out
}

// namesSymbol reports whether a code token is the symbol, qualified
// ("context.WithTimeout", "os/exec.Command") or by its trailing parts
// ("WithTimeout", "Cmd.Output"), case-insensitively.
func namesSymbol(tokens []string, s *retrieval.Symbol) bool {
	if s == nil {
		return false
	}
	name := strings.ToLower(strings.ReplaceAll(s.Name, "::", "."))
	for _, t := range tokens {
		t = strings.ToLower(strings.ReplaceAll(t, "::", "."))
		if t == name || strings.HasSuffix(name, "."+t) || strings.HasSuffix(name, "/"+t) {
			return true
		}
	}
	return false
}
