// Package vectortest makes synthetic embeddings for the vector index's
// tests and benchmarks (bench/cmd/gnovecbench), the same for a seed in
// both.
package vectortest

import (
	"math"
	"math/rand/v2"
)

// Clustered makes n unit vectors around nc random centres, which is closer
// to how text embeddings spread than uniform noise. A point's offset from
// its centre is about half the centre's length whatever the dimension, so
// neighbours are close but not trivial.
func Clustered(n, nc, dims int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float32, nc)
	for i := range centres {
		centres[i] = randUnit(r, dims)
	}
	noise := 0.5 / float32(math.Sqrt(float64(dims)))
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(nc)]
		v := make([]float32, dims)
		for k := range v {
			v[k] = c[k] + float32(r.NormFloat64())*noise
		}
		Normalize(v)
		out[i] = v
	}
	return out
}

func randUnit(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for k := range v {
		v[k] = float32(r.NormFloat64())
	}
	Normalize(v)
	return v
}

// Normalize scales v to unit length.
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	n := float32(1 / math.Sqrt(s))
	for k := range v {
		v[k] *= n
	}
}
