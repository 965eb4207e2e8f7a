// Package latency summarises samples of wall times into the percentiles
// the benchmark reports.
//
// It must not be imported by gno itself (bench is a tool).
package latency

import (
	"math"
	"sort"
	"time"
)

// Summary is a latency distribution in milliseconds.
type Summary struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	Mean float64 `json:"mean_ms"`
	Min  float64 `json:"min_ms"`
	Max  float64 `json:"max_ms"`
}

// Summarize computes the distribution of samples; percentiles use the
// nearest-rank method, so every reported figure is an observed run.
func Summarize(samples []time.Duration) Summary {
	if len(samples) == 0 {
		return Summary{}
	}
	ms := make([]float64, len(samples))
	var sum float64
	for i, d := range samples {
		ms[i] = float64(d) / float64(time.Millisecond)
		sum += ms[i]
	}
	sort.Float64s(ms)
	return Summary{
		N:    len(ms),
		P50:  Percentile(ms, 50),
		P95:  Percentile(ms, 95),
		P99:  Percentile(ms, 99),
		Mean: sum / float64(len(ms)),
		Min:  ms[0],
		Max:  ms[len(ms)-1],
	}
}

// Percentile returns the nearest-rank p-th percentile of sorted values.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}
