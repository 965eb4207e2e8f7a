package apidoc

import (
	"strings"
)

// JSDoc tags, for JavaScript read without declarations: the doc text is
// kept as written (jsdoc), and the tags give the typed signature line
// that a .d.ts would have given.

// jsDocTags is what the tags of one JSDoc comment say.
type jsDocTags struct {
	params  []jsParam
	returns string // the @returns type, "" when none
	private bool   // @private, @ignore, @internal, @api private
}

// jsParam is one @param tag.
type jsParam struct {
	name, typ string
	optional  bool
}

// maxJSDocTags bounds the tags read from one comment.
const maxJSDocTags = 64

// parseJSDoc reads the tags of a cleaned JSDoc text (as jsdoc returns
// it). Malformed tags (an unclosed {type}, a missing name) are skipped;
// it never fails.
func parseJSDoc(doc string) jsDocTags {
	var t jsDocTags
	n := 0
	fenced := false
	for _, l := range strings.Split(doc, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(l, "@") {
			continue
		}
		if n++; n > maxJSDocTags {
			break
		}
		tag, rest, _ := strings.Cut(l, " ")
		rest = strings.TrimSpace(rest)
		switch tag {
		case "@param", "@arg", "@argument":
			typ, rest, ok := jsDocType(rest)
			if !ok {
				continue
			}
			name, _, _ := strings.Cut(rest, " ")
			p := jsParam{typ: typ}
			if strings.HasPrefix(name, "[") {
				// [name=default] may hold spaces in its default: cut at "]"
				inner, _, ok := strings.Cut(rest[1:], "]")
				if !ok {
					continue
				}
				name, _, _ = strings.Cut(inner, "=")
				p.optional = true
			}
			if strings.HasSuffix(p.typ, "=") {
				p.typ, p.optional = strings.TrimSuffix(p.typ, "="), true
			}
			name = strings.TrimSpace(name)
			if name == "" || strings.Contains(name, ".") { // options.leading: a field, not a parameter
				continue
			}
			p.name = name
			t.params = append(t.params, p)
		case "@returns", "@return":
			if typ, _, ok := jsDocType(rest); ok {
				t.returns = typ
			}
		case "@private", "@ignore", "@internal":
			t.private = true
		case "@api":
			t.private = t.private || strings.HasPrefix(rest, "private")
		}
	}
	return t
}

// jsDocType reads a leading {type}, braces balanced; ok is false when
// the braces never close. A tag with no type gives "" and ok.
func jsDocType(s string) (typ, rest string, ok bool) {
	if !strings.HasPrefix(s, "{") {
		return "", s, true
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return strings.TrimSpace(s[1:i]), strings.TrimSpace(s[i+1:]), true
			}
		}
	}
	return "", "", false
}

// typedSig is the signature the tags describe, TypeScript style:
// "debounce(func: Function, wait?: number): Function"; "" when the tags
// give no type at all.
func (t jsDocTags) typedSig(name string) string {
	typed := t.returns != ""
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	for i, p := range t.params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.name)
		if p.optional {
			b.WriteByte('?')
		}
		if p.typ != "" {
			typed = true
			b.WriteString(": ")
			b.WriteString(p.typ)
		}
	}
	b.WriteByte(')')
	if t.returns != "" {
		b.WriteString(": ")
		b.WriteString(t.returns)
	}
	if !typed {
		return ""
	}
	return cutSig(b.String())
}
