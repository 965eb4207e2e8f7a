package pkgdocs

import (
	"context"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/packages"
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
// well, and `gno packages add --embed-stdlib` embeds them when wanted.

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
	var skip []string
	if !stdlib {
		vs, err := x.pk.VersionsNamed(ctx, packages.StdlibName, "")
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if v.Name == packages.StdlibName {
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
	return w.Embed(ctx, retrieval.EmbedOptions{Progress: progress, Skip: skip})
}
