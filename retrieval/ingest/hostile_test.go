package ingest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// billionLaughs is front matter whose aliases expand to 10^9 nodes.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		fmt.Fprintf(&b, "%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", n, n, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = n
	}
	b.WriteString("tags: *i\ntitle: x\n---\n# Body\n")
	return b.String()
}

func TestFrontMatterBombs(t *testing.T) {
	for name, src := range map[string]string{
		"billion laughs": billionLaughs(),
		"huge":           "---\n" + strings.Repeat("k: v\n", 400000) + "---\n# Body\n",
		"deep flow":      "---\ntitle: " + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + "\n---\n# Body\n",
		"deep block":     "---\n" + deepBlock(2000) + "---\n# Body\n",
		"binary tag":     "---\ntags: !!binary " + strings.Repeat("QUFB", 100000) + "\ntitle: !!python/object:os.system ls\n---\n# Body\n",
	} {
		start := time.Now()
		fm, off := SplitFrontMatter(src)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: %s", name, d)
		}
		if off < 0 || off > len(src) || len(fm.Tags) > 1000 {
			t.Errorf("%s: offset %d, %d tags", name, off, len(fm.Tags))
		}
	}
}

func deepBlock(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i))
		b.WriteString("k:\n")
	}
	return b.String()
}
