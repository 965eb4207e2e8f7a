package apidoc

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// An API item without a doc comment is often documented in its package's
// README instead (chalk's `chalk.level`, p-retry's `AbortError(message)`,
// a Go module's "## func New" section): without that text the item is
// findable by its name only. readmeDocs gives such an item the README
// section that documents it, marked with where it came from, so a how-to
// question can find it and an agent sees the source. An item's own doc is
// never replaced.

// Bounds: a section documents at most maxSectionItems items (a heading
// naming a method shared by many classes must not fill them all), and
// the text added to one unit stays near maxReadmeDocBytes.
const (
	maxSectionItems   = 3
	maxReadmeDocBytes = 1500
	maxReadmeParaText = 700
	maxReadmeExample  = 900
	minReadmeNameLen  = 3
)

// readmeSection is one README section as readmeDocs reads it: its
// heading, the names the heading gives as code, the names its code calls,
// and the text an item documented by it gets.
type readmeSection struct {
	Heading string
	// Named are the items the heading names: the last name of each code
	// form in it ("email" of "`z.string().email()`", "optional" of
	// "### .optional()", "extend" of "## extend"), with its qualifier.
	Named []headingName
	// Calls are the names the section's code blocks call, in order, each
	// once ("parse" of "schema.parse(data)").
	Calls []string
	// Paras is the section's first paragraph(s) as Markdown.
	Paras string
	// Example is the section's first code block, fenced.
	Example string
}

// readmeSections splits a Markdown README into its sections (each heading
// to the next one of any level) and reads what readmeDocs needs of each.
// Sections with neither paragraph nor example are left out.
func readmeSections(src string) []readmeSection {
	b := []byte(src)
	doc := mdParser.Parse(text.NewReader(b))
	var out []readmeSection
	var cur *readmeSection
	seen := map[string]bool{}
	flush := func() {
		if cur != nil && (cur.Paras != "" || cur.Example != "") {
			out = append(out, *cur)
		}
	}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch v := n.(type) {
		case *ast.Heading:
			flush()
			h := cutHeading(string(linesOf(v, b)))
			cur = &readmeSection{Heading: h, Named: headingNames(h)}
			seen = map[string]bool{}
		case *ast.Paragraph:
			if cur == nil || cur.Example != "" {
				continue // only the text before the first example introduces it
			}
			p := strings.TrimSpace(string(linesOf(v, b)))
			if p == "" || strings.HasPrefix(p, "<") || len(cur.Paras) >= maxReadmeParaText/2 {
				continue
			}
			if cur.Paras != "" {
				p = "\n\n" + p
			}
			if len(cur.Paras)+len(p) > maxReadmeParaText {
				if cur.Paras != "" {
					continue
				}
				p = cutSentence(p, maxReadmeParaText)
			}
			cur.Paras += p
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if cur == nil {
				continue
			}
			code := string(linesOf(v, b))
			for _, c := range callNames(code) {
				if !seen[c] {
					seen[c] = true
					cur.Calls = append(cur.Calls, c)
				}
			}
			if cur.Example == "" && strings.TrimSpace(code) != "" {
				lang := ""
				if f, ok := v.(*ast.FencedCodeBlock); ok {
					lang = string(f.Language(b))
				}
				cur.Example = fence(lang, cutLines(code, maxReadmeExample))
			}
		}
	}
	flush()
	return out
}

// linesOf is a block's source text, its lines joined.
func linesOf(n ast.Node, src []byte) []byte {
	var out []byte
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		out = append(out, s.Value(src)...)
	}
	return out
}

var (
	codeSpanRe = regexp.MustCompile("`+([^`]+)`+")
	identRe    = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)
	callRe     = regexp.MustCompile(`(?:([A-Za-z_$][A-Za-z0-9_$]*)\s*\.\s*)?([A-Za-z_$][A-Za-z0-9_$]*)!?\s*\(`)
	// plainCode is a heading that is a code form by itself, without
	// backticks: ".optional()", "extend", "z.string().email()",
	// "pRetry(input, options?)", "func New".
	plainCode = regexp.MustCompile(`^(?:(?:func|fn|def|class|new|type|method|function)\s+)?[.A-Za-z_$][A-Za-z0-9_$.:#]*(?:\(.*\))?[A-Za-z0-9_$.()]*$`)
)

// headingName is a name a heading gives: the last name of a code form
// ("get" of "requests.get(url)"), the name before it (Qual: "requests";
// "" for ".optional()"), and whether the heading is that one plain word,
// not written as code ("## extend", "## Options").
type headingName struct {
	Name, Qual string
	Word       bool
}

