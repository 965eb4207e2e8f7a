package chunk

import (
	"strings"
	"testing"
	"time"
)

func TestHostileMarkdown(t *testing.T) {
	var nested strings.Builder
	for i := range 2000 {
		nested.WriteString(strings.Repeat("  ", i))
		nested.WriteString("- item\n")
	}
	for name, src := range map[string]string{
		"hashes":           strings.Repeat("#", 1000000) + "\n",
		"long line":        "# Long\n\n" + strings.Repeat("word ", 400000) + "\n",
		"nested list":      strings.Repeat("- ", 100000) + "x\n",
		"quotes":           strings.Repeat(">", 100000) + " x\n",
		"indented":         nested.String(),
		"brackets":         strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + "\n",
		"emphasis":         strings.Repeat("*a ", 200000) + "\n",
		"backticks":        strings.Repeat("`", 200000) + "\n",
		"rules":            strings.Repeat("-", 100000) + "\n\n" + strings.Repeat("---\n", 10000),
		"heading brackets": "# " + strings.Repeat("[", 100000) + "\n",
	} {
		start := time.Now()
		cs := Markdown(src, Options{})
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: %s", name, d)
		}
		total := 0
		for _, c := range cs {
			total += len(c.Text)
		}
		if total == 0 {
			t.Errorf("%s: no chunks", name)
		}
	}
}

func TestHeadingInlineText(t *testing.T) {
	cs := Markdown("# The `foo` *function*\n\nbody\n\n---\n\nmore\n", Options{})
	if len(cs) == 0 || len(cs[0].Headings) == 0 || cs[0].Headings[0] != "The foo function" {
		t.Fatalf("%+v", cs)
	}
	if TooDeep("----------------------------------------------------------------\n") {
		t.Fatal("a rule is not nesting")
	}
}

func TestHugeSetextHeading(t *testing.T) {
	src := strings.Repeat("k: v\n", 100000) + "---\n\nbody\n"
	start := time.Now()
	cs := Markdown(src, Options{})
	for _, c := range cs {
		for _, h := range c.Headings {
			if len(h) > maxHeadingBytes {
				t.Fatalf("heading of %d bytes", len(h))
			}
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
}
