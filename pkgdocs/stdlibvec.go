package pkgdocs

import "strings"

// compactAPIText is what is embedded for a standard-library API item:
// its name, the first line of its signature and the first sentence of
// its doc, about a third of the unit's text. Embedding cost grows with
// the text: on 400 standard-library units, 10 ms a unit against 27 ms
// for the whole text (bench/RESULTS.md, "Standard-library vectors").
// "" (embed the whole text) for a chunk that is no API item's first:
// an example, a prose passage, the rest of a long item.
func compactAPIText(body string) string {
	name, rest, ok := strings.Cut(body, "\n")
	if !strings.HasPrefix(name, "# ") || !ok {
		return ""
	}
	kind, code, ok := strings.Cut(rest, "```")
	if kind = strings.TrimSpace(kind); !ok || kind == "" || strings.ContainsAny(kind, " \n") {
		return "" // an API item's kind comes before its signature; not an example's code
	}
	_, code, _ = strings.Cut(code, "\n") // the fence's language
	sig, after, ok := strings.Cut(code, "```")
	if !ok {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(sig), "\n")
	sig = lines[0]
	for _, l := range lines {
		if !strings.HasPrefix(l, "@") { // past Python's decorators
			sig = l
			break
		}
	}
	doc := strings.Join(strings.Fields(after), " ")
	for i := 0; i+1 < len(doc); i++ {
		if (doc[i] == '.' || doc[i] == '!' || doc[i] == '?') && doc[i+1] == ' ' {
			doc = doc[:i+1]
			break
		}
	}
	if len(doc) > 240 {
		if i := strings.LastIndexByte(doc[:240], ' '); i > 0 {
			doc = doc[:i]
		} else {
			doc = strings.ToValidUTF8(doc[:240], "")
		}
	}
	return strings.TrimSpace(strings.TrimPrefix(name, "# ") + "\n" + sig + "\n" + doc)
}