// headingNames are the names a heading gives as code: the last name of
// each code span, or of the whole heading when it is a code form itself.
// A heading in words ("Persistent Flags") names nothing.
func headingNames(h string) []headingName {
	var forms []string
	for _, m := range codeSpanRe.FindAllStringSubmatch(h, 8) {
		forms = append(forms, m[1])
	}
	word := false
	if len(forms) == 0 && plainCode.MatchString(h) {
		forms = append(forms, h)
		word = identRe.FindString(h) == h
	}
	var out []headingName
	for _, f := range forms {
		n, q := lastName(f)
		if n != "" && !slices.ContainsFunc(out, func(o headingName) bool { return o.Name == n }) {
			out = append(out, headingName{Name: n, Qual: q, Word: word})
		}
	}
	return out
}

// lastName is the name a code form ends on, its arguments and type
// arguments left out: "email" of "z.string().email()", "AbortError" of
// "AbortError(message)", "level" of "chalk.level"; and its qualifier, the
// name before it ("string", "", "chalk"), a leading keyword ("func New",
// "new Command") not one.
func lastName(form string) (name, qual string) {
	if kw := codeKeywordRe.FindString(form); kw != "" {
		form = form[len(kw):]
	}
	var b strings.Builder
	depth := 0
	for _, r := range form {
		switch r {
		case '(', '<', '[', '{':
			depth++
			continue
		case ')', '>', ']', '}':
			if depth > 0 {
				depth--
			}
			continue
		}
		if depth == 0 {
			b.WriteRune(r)
		}
	}
	ids := identRe.FindAllString(b.String(), -1)
	switch len(ids) {
	case 0:
		return "", ""
	case 1:
		return ids[0], ""
	}
	return ids[len(ids)-1], ids[len(ids)-2]
}

// codeKeywordRe is a declaration keyword a heading's code form may start
// with ("func New", "new Command(name?: string)").
var codeKeywordRe = regexp.MustCompile(`^\s*(?:func|fn|def|class|new|type|method|function)\s+`)

// callNames are the names code calls ("parse" of "schema.parse(x)",
// "select" of "select! {" is not: a macro needs its parenthesis), each
// once, language keywords and the methods of a language's own globals
// (console.error, JSON.stringify, fmt.Println) left out.
func callNames(code string) []string {
	var out []string
	for _, m := range callRe.FindAllStringSubmatch(code, 200) {
		n := m[2]
		if callKeywords[n] || callGlobals[m[1]] || slices.Contains(out, n) {
			continue
		}
		out = append(out, n)
	}
	return out
}

var callKeywords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true,
	"function": true, "return": true, "require": true, "import": true, "typeof": true, "await": true,
	"print": true, "func": true, "fn": true, "def": true, "match": true, "elif": true, "super": true}

var callGlobals = map[string]bool{"console": true, "JSON": true, "Math": true, "Object": true, "Array": true,
	"Promise": true, "process": true, "Number": true, "String": true, "fmt": true, "os": true, "log": true,
	"self": true, "this": true}

// cutSentence cuts a paragraph at the end of its last whole sentence
// within n bytes, else at a word boundary.
func cutSentence(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := s[:n]
	for !utf8.ValidString(head) && len(head) > 0 {
		head = head[:len(head)-1]
	}
	if i := strings.LastIndexAny(head, ".!?"); i >= n/3 && (i+1 == len(head) || unicode.IsSpace(rune(head[i+1]))) {
		return head[:i+1]
	}
	return cutText(s, n)
}

// cutLines keeps a code block's whole lines up to n bytes (at least its
// first line, itself cut at n).
func cutLines(code string, n int) string {
	code = strings.TrimRight(code, "\n")
	if len(code) <= n {
		return code
	}
	cut := strings.LastIndexByte(code[:n], '\n')
	if cut <= 0 {
		return cutText(code, n)
	}
	return code[:cut] + "\n…"
}

