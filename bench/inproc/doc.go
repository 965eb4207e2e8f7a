// Package inproc holds in-process Go benchmarks of gno's engine on the real
// SciFact corpus: the warm-process figures (no process start, no output
// formatting) that sit under the whole-process CLI figures gnobench
// reports. They skip when the eval data is absent.
//
//	go test -run '^$' -bench . -benchtime 200x ./bench/inproc/
//
// It must not be imported by gno itself (bench is a tool).
package inproc
