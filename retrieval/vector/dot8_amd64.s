#include "textflag.h"

// func dot8AVX2(q *float32, code *byte, n int) float32
// n is a multiple of 8: eight codes sign-extended to int32, converted to
// float32 and multiply-added with eight of q, two accumulators.
TEXT ·dot8AVX2(SB), NOSPLIT, $0-28
	MOVQ q+0(FP), SI
	MOVQ code+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

loop16:
	CMPQ CX, $16
	JL   tail8
	VPMOVSXBD (DI), Y2
	VPMOVSXBD 8(DI), Y3
	VCVTDQ2PS Y2, Y2
	VCVTDQ2PS Y3, Y3
	VFMADD231PS (SI), Y2, Y0
	VFMADD231PS 32(SI), Y3, Y1
	ADDQ $16, DI
	ADDQ $64, SI
	SUBQ $16, CX
	JMP  loop16

tail8:
	CMPQ CX, $8
	JL   reduce
	VPMOVSXBD (DI), Y2
	VCVTDQ2PS Y2, Y2
	VFMADD231PS (SI), Y2, Y0

reduce:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET
