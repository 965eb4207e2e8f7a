package chunk

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMarkdownHeadingsAndLines(t *testing.T) {
	src := "# Guide\n\nIntro text.\n\n## Install\n\nRun it.\n\n```sh\nmake demo\n\nmake test\n```\n\n## Use\n\nSearch things.\n"
	cs := Markdown(src, Options{Tokens: 8})
	if len(cs) < 2 {
		t.Fatalf("got %d chunks, want several: %+v", len(cs), cs)
	}
	for _, c := range cs {
		if src[c.StartByte:c.EndByte] != c.Text {
			t.Errorf("byte range does not match text: %+v", c)
		}
		if strings.Count(c.Text, "```")%2 != 0 {
			t.Errorf("chunk cuts a code fence: %q", c.Text)
		}
	}
	last := cs[len(cs)-1]
	if got := strings.Join(last.Headings, " > "); got != "Guide > Use" {
		t.Errorf("last heading path = %q", got)
	}
	if last.StartLine != 15 || last.EndLine != 17 {
		t.Errorf("last lines = %d-%d, want 15-17", last.StartLine, last.EndLine)
	}
}

func TestSmallDocIsOneChunk(t *testing.T) {
	src := "# Title\n\nA short abstract about things.\n"
	cs := Markdown(src, Options{})
	if len(cs) != 1 || cs[0].Text != strings.TrimSpace(src) || cs[0].StartLine != 1 || cs[0].EndLine != 3 {
		t.Fatalf("got %+v", cs)
	}
}

func TestListNotSplitAndOverlap(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString("Paragraph number with several words to make it long enough.\n\n")
	}
	cs := Markdown(b.String(), Options{Tokens: 100, Overlap: 0.2})
	if len(cs) < 5 {
		t.Fatalf("got %d chunks", len(cs))
	}
	for i := 1; i < len(cs); i++ {
		if cs[i].StartByte >= cs[i-1].EndByte {
			t.Errorf("chunk %d does not overlap the previous one", i)
		}
		if EstimateTokens(cs[i].Text) > 100 {
			t.Errorf("chunk %d too big: %d", i, EstimateTokens(cs[i].Text))
		}
	}
}

func TestHugeLineSplitsOnRunes(t *testing.T) {
	src := strings.Repeat("数据库", 3000) + "\n"
	cs := Markdown(src, Options{Tokens: 500})
	if len(cs) < 10 {
		t.Fatalf("got %d chunks", len(cs))
	}
	for _, c := range cs {
		if !utf8.ValidString(c.Text) {
			t.Fatalf("chunk cut inside a rune")
		}
	}
}

func TestPlainText(t *testing.T) {
	src := "first para\nline two\n\n\nsecond para\n"
	cs := Text(src, Options{Tokens: 7})
	if len(cs) != 2 || cs[1].Text != "second para" || cs[1].StartLine != 5 {
		t.Fatalf("got %+v", cs)
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"# a\n\nb", "```\ncode", "- a\n- b\n\n  c", "| a |\n|---|\n| b |", "\x00\xff", "> q\n>\n> r", strings.Repeat("x ", 3000)} {
		f.Add(s, 50)
	}
	f.Fuzz(func(t *testing.T, src string, tokens int) {
		if tokens < 1 || tokens > 5000 {
			tokens = 50
		}
		for _, cs := range [][]Chunk{Markdown(src, Options{Tokens: tokens}), Text(src, Options{Tokens: tokens})} {
			prevStart := -1
			for _, c := range cs {
				if c.StartByte < 0 || c.EndByte > len(src) || c.StartByte >= c.EndByte {
					t.Fatalf("bad range %d-%d of %d", c.StartByte, c.EndByte, len(src))
				}
				if src[c.StartByte:c.EndByte] != c.Text {
					t.Fatalf("text does not match range")
				}
				if c.StartByte < prevStart {
					t.Fatalf("chunks out of order")
				}
				if c.StartLine > c.EndLine {
					t.Fatalf("bad lines %d-%d", c.StartLine, c.EndLine)
				}
				prevStart = c.StartByte
			}
		}
	})
}