// readmeDocs gives each API item without a doc comment the text of the
// README section documenting it: first a section whose heading names it,
// else the first section whose code calls it. Items are matched by their
// last name part, case-sensitively; a section documents at most
// maxSectionItems items, in unit order. Only a Markdown README is read.
func (x *extractor) readmeDocs() {
	var readme *Unit
	for i := range x.docs.Units {
		if u := &x.docs.Units[i]; u.Kind == KindReadme && strings.HasSuffix(u.Path, ".md") {
			readme = u
			break
		}
	}
	if readme == nil {
		return
	}
	byName := map[string][]int{}
	leaves := map[string]int{} // API items per last name, documented or not
	for i, u := range x.docs.Units {
		if u.Kind == KindAPI && u.Symbol != nil {
			leaves[symbolLeaf(u.Symbol.Name)]++
		}
		if u.Kind != KindAPI || u.Symbol == nil || strings.TrimSpace(u.Doc) != "" {
			continue
		}
		switch u.Symbol.Kind {
		case SymPackage, SymReexport, SymNamespace:
			continue
		}
		if n := symbolLeaf(u.Symbol.Name); len(n) >= minReadmeNameLen && n != "default" && n != "constructor" {
			byName[n] = append(byName[n], i)
		}
	}
	if len(byName) == 0 {
		return
	}
	secs := readmeSections(readme.Text)
	from := readme.File
	if from == "" {
		from = "README"
	}
	rules := matchRules{
		callable: func(n string) bool { return leaves[n] == 1 && len(n) > minReadmeNameLen },
		word:     func(n string) bool { return leaves[n] == 1 && !sectionWords[strings.ToLower(n)] },
		shared:   func(n string) bool { return leaves[n] > 1 },
		owns:     func(ui int, qual string) bool { return ownedBy(x.docs.Units[ui].Symbol, x.pkg.Name, qual) },
	}
	for _, m := range matchSections(secs, byName, rules) {
		u := &x.docs.Units[m.unit]
		u.Text = withReadmeDoc(u.Text, u.Symbol, readmeDocText(from, secs[m.section]))
	}
}

// symbolLeaf is a qualified name's last part.
func symbolLeaf(name string) string {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// readmeDocEnd closes the text an item gets from a README section, so a
// reader of the stored unit (the diff's deprecation check) can tell the
// item's own doc from the README's words about it: a README's
// "DeprecationWarning" or "[deprecated]" is not the item's.
const readmeDocEnd = "<!-- /README -->"

// readmeDocText is the text an item gets from a section: where it came
// from, the section's first paragraph(s) and its first example, closed
// by readmeDocEnd.
func readmeDocText(from string, s readmeSection) string {
	var b strings.Builder
	b.WriteString(readmeDocStart + from + " § " + cutHeading(s.Heading) + ":\n\n")
	if s.Paras != "" {
		b.WriteString(s.Paras + "\n\n")
	}
	if s.Example != "" && b.Len()+len(s.Example) <= maxReadmeDocBytes {
		b.WriteString(s.Example)
	}
	return strings.TrimRight(b.String(), "\n") + "\n" + readmeDocEnd + "\n"
}

// readmeDocStart begins the first line of a README block.
const readmeDocStart = "From "

// OwnDoc is an API unit's text without the README sections readmeDocs
// attached to it (each from its "From README… § …:" line to
// readmeDocEnd): the item's heading, signature, own doc and examples.
func OwnDoc(text string) string {
	var b strings.Builder
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		end := -1
		if strings.HasPrefix(line, readmeDocStart) && strings.Contains(line, " § ") && strings.HasSuffix(line, ":") {
			end = strings.Index(rest, "\n"+readmeDocEnd+"\n")
		}
		if end < 0 {
			b.WriteString(text[:min(len(line)+1, len(text))])
			text = rest
			continue
		}
		text = rest[end+len(readmeDocEnd)+2:]
	}
	return b.String()
}

// maxHeadingBytes bounds a heading as readmeDocs keeps it: its first
// line only (a setext heading underlines a whole paragraph, which may
// run to hundreds of lines), cut to this many bytes.
const maxHeadingBytes = 120

// cutHeading is h's first line, its spaces folded, within
// maxHeadingBytes.
func cutHeading(h string) string {
	h, _, _ = strings.Cut(strings.TrimSpace(h), "\n")
	return cutText(strings.Join(strings.Fields(h), " "), maxHeadingBytes-len("…"))
}

// withReadmeDoc puts doc where an item's own doc would be: after its
// heading, kind and signature (apiMarkdown's order), before its examples.
func withReadmeDoc(unitText string, s *Symbol, doc string) string {
	head := "# " + s.Name + "\n\n" + s.Kind + "\n\n"
	if !strings.HasPrefix(unitText, head) {
		return strings.TrimRight(unitText, "\n") + "\n\n" + doc
	}
	at := len(head)
	if s.Signature != "" {
		rest := unitText[at:]
		marker := rest[:len(rest)-len(strings.TrimLeft(rest, "`"))]
		if marker == "" {
			return strings.TrimRight(unitText, "\n") + "\n\n" + doc
		}
		end := strings.Index(rest[len(marker):], "\n"+marker+"\n")
		if end < 0 {
			return strings.TrimRight(unitText, "\n") + "\n\n" + doc
		}
		at += len(marker) + end + len(marker) + 2
		for at < len(unitText) && unitText[at] == '\n' {
			at++
		}
	}
	rest := unitText[at:]
	out := unitText[:at]
	if s.Signature != "" {
		out = strings.TrimRight(out, "\n") + "\n\n"
	}
	out += doc
	if rest != "" {
		out += "\n" + rest
	}
	return out
}
