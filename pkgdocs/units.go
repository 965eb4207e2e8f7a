package pkgdocs

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
	"github.com/gnosearch/gno/pkgdocs/packages"
	"github.com/gnosearch/gno/retrieval"
)

// versionDocs turns one extracted version into what the index stores:
// its metadata (discovery's, else what its files say) and one document
// per unit.
func versionDocs(p packages.Package, d *apidoc.Docs) (*retrieval.PackageVersion, []retrieval.UnitDoc) {
	v := &retrieval.PackageVersion{Key: key(p), Ecosystem: string(p.Ecosystem), Name: p.Name, Version: p.Version,
		Summary: first(p.Summary, d.Meta.Summary), License: first(p.License, d.Meta.License),
		Homepage: first(p.Homepage, d.Meta.Homepage), Repository: first(p.Repository, d.Meta.Repository),
		Extractor: extractorVersion}
	for i, w := range d.Warnings {
		if i == 20 {
			v.Warnings = append(v.Warnings, "more warnings left out")
			break
		}
		v.Warnings = append(v.Warnings, w.String())
	}
	short := shortName(p.Name)
	units := make([]retrieval.UnitDoc, 0, len(d.Units))
	for _, u := range d.Units {
		ud := retrieval.UnitDoc{Path: u.Path, Title: u.Title, Text: u.Text, Kind: u.Kind, File: u.File, Line: u.Line}
		kw := []string{short}
		if u.Symbol != nil {
			ud.Symbol, ud.SymbolKind, ud.Signature = u.Symbol.Name, u.Symbol.Kind, u.Symbol.Signature
			// The leaf's words only: a member found by its container's
			// words ("circuit breaker" for CircuitBreaker.State) would
			// outrank the container, whose own unit is shorter on them.
			if words := SymbolWords(leaf(u.Symbol.Name)); words != "" {
				kw = append(kw, words)
			}
		} else if u.Kind == apidoc.KindReadme {
			kw = append(kw, "readme")
		}
		if ud.Title == "" {
			ud.Title = u.Path
		}
		ud.Keywords = strings.Join(kw, " ")
		units = append(units, ud)
	}
	return v, units
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// shortName is the name a developer calls a package by: the last path
// element of a Go module (without a /vN suffix), an npm name without its
// scope.
func shortName(name string) string {
	parts := strings.Split(strings.Trim(name, "/"), "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	return strings.TrimPrefix(last, "@")
}

// SymbolWords splits a symbol's name into lowercase words on case,
// underscore, dot and other boundaries ("Command.PersistentFlags" →
// "command persistent flags", "HTTPServer" → "http server",
// "de::Deserializer" → "de deserializer"), so that a question in plain
// words finds it; "" when splitting adds nothing to what the word index
// already makes of the name (no case boundary inside a word).
func SymbolWords(name string) string {
	var words []string
	split := false
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		ws := camelWords(part)
		if len(ws) > 1 {
			split = true
		}
		for _, w := range ws {
			words = append(words, strings.ToLower(w))
		}
	}
	if !split {
		return ""
	}
	return strings.Join(words, " ")
}

// camelWords cuts one identifier at its case boundaries: a lower-case
// letter or digit followed by an upper-case one, and the last capital of
// a run followed by a lower-case letter (HTTPServer → HTTP Server).
func camelWords(s string) []string {
	var out []string
	start := 0
	prev, _ := utf8.DecodeRuneInString(s)
	for i, r := range s {
		if i == 0 {
			continue
		}
		next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
		cut := unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev) ||
			unicode.IsUpper(prev) && unicode.IsLower(next))
		if cut {
			out = append(out, s[start:i])
			start = i
		}
		prev = r
	}
	return append(out, s[start:])
}

// leaf is a qualified name's last part: "PersistentFlags" of
// "Command.PersistentFlags", "Deserializer" of "de::Deserializer".
func leaf(name string) string {
	if i := strings.LastIndexAny(name, ".:#/"); i >= 0 {
		return name[i+1:]
	}
	return name
}
