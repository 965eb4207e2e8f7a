package latency

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	var s []time.Duration
	for i := 100; i >= 1; i-- { // unsorted input
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	got := Summarize(s)
	want := Summary{N: 100, P50: 50, P95: 95, P99: 99, Mean: 50.5, Min: 1, Max: 100}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if (Summarize(nil) != Summary{}) {
		t.Fatal("empty input must give a zero summary")
	}
	if p := Percentile([]float64{7}, 99); p != 7 {
		t.Fatalf("single sample p99 = %v", p)
	}
}
