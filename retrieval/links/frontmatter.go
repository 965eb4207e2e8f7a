package links

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Aliases returns the front-matter `aliases` (or `alias`) of a note: a
// YAML list or a single string. Malformed front matter gives none.
func Aliases(text string) []string {
	end, _ := frontMatterEnd(text)
	if end == 0 {
		return nil
	}
	first := strings.IndexByte(text, '\n') + 1
	block := text[first:end]
	if i := strings.LastIndex(strings.TrimRight(block, "\r\n"), "\n"); i >= 0 {
		block = block[:i+1]
	} else {
		block = ""
	}
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(block), &raw); err != nil {
		return nil
	}
	return AliasesOf(raw)
}

// AliasesOf returns the `aliases` (or `alias`) of parsed front matter.
func AliasesOf(raw map[string]any) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v any) {
		s, ok := v.(string)
		s = strings.TrimSpace(s)
		if ok && s != "" && len(s) <= maxTarget && !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			out = append(out, s)
		}
	}
	for _, k := range []string{"aliases", "alias"} {
		switch v := raw[k].(type) {
		case []any:
			for _, x := range v {
				add(x)
			}
		case string:
			add(v)
		}
	}
	return out
}
