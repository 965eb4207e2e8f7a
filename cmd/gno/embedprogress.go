package main

import (
	"fmt"
	"io"
	"time"

	"github.com/gnosearch/gno/retrieval"
)

// embedLine is one line of an embedding run's progress: how far, how fast
// and the time left (from the text left at the rate measured since the
// first batch, so model loading does not skew it).
func embedLine(p retrieval.EmbedProgress, eta time.Duration) string {
	left := "estimating time left"
	if eta > 0 {
		left = roundETA(eta) + " left"
	}
	return fmt.Sprintf("embedding %d/%d chunks (%s) · %.0f chunks/s · %s", p.Done, p.Total, percent(p.Done, p.Total), p.ChunksPerSec, left)
}

// roundETA writes a time left as a person reads it: seconds under two
// minutes, then minutes, then hours and minutes.
func roundETA(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()+0.5))
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()+0.5))
	default:
		h := int(d.Hours())
		return fmt.Sprintf("%dh%02dm", h, int(d.Minutes())-60*h)
	}
}

// percent is part of whole as a percentage with one decimal under 10%.
func percent(part, whole int) string {
	if whole <= 0 {
		return "100%"
	}
	p := 100 * float64(part) / float64(whole)
	if p < 10 && part < whole {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// embedMeter redraws the progress line on a terminal, at most every
// 200 ms, and clears it at the end.
type embedMeter struct {
	w    io.Writer
	last time.Time
	drew bool
}

func (m *embedMeter) update(p retrieval.EmbedProgress) {
	if now := time.Now(); now.Sub(m.last) >= 200*time.Millisecond || p.Done == p.Total {
		m.last = now
		fmt.Fprintf(m.w, "\r\033[K%s", embedLine(p, p.ETA))
		m.drew = true
	}
}

func (m *embedMeter) finish() {
	if m.drew {
		fmt.Fprint(m.w, "\r\033[K")
	}
}
