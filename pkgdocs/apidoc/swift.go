package apidoc

import (
	"path"
	"strings"
)

// swiftAPI reads the public and open declarations of a Swift package's
// sources (Sources/, else every .swift file outside Tests/ and
// Package.swift), with their /// and /** */ docs.
func swiftAPI(x *extractor) error {
	dir := "Sources"
	if st, err := x.root.Stat(dir); err != nil || !st.IsDir() {
		dir = "."
	}
	skip := func(d string) bool {
		b := path.Base(d)
		return strings.HasPrefix(b, ".") || b == "Tests" || b == "Examples" || b == "Example" || b == "Benchmarks" || b == "Package.swift"
	}
	x.walk(dir, skip, func(name string) {
		if !strings.HasSuffix(name, ".swift") || path.Base(name) == "Package.swift" || strings.HasPrefix(path.Base(name), "Package@") {
			return
		}
		if src, ok := x.source(name); ok {
			swiftFile(x, name, src)
		}
	})
	return nil
}

type swiftParser struct {
	x     *extractor
	name  string
	src   string
	toks  []tok
	match []int
	li    lineIndex
}

func (p *swiftParser) text(i int) string {
	if i < 0 || i >= len(p.toks) {
		return ""
	}
	return p.src[p.toks[i].start:p.toks[i].end]
}

func swiftFile(x *extractor, name, src string) {
	all := lex(src, langSwift)
	toks := all[:0] // filtered in place: the write index never passes the read index
	for _, t := range all {
		if t.kind != tComment {
			toks = append(toks, t)
		}
	}
	p := &swiftParser{x: x, name: name, src: src, toks: toks, match: matchBrackets(src, toks), li: newLineIndex(src)}
	p.scope(0, len(toks), "", false, false, 0)
}

var swiftMods = map[string]bool{
	"public": true, "open": true, "internal": true, "fileprivate": true, "private": true, "package": true,
	"static": true, "final": true, "override": true, "mutating": true, "nonmutating": true, "required": true,
	"convenience": true, "dynamic": true, "lazy": true, "weak": true, "unowned": true, "optional": true,
	"indirect": true, "nonisolated": true, "prefix": true, "postfix": true, "infix": true, "distributed": true,
	"consuming": true, "borrowing": true,
}

var swiftKinds = map[string]string{
	"func": SymFunc, "init": SymConstructor, "subscript": SymMethod, "class": SymClass, "struct": SymStruct,
	"enum": SymEnum, "protocol": SymProtocol, "extension": SymExtension, "actor": SymClass, "var": SymVar,
	"let": SymConst, "typealias": SymType, "case": SymConst, "associatedtype": SymType, "macro": SymMacro,
}

// swiftCont: a line starting with one of these continues the declaration.
var swiftContNext = map[string]bool{
	"{": true, "->": true, ".": true, "where": true, "throws": true, "rethrows": true, "async": true, ":": true,
	"&": true, "=": true, ",": true, ">": true, "?": true, "!": true,
}

var swiftContPrev = map[string]bool{
	"->": true, ",": true, ":": true, "=": true, "&": true, "<": true, "where": true, ".": true,
}

const maxSwiftDepth = 16

