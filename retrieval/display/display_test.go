package display

import "testing"

func TestNumberLines(t *testing.T) {
	if got := NumberLines("a\nb\n", 7); got != "7: a\n8: b\n" {
		t.Errorf("NumberLines = %q", got)
	}
	if got := NumberLines("", 1); got != "1: \n" {
		t.Errorf("NumberLines of empty = %q", got)
	}
}

func TestTruncate(t *testing.T) {
	if s, cut := Truncate("héllo wörld", 5); s != "héllo"+Truncated || !cut {
		t.Errorf("Truncate = %q %v", s, cut)
	}
	if s, cut := Truncate("short", 10); s != "short" || cut {
		t.Errorf("Truncate of a short text = %q %v", s, cut)
	}
	if s, cut := Truncate("whole", 0); s != "whole" || cut {
		t.Errorf("Truncate with no limit = %q %v", s, cut)
	}
}

func TestStripMarks(t *testing.T) {
	if got := StripMarks("a \x01hit\x02 b"); got != "a hit b" {
		t.Errorf("StripMarks = %q", got)
	}
}
