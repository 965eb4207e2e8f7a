package apidoc

import (
	"strings"
)

// A declaration file as statements: tokens, bracket matches, the
// statement and member boundaries TypeScript's own rules draw (";", ","
// in bodies, and the newlines where it would insert a semicolon), and the
// export and import lists.

// parseTS lexes a declaration file, comments other than JSDoc dropped.
func parseTS(name, src string) *tsFile {
	all := lex(src, langTS)
	toks := all[:0] // filtered in place: the write index never passes the read index
	for _, t := range all {
		if t.kind != tComment {
			toks = append(toks, t)
		}
	}
	return &tsFile{name: name, src: src, toks: toks, match: matchBrackets(src, toks), li: newLineIndex(src), index: map[string]int{}}
}

func (f *tsFile) text(i int) string {
	if i < 0 || i >= len(f.toks) {
		return ""
	}
	return f.src[f.toks[i].start:f.toks[i].end]
}

// span is the source of tokens [i, j), continuation lines unindented.
func (f *tsFile) span(i, j int) string {
	if i >= j || i >= len(f.toks) {
		return ""
	}
	if j > len(f.toks) {
		j = len(f.toks)
	}
	return sigText(f.src, f.toks[i].start, f.toks[j-1].end)
}

func (f *tsFile) push(it tsItem) {
	if k, ok := f.index[it.sym.Name]; ok && f.items[k].sym.Kind == it.sym.Kind {
		// an overload: one item, one signature a line
		f.items[k].sym.Signature += "\n" + it.sym.Signature
		if f.items[k].doc == "" {
			f.items[k].doc = it.doc
		}
		return
	}
	f.index[it.sym.Name] = len(f.items)
	f.items = append(f.items, it)
}

var tsContPrev = map[string]bool{
	":": true, "|": true, "&": true, "=": true, "=>": true, ",": true, "?": true, ".": true, "<": true,
	"extends": true, "keyof": true, "typeof": true, "is": true, "as": true, "new": true, "readonly": true,
	"infer": true, "unique": true, "asserts": true, "implements": true, "+": true, "-": true,
}

var tsContNext = map[string]bool{
	"|": true, "&": true, "=>": true, ".": true, "?": true, ":": true, "=": true, ">": true, ",": true,
	"extends": true, "implements": true, "as": true, "is": true,
}

// stmts splits tokens [i, end) into statements (member mode: class and
// interface members, which "," also ends), by ";" and by newlines where
// TypeScript would insert one.
func (f *tsFile) stmts(i, end int, member bool) []tsStmt {
	var out []tsStmt
	for i < end {
		doc := -1
		for i < end && f.toks[i].kind == tDoc {
			doc = i
			i++
		}
		for i < end && (f.text(i) == ";" || (member && f.text(i) == ",")) {
			i++
		}
		if i >= end {
			break
		}
		if f.toks[i].kind == tDoc {
			continue
		}
		j := f.stmtEnd(i, end, member)
		out = append(out, tsStmt{doc: doc, start: i, end: j})
		if j <= i {
			j = i + 1
		}
		i = j
	}
	return out
}

func (f *tsFile) stmtEnd(i, end int, member bool) int {
	angle := 0 // a "," inside type arguments does not end a member
	for j := i; j < end; j++ {
		t := f.toks[j]
		if j > i && t.nl && !tsContPrev[f.text(j-1)] && !tsContNext[f.text(j)] {
			return j
		}
		if t.kind != tPunct {
			continue
		}
		switch f.text(j) {
		case "(", "[", "{":
			c := f.match[j]
			if c >= end {
				return end
			}
			j = c
		case ";":
			return j
		case "<":
			angle++
		case ">":
			if angle > 0 {
				angle--
			}
		case ",":
			if member && angle == 0 {
				return j
			}
		}
	}
	return end
}

// bodyOpen finds the "{" that opens a class, interface, namespace or enum
// body in [i, end): the first at angle depth 0.
func (f *tsFile) bodyOpen(i, end int) int {
	angle := 0
	for j := i; j < end; j++ {
		switch f.text(j) {
		case "<":
			angle++
		case ">":
			if angle > 0 {
				angle--
			}
		case "(", "[":
			if c := f.match[j]; c < end {
				j = c
			} else {
				return -1
			}
		case "{":
			if angle == 0 {
				return j
			}
			if c := f.match[j]; c < end {
				j = c
			} else {
				return -1
			}
		}
	}
	return -1
}

// fromSpec returns the module specifier after "from" in [i, end).
func (f *tsFile) fromSpec(i, end int) string {
	for j := i; j+1 < end; j++ {
		if f.text(j) == "from" && f.toks[j+1].kind == tString {
			s := f.text(j + 1)
			if len(s) >= 2 {
				return s[1 : len(s)-1]
			}
		}
	}
	return ""
}

// exportList reads `{ a, b as c, type d }` at i: local name → exported name.
func (f *tsFile) exportList(i, end int) [][2]string {
	var m [][2]string
	c := f.match[i]
	if c > end {
		c = end
	}
	for j := i + 1; j < c; j++ {
		if f.text(j) == "type" && isTSName(f.text(j+1)) && f.text(j+1) != "as" {
			j++
		}
		a := f.text(j)
		if !isTSName(a) {
			continue
		}
		b := a
		if f.text(j+1) == "as" {
			b = f.text(j + 2)
			j += 2
		}
		m = append(m, [2]string{a, strings.Trim(b, `"'`)})
	}
	return m
}

// importBindings reads `import D, { a as b } from "x"`: local name →
// the name it has in the module ("default" for D).
func (f *tsFile) importBindings(i, end int) map[string]string {
	m := map[string]string{}
	k := i + 1
	if f.text(k) == "type" && f.text(k+1) != "from" && f.text(k+1) != "," {
		k++
	}
	if n := f.text(k); isTSName(n) && n != "from" {
		m[n] = "default"
		k++
		if f.text(k) == "," {
			k++
		}
	}
	if f.text(k) == "{" {
		for _, p := range f.exportList(k, end) {
			m[p[1]] = p[0]
		}
	}
	return m
}

func isTSName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return s[0] < '0' || s[0] > '9'
}