// scope reads declarations in tokens [i, end). owner qualifies names;
// allPublic: members of a public protocol, public extension or public
// enum's cases.
func (p *swiftParser) scope(i, end int, owner string, allPublic, enum bool, depth int) {
	if depth > maxSwiftDepth {
		return
	}
	for i < end && p.x.ctx.Err() == nil {
		var docs []string
		for i < end && p.toks[i].kind == tDoc {
			docs = append(docs, rustDocText(p.text(i)))
			i++
		}
		if i >= end {
			break
		}
		// #if / #endif and the like take their line
		if p.text(i) == "#" && i+1 < end && p.toks[i+1].kind == tIdent {
			i += 2
			for i < end && !p.toks[i].nl {
				i++
			}
			continue
		}
		start := i
		// attributes: @name or @name(...)
		for i < end && p.text(i) == "@" {
			i += 2
			if i < end && p.text(i) == "(" && !p.toks[i].nl {
				i = min(p.match[i], end) + 1
			}
		}
		public := allPublic
		private := false
		for i < end && (swiftMods[p.text(i)] || (p.text(i) == "class" && swiftKinds[p.text(i+1)] != "")) {
			switch p.text(i) {
			case "public", "open":
				public = true
			case "private", "fileprivate", "internal":
				private = true
			}
			i++
			if p.text(i) == "(" { // private(set)
				i = min(p.match[i], end) + 1
			}
		}
		if private && !strings.Contains(p.src[p.toks[start].start:p.toks[min(i, len(p.toks)-1)].start], "(set)") {
			public = false
		}
		kw := p.text(i)
		kind, isDecl := swiftKinds[kw]
		open, next := p.declEnd(i, end, kw)
		if next <= start {
			next = start + 1
		}
		if kw == "case" && enum {
			public = true // a public enum's cases are
		}
		if !isDecl || !public {
			i = next
			continue
		}
		name := p.declName(i + 1)
		if kw == "init" || kw == "subscript" {
			name = kw
		}
		if name == "" {
			i = next
			continue
		}
		full := name
		if owner != "" {
			full = owner + "." + name
		}
		if owner != "" && kind == SymFunc {
			kind = SymMethod
		}
		if owner != "" && (kind == SymVar || kind == SymConst) && kw != "case" {
			kind = SymProperty
		}
		stop := next
		if open >= 0 {
			stop = open
		}
		if kw == "var" || kw == "let" {
			// the initial value is left out when a type is written
			if a := p.assign(i, stop); a >= 0 && p.hasType(i, a) {
				stop = a
			}
		}
		sig := p.sig(start, stop)
		doc := strings.Join(docs, "\n")
		line := p.li.line(p.toks[start].start)
		if kw == "extension" {
			// an extension documents its members, not itself
			if open >= 0 {
				p.scope(open+1, min(p.match[open], end), name, strings.Contains(sig, "public"), false, depth+1)
			}
			i = next
			continue
		}
		s := Symbol{Name: full, Kind: kind, Signature: sig}
		if !p.x.addAPI("swift", s, doc, p.name, line, nil) {
			return
		}
		docExamples(p.x, "swift", full, doc, p.name, line)
		if open >= 0 && (kw == "class" || kw == "struct" || kw == "enum" || kw == "protocol" || kw == "actor") {
			p.scope(open+1, min(p.match[open], end), full, kw == "protocol", kw == "enum", depth+1)
		}
		i = next
	}
}

// declName is the declared name at i: an identifier, `name`, or an
// operator's symbols.
func (p *swiftParser) declName(i int) string {
	if i >= len(p.toks) {
		return ""
	}
	if p.toks[i].kind == tIdent {
		n := strings.Trim(p.text(i), "`")
		// extension Outer.Inner
		for p.text(i+1) == "." && i+2 < len(p.toks) && p.toks[i+2].kind == tIdent {
			n += "." + p.text(i+2)
			i += 2
		}
		return n
	}
	var b strings.Builder
	for ; i < len(p.toks) && p.toks[i].kind == tPunct && b.Len() < 8; i++ {
		t := p.text(i)
		if t == "(" || t == "<" && b.Len() > 0 || t == "{" {
			break
		}
		b.WriteString(t)
	}
	return b.String()
}

// declEnd finds a declaration's body "{" (or -1) and the token after it.
// Without a body the declaration ends at a newline that does not
// continue it.
func (p *swiftParser) declEnd(i, end int, kw string) (open, next int) {
	angle := 0
	for j := i; j < end; j++ {
		t := p.text(j)
		if j > i && p.toks[j].nl && angle == 0 && !swiftContNext[t] && !swiftContPrev[p.text(j-1)] {
			return -1, j
		}
		switch t {
		case "<":
			angle++
		case ">":
			if angle > 0 {
				angle--
			}
		case "(", "[":
			if c := p.match[j]; c < end {
				j = c
			} else {
				return -1, end
			}
		case "{":
			c := p.match[j]
			if c >= end {
				return j, end
			}
			if kw == "var" || kw == "let" || kw == "case" || kw == "typealias" {
				if kw == "var" && p.assign(i, j) < 0 {
					return j, c + 1 // a computed property: its accessors are not the signature
				}
				j = c // a closure value
				continue
			}
			return j, c + 1
		case ";":
			return -1, j + 1
		}
	}
	return -1, end
}

// hasType reports a ":" type annotation in [i, stop).
func (p *swiftParser) hasType(i, stop int) bool {
	for j := i; j < stop; j++ {
		if p.text(j) == ":" {
			return true
		}
	}
	return false
}

// assign returns a stored property's "=" at depth 0 in [i, stop), or -1.
func (p *swiftParser) assign(i, stop int) int {
	for j := i; j < stop; j++ {
		switch p.text(j) {
		case "(", "[", "{":
			if c := p.match[j]; c < stop {
				j = c
			} else {
				return -1
			}
		case "=":
			return j
		}
	}
	return -1
}

func (p *swiftParser) sig(i, stop int) string {
	if stop > len(p.toks) {
		stop = len(p.toks)
	}
	if stop <= i {
		return ""
	}
	return sigText(p.src, p.toks[i].start, p.toks[stop-1].end)
}
