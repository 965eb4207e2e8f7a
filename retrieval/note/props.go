package note

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"gopkg.in/yaml.v3"
)

// Prop is one top-level key of a note's front matter, as an editor shows
// it: a text field, a list of values, or (anything else: maps, nested
// lists, anchors) the YAML as written, shown but not edited.
type Prop struct {
	Key string `json:"key"`
	// Kind is "text", "list" or "yaml".
	Kind  string   `json:"kind"`
	Value string   `json:"value,omitempty"`
	List  []string `json:"list,omitempty"`
	// YAML is the key's lines as written in the file.
	YAML string `json:"yaml"`
}

// PropEdit changes one property. Kind "text" sets Value, "list" sets List
// (written as a YAML list), "remove" deletes the key.
type PropEdit struct {
	Key   string   `json:"key"`
	Kind  string   `json:"kind"`
	Value string   `json:"value,omitempty"`
	List  []string `json:"list,omitempty"`
}

// Split returns the front matter block of raw (its lines, delimiters
// included; "" without one) and the body after it, both without a BOM and
// with LF line ends: what an editor shows.
func Split(raw []byte) (frontMatter, body string) {
	l := scan(raw)
	start := len(l.bom)
	end := max(l.fmEnd, start)
	return lf(string(raw[start:end])), lf(string(raw[end:]))
}

// Join returns raw with its body replaced by body, keeping the BOM and the
// front matter byte for byte and writing body with the file's line ends.
// Unlike ReplaceBody, a body that starts with "---" stays body when the
// file has front matter.
func Join(raw []byte, body string) []byte {
	l := scan(raw)
	end := max(l.fmEnd, len(l.bom))
	out := append([]byte(nil), raw[:end]...)
	return append(out, withEOL(body, l.eol)...)
}

func lf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// fmBlock returns the YAML between the delimiters of raw's front matter
// (BOM excluded) and the byte offsets, in raw, of its first line and of
// the closing delimiter line; ok is false without front matter.
func fmBlock(raw []byte) (block string, start, closing int, ok bool) {
	l := scan(raw)
	if l.fmEnd == 0 {
		return "", 0, 0, false
	}
	s := string(raw[len(l.bom):])
	_, c := frontMatter(s)
	first := strings.IndexByte(s, '\n') + 1
	return s[first:c], len(l.bom) + first, len(l.bom) + c, true
}

// keyNode is a top-level key of the front matter with its value and the
// byte range of its lines in the block.
type keyNode struct {
	key, val   *yaml.Node
	start, end int
}

// parseBlock parses a front matter block into its top-level keys.
func parseBlock(block string) ([]keyNode, error) {
	if strings.TrimSpace(block) == "" {
		return nil, nil
	}
	if !ingest.FrontMatterSafe(block) {
		return nil, gnoerr.New(gnoerr.InvalidInput, "the front matter is too large or too deeply nested to edit here")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		return nil, gnoerr.Wrap(gnoerr.InvalidInput, err, "the front matter is not valid YAML")
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, gnoerr.New(gnoerr.InvalidInput, "the front matter is not a map of keys")
	}
	lines := lineStarts(block)
	var out []keyNode
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Line < 1 || k.Line > len(lines) || k.Column != 1 {
			return nil, gnoerr.New(gnoerr.InvalidInput, "the front matter's key %q is not at the start of a line", k.Value)
		}
		start := lines[k.Line-1]
		out = append(out, keyNode{key: k, val: m.Content[i+1], start: start, end: keyEnd(block, start)})
	}
	return out, nil
}

// lineStarts is the byte offset of each line of s.
func lineStarts(s string) []int {
	out := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' && i+1 < len(s) {
			out = append(out, i+1)
		}
	}
	return out
}

// keyEnd is the end of the lines of the key starting at start: its own
// line and the indented or "- " lines under it. A blank line, a comment
// or the next key ends it, so they survive an edit.
func keyEnd(block string, start int) int {
	off := start
	for first := true; off < len(block); first = false {
		nl := strings.IndexByte(block[off:], '\n')
		next := len(block)
		if nl >= 0 {
			next = off + nl + 1
		}
		line := strings.TrimRight(block[off:next], "\r\n")
		if !first && (line == "" || !(line[0] == ' ' || line[0] == '\t' || line == "-" || strings.HasPrefix(line, "- "))) {
			break
		}
		off = next
	}
	return off
}

