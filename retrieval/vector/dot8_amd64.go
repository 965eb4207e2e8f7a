package vector

import "golang.org/x/sys/cpu"

// hasAVX2 selects the assembly dot8: the graph walk and the build spend
// most of their time here, and the Go loop is ~10× slower than float32's
// SIMD dot product (bench/RESULTS.md).
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dot8AVX2(q *float32, code *byte, n int) float32

func dot8SIMD(q []float32, code []byte) (float32, int) {
	n := len(q) &^ 7
	if !hasAVX2 || n == 0 {
		return 0, 0
	}
	return dot8AVX2(&q[0], &code[0], n), n
}
