package postgres

import (
	"fmt"
	"math"
	"strings"
)

// The FTS5 expressions of package query: quoted strings (a trailing *
// makes a prefix), AND, OR, NOT and parentheses; NOT binds tighter than
// AND, AND than OR.

// node is an expression: a phrase, or an operator over its kids.
type node struct {
	op   string // "", "AND", "OR", "NOT"
	kids []*node
	p    *phrase
}

// phrase is one quoted string and its tokens.
type phrase struct {
	text   string
	prefix bool
	tokens []string
}

func (p *phrase) single() bool { return len(p.tokens) == 1 && !p.prefix }

// tsquery renders the phrase: its tokens adjacent, the last a prefix
// when p is one.
func (p *phrase) tsquery() string {
	parts := make([]string, len(p.tokens))
	for i, t := range p.tokens {
		parts[i] = quoteLexeme(t)
		if p.prefix && i == len(p.tokens)-1 {
			parts[i] += ":*"
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " <-> ") + ")"
}

// freq is the phrase's weighted frequency in a row whose query words
// have the frequencies f (see the approximations above).
func (p *phrase) freq(f map[string]float64) float64 {
	if len(p.tokens) == 0 {
		return 0
	}
	least := math.Inf(1)
	for i, t := range p.tokens {
		v := f[t]
		if p.prefix && i == len(p.tokens)-1 {
			v = 0
			for lex, x := range f {
				if strings.HasPrefix(lex, t) {
					v += x
				}
			}
		}
		least = min(least, v)
	}
	return least
}

// words reports whether every phrase of e is a single word.
func (e *node) words() bool {
	for _, p := range e.phrases(nil) {
		if !p.single() {
			return false
		}
	}
	return true
}

// plainOr reports whether e is single words ORed (no phrase of several
// words, no prefix, no AND or NOT).
func (e *node) plainOr() bool {
	if e.p != nil {
		return e.p.single()
	}
	if e.op != "OR" {
		return false
	}
	for _, k := range e.kids {
		if !k.plainOr() {
			return false
		}
	}
	return true
}

// phrases lists e's phrases in order, each occurrence once: FTS5's BM25
// sums over them all.
func (e *node) phrases(out []*phrase) []*phrase {
	if e.p != nil {
		return append(out, e.p)
	}
	for _, k := range e.kids {
		out = k.phrases(out)
	}
	return out
}

// tsquery renders e; ok is false when e can match nothing (a phrase with
// no tokens matches no row in FTS5).
func (e *node) tsquery() (string, bool) {
	if e.p != nil {
		return e.p.tsquery(), len(e.p.tokens) > 0
	}
	switch e.op {
	case "NOT":
		l, ok := e.kids[0].tsquery()
		if !ok {
			return "", false
		}
		r, ok := e.kids[1].tsquery()
		if !ok {
			return l, true
		}
		return "(" + l + " & !" + r + ")", true
	case "AND":
		var parts []string
		for _, k := range e.kids {
			s, ok := k.tsquery()
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return "(" + strings.Join(parts, " & ") + ")", true
	default: // OR
		var parts []string
		for _, k := range e.kids {
			if s, ok := k.tsquery(); ok {
				parts = append(parts, s)
			}
		}
		if len(parts) == 0 {
			return "", false
		}
		return "(" + strings.Join(parts, " | ") + ")", true
	}
}

// parseExpr parses an FTS5 expression of package query.
func parseExpr(s string) (*node, error) {
	p := &exprParser{s: s}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i < len(p.s) {
		return nil, fmt.Errorf("expression %q: unexpected %q at %d", s, p.s[p.i:], p.i)
	}
	return e, nil
}

type exprParser struct {
	s string
	i int
}

func (p *exprParser) skip() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// keyword consumes the operator kw when it comes next.
func (p *exprParser) keyword(kw string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], kw) {
		end := p.i + len(kw)
		if end == len(p.s) || p.s[end] == ' ' || p.s[end] == '(' || p.s[end] == '"' {
			p.i = end
			return true
		}
	}
	return false
}

func (p *exprParser) binary(op string, next func() (*node, error)) (*node, error) {
	l, err := next()
	if err != nil {
		return nil, err
	}
	kids := []*node{l}
	for p.keyword(op) {
		r, err := next()
		if err != nil {
			return nil, err
		}
		if op == "NOT" {
			// NOT is binary and left-associative: a NOT b NOT c.
			kids = []*node{{op: "NOT", kids: []*node{kids[0], r}}}
			continue
		}
		kids = append(kids, r)
	}
	if len(kids) == 1 {
		return kids[0], nil
	}
	return &node{op: op, kids: kids}, nil
}

func (p *exprParser) or() (*node, error)  { return p.binary("OR", p.and) }
func (p *exprParser) and() (*node, error) { return p.binary("AND", p.not) }
func (p *exprParser) not() (*node, error) { return p.binary("NOT", p.primary) }

func (p *exprParser) primary() (*node, error) {
	p.skip()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("expression %q ends early", p.s)
	}
	switch p.s[p.i] {
	case '(':
		p.i++
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.skip(); p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, fmt.Errorf("expression %q: a ( is not closed", p.s)
		}
		p.i++
		return e, nil
	case '"':
		var b strings.Builder
		p.i++
		for {
			j := strings.IndexByte(p.s[p.i:], '"')
			if j < 0 {
				return nil, fmt.Errorf("expression %q: a string is not closed", p.s)
			}
			b.WriteString(p.s[p.i : p.i+j])
			p.i += j + 1
			if p.i < len(p.s) && p.s[p.i] == '"' {
				b.WriteByte('"')
				p.i++
				continue
			}
			break
		}
		ph := &phrase{text: b.String()}
		if p.i < len(p.s) && p.s[p.i] == '*' {
			ph.prefix = true
			p.i++
		}
		return &node{p: ph}, nil
	}
	return nil, fmt.Errorf("expression %q: unexpected %q at %d", p.s, p.s[p.i:], p.i)
}