// Props returns the top-level keys of raw's front matter, in file order.
// Front matter that is not a YAML map gives an error (and no properties):
// the editor then shows it as it is, read-only.
func Props(raw []byte) ([]Prop, error) {
	block, _, _, ok := fmBlock(raw)
	if !ok {
		return nil, nil
	}
	keys, err := parseBlock(block)
	if err != nil {
		return nil, err
	}
	out := make([]Prop, 0, len(keys))
	for _, k := range keys {
		p := Prop{Key: k.key.Value, Kind: "yaml", YAML: lf(block[k.start:k.end])}
		switch v := k.val; v.Kind {
		case yaml.ScalarNode:
			p.Kind = "text"
			if v.Tag != "!!null" {
				p.Value = v.Value
			}
		case yaml.SequenceNode:
			p.Kind = "list"
			p.List = []string{}
			for _, it := range v.Content {
				if it.Kind != yaml.ScalarNode {
					p.Kind, p.List = "yaml", nil
					break
				}
				p.List = append(p.List, it.Value)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// plainKey reports whether key can be written without quotes: a letter,
// digit or underscore, then those or space, '.', '/', '-'. A function, not
// a regexp: compiling the Unicode classes at package init cost every gno
// process 0.35 ms (GODEBUG=inittrace=1), a note edit or not.
func plainKey(key string) bool {
	for i, r := range key {
		switch {
		case unicode.IsLetter(r) || unicode.Is(unicode.N, r) || r == '_':
		case i > 0 && (r == ' ' || r == '.' || r == '/' || r == '-'):
		default:
			return false
		}
	}
	return key != ""
}

// maxPropBytes bounds one property value.
const maxPropBytes = 16 << 10

// SetProps returns raw with the front matter keys of edits set or
// removed, changing no other line: untouched keys, comments, blank lines,
// the BOM and the line ends stay byte for byte. A new key goes last; a
// file without front matter gets a block holding the new keys.
func SetProps(raw []byte, edits []PropEdit) ([]byte, error) {
	out := raw
	for _, e := range edits {
		var err error
		if out, err = setProp(out, e); err != nil {
			return nil, err
		}
	}
	if block, _, _, ok := fmBlock(out); ok {
		if _, err := parseBlock(block); err != nil {
			return nil, err // never write front matter gno cannot read back
		}
	}
	return out, nil
}

func setProp(raw []byte, e PropEdit) ([]byte, error) {
	key := strings.TrimSpace(e.Key)
	if key == "" || len(key) > 200 || strings.ContainsAny(key, "\n\r\x00") || !utf8.ValidString(key) {
		return nil, gnoerr.New(gnoerr.InvalidInput, "invalid property name %q", e.Key)
	}
	l := scan(raw)
	block, start, closing, ok := fmBlock(raw)
	var cur *keyNode
	if ok {
		keys, err := parseBlock(block)
		if err != nil {
			return nil, err
		}
		for i := range keys {
			if keys[i].key.Value == key {
				cur = &keys[i]
			}
		}
	}
	var lines string
	switch e.Kind {
	case "remove":
		if cur == nil {
			return raw, nil
		}
	case "text", "list":
		var err error
		if lines, err = propLines(key, e, cur, l.eol); err != nil {
			return nil, err
		}
	default:
		return nil, gnoerr.New(gnoerr.InvalidInput, "property edit kind must be text, list or remove, not %q", e.Kind)
	}
	var b bytes.Buffer
	switch {
	case !ok:
		if e.Kind == "remove" {
			return raw, nil
		}
		b.Write(l.bom)
		b.WriteString("---" + l.eol + lines + "---" + l.eol)
		b.Write(raw[len(l.bom):])
	case cur == nil:
		b.Write(raw[:closing])
		b.WriteString(lines)
		b.Write(raw[closing:])
	default:
		b.Write(raw[:start+cur.start])
		b.WriteString(lines)
		b.Write(raw[start+cur.end:])
	}
	return b.Bytes(), nil
}

// propLines writes key and its new value as YAML lines ending in eol. A
// list keeps the style it had (flow [a, b] or one "- item" a line, the
// default, as Obsidian writes them).
func propLines(key string, e PropEdit, cur *keyNode, eol string) (string, error) {
	k := key
	if !plainKey(key) {
		k = quoted(key)
	}
	if e.Kind == "text" {
		v := strings.TrimSpace(e.Value)
		if len(v) > maxPropBytes || strings.ContainsAny(v, "\x00") || !utf8.ValidString(v) {
			return "", gnoerr.New(gnoerr.InvalidInput, "property %s: value too long or not text", key)
		}
		if v == "" {
			return k + ":" + eol, nil
		}
		was := ""
		if cur != nil && cur.val.Kind == yaml.ScalarNode && cur.val.Style == 0 {
			was = cur.val.Tag
		}
		return k + ": " + scalar(v, was) + eol, nil
	}
	var items []string
	size := 0
	for _, it := range e.List {
		if !utf8.ValidString(it) || strings.ContainsAny(it, "\x00") {
			return "", gnoerr.New(gnoerr.InvalidInput, "property %s: a value is not text", key)
		}
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, scalar(it, ""))
			size += len(it)
		}
	}
	if size > maxPropBytes || len(items) > 1000 {
		return "", gnoerr.New(gnoerr.InvalidInput, "property %s: list too long", key)
	}
	if len(items) == 0 {
		return k + ": []" + eol, nil
	}
	if cur != nil && cur.val.Kind == yaml.SequenceNode && cur.val.Style&yaml.FlowStyle != 0 {
		return k + ": [" + strings.Join(items, ", ") + "]" + eol, nil
	}
	var b strings.Builder
	b.WriteString(k + ":" + eol)
	for _, it := range items {
		b.WriteString("  - " + it + eol)
	}
	return b.String(), nil
}

// scalar writes v plain when YAML reads it back as the same string (or,
// for a value that was a plain date, number or boolean, as the same kind),
// and double-quoted otherwise.
func scalar(v, was string) string {
	if strings.ContainsAny(v, "\n\r\t") || strings.ContainsAny(v[:1], "-?:,[]{}#&*!|>'\"%@`") ||
		strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(v, ":") {
		return quoted(v)
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(v), &n); err != nil || len(n.Content) != 1 {
		return quoted(v)
	}
	c := n.Content[0]
	if c.Kind != yaml.ScalarNode || c.Value != v {
		return quoted(v)
	}
	if c.Tag == "!!str" || c.Tag == "!!timestamp" || c.Tag == was {
		return v
	}
	return quoted(v)
}

// quoted is a YAML double-quoted scalar (JSON's escapes are YAML's).
func quoted(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimRight(b.String(), "\n")
}
