//go:build !amd64

package vector

// hasAVX2 is amd64's (dot8_amd64.go).
var hasAVX2 = false

func dot8SIMD(q []float32, code []byte) (float32, int) { return 0, 0 }
