package vector

import "math"

// Vectors in a saved graph are int8 codes with one float32 scale each:
// x[j] ≈ scale·code[j], scale = max|x[j]|/127. A 384-dimension vector
// takes 388 bytes instead of 1,536, and the graph walk's order of
// neighbours barely moves (the final order comes from the exact vectors:
// Query.Exact).

// quantize writes v's codes into code and returns the scale.
func quantize(v []float32, code []byte) float32 {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	if m == 0 {
		clear(code)
		return 0
	}
	inv := 127 / m
	for j, x := range v {
		code[j] = byte(int8(math.Round(float64(x * inv))))
	}
	return m / 127
}

// dot8 is q·code, the code read as int8: in assembly where the CPU has
// AVX2 (dot8_amd64.s), else four sums, which break the dependency chain
// of one.
func dot8(q []float32, code []byte) float32 {
	code = code[:len(q)]
	s0, j := dot8SIMD(q, code) // amd64 with AVX2: all but the last len%8
	var s1, s2, s3 float32
	for ; j+4 <= len(q); j += 4 {
		c := code[j : j+4 : j+4]
		r := q[j : j+4 : j+4]
		s0 += r[0] * float32(int8(c[0]))
		s1 += r[1] * float32(int8(c[1]))
		s2 += r[2] * float32(int8(c[2]))
		s3 += r[3] * float32(int8(c[3]))
	}
	for ; j < len(q); j++ {
		s0 += q[j] * float32(int8(code[j]))
	}
	return (s0 + s1) + (s2 + s3)
}

// dequantize writes the code's approximate vector into v.
func dequantize(code []byte, scale float32, v []float32) {
	for j := range v {
		v[j] = scale * float32(int8(code[j]))
	}
}
