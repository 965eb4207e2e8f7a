package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/tailscale/hujson"
)

// jsonDoc edits gno's entry in a JSON or JSONC (comments, trailing commas)
// config through hujson's exact syntax tree: every byte outside the gno
// entry, comments and formatting included, is written back as it was
// read. hujson parses and packs; where the new member goes and how it is
// indented is ours, because hujson's Patch would leave the new text
// unformatted and its Format would reformat the user's whole file.
type jsonDoc struct {
	f    *format
	path string
	root hujson.Value
}

func parseJSONDoc(f *format, path string, data []byte) (*jsonDoc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	root, err := hujson.Parse(data)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "hujson: ")
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s is not valid JSON (%s); fix or move it first, nothing was written", path, msg)
	}
	if f.strict && !root.IsStandard() {
		// Standardize blanks comments and trailing commas in place: the
		// first changed byte is the first the client would choke on.
		std := root.Clone()
		std.Standardize()
		packed, at := std.Pack(), 0
		for at < len(packed) && at < len(data) && packed[at] == data[at] {
			at++
		}
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s has a comment or trailing comma (%s), which its client cannot read; fix it first, nothing was written", path, position(data, at))
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s is not a JSON object (line 1); fix or move it first, nothing was written", path)
	}
	d := &jsonDoc{f: f, path: path, root: root}
	if n := countMembers(d.rootObj(), f.container); n > 1 {
		// Clients keep the last of duplicate keys, gno would edit the first.
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s has %d %q keys; keep one by hand first, nothing was written", path, n, f.container)
	}
	if c := d.container(); c != nil {
		obj, ok := c.Value.Value.(*hujson.Object)
		if !ok && c.Value.Value.Kind() != 'n' {
			return nil, gnoerr.New(gnoerr.InvalidInput, "%q in %s is not an object (%s); fix it first, nothing was written", f.container, path, position(data, c.Value.StartOffset))
		}
		if ok {
			if n := countMembers(obj, ServerName); n > 1 {
				return nil, gnoerr.New(gnoerr.InvalidInput, "%s has %d %q entries under %q; keep one by hand first, nothing was written", path, n, ServerName, f.container)
			}
		}
	}
	return d, nil
}

// position is "line L, column C" of byte offset n.
func position(b []byte, n int) string {
	if n > len(b) {
		n = len(b)
	}
	line := 1 + bytes.Count(b[:n], []byte("\n"))
	col := 1 + n - (bytes.LastIndexByte(b[:n], '\n') + 1)
	return fmt.Sprintf("line %d, column %d", line, col)
}

func (d *jsonDoc) rootObj() *hujson.Object { return d.root.Value.(*hujson.Object) }

// container is the member holding the servers, or nil.
func (d *jsonDoc) container() *hujson.ObjectMember {
	return member(d.rootObj(), d.f.container)
}

func member(o *hujson.Object, name string) *hujson.ObjectMember {
	for i := range o.Members {
		if lit, ok := o.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return &o.Members[i]
		}
	}
	return nil
}

func countMembers(o *hujson.Object, name string) int {
	n := 0
	for _, m := range o.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
			n++
		}
	}
	return n
}

func (d *jsonDoc) servers() *hujson.Object {
	if c := d.container(); c != nil {
		o, _ := c.Value.Value.(*hujson.Object)
		return o
	}
	return nil
}

func (d *jsonDoc) get() (map[string]any, bool) {
	s := d.servers()
	if s == nil {
		return nil, false
	}
	m := member(s, ServerName)
	if m == nil {
		return nil, false
	}
	v := m.Value.Clone()
	v.Standardize()
	var out map[string]any
	if json.Unmarshal(v.Pack(), &out) != nil || out == nil {
		// Present but not an object: report it as an entry that differs.
		return map[string]any{}, true
	}
	return out, true
}

// layout is how an object's members are laid out: the indent of its
// members, and whether they sit on lines of their own.
type layout struct {
	indent    string
	multiline bool
}

// unit guesses the file's indent step from the root object's members.
func (d *jsonDoc) unit() string {
	l := membersLayout(d.rootObj(), "")
	if l.multiline && l.indent != "" {
		return l.indent
	}
	return "  "
}

// membersLayout reads the layout of o's members; an empty object gets
// parent's indent plus one step.
func membersLayout(o *hujson.Object, fallback string) layout {
	if len(o.Members) == 0 {
		return layout{indent: fallback, multiline: true}
	}
	ex := string(o.Members[0].Name.BeforeExtra)
	i := strings.LastIndexByte(ex, '\n')
	switch {
	case i < 0:
		return layout{multiline: false}
	case strings.Trim(ex[i+1:], " \t") == "":
		return layout{indent: ex[i+1:], multiline: true}
	default:
		return layout{indent: fallback, multiline: true}
	}
}

// set writes gno's entry, replacing one that exists.
func (d *jsonDoc) set(fields []field) error {
	unit := d.unit()
	root := d.rootObj()
	rootL := membersLayout(root, unit)
	c := d.container()
	if c == nil || c.Value.Value.Kind() == 'n' {
		// Build {"gno": entry} as the container's value.
		inner := rootL.indent + unit
		val := fmt.Sprintf("{\n%s%q: %s\n%s}", inner, ServerName, orderedJSON(fields, inner, unit), rootL.indent)
		if !rootL.multiline {
			val = fmt.Sprintf("{%q: %s}", ServerName, orderedJSON(fields, "", ""))
		}
		v, err := parseValue(val)
		if err != nil {
			return err
		}
		if c != nil {
			c.Value.Value = v.Value
			return nil
		}
		insertMember(root, d.f.container, v, rootL, "")
		return nil
	}
	servers := c.Value.Value.(*hujson.Object)
	l := membersLayout(servers, membersIndent(c, rootL)+unit)
	entry := orderedJSON(fields, l.indent, unit)
	if !l.multiline {
		entry = orderedJSON(fields, "", "")
	}
	v, err := parseValue(string(entry))
	if err != nil {
		return err
	}
	if m := member(servers, ServerName); m != nil {
		m.Value.Value = v.Value
		return nil
	}
	insertMember(servers, ServerName, v, l, membersIndent(c, rootL))
	return nil
}

// membersIndent is the indent of member c's own line.
func membersIndent(c *hujson.ObjectMember, parent layout) string {
	ex := string(c.Name.BeforeExtra)
	if i := strings.LastIndexByte(ex, '\n'); i >= 0 && strings.Trim(ex[i+1:], " \t") == "" {
		return ex[i+1:]
	}
	return parent.indent
}

func parseValue(s string) (hujson.Value, error) {
	v, err := hujson.Parse([]byte(s))
	if err != nil {
		return v, fmt.Errorf("render entry: %w", err)
	}
	v.BeforeExtra = []byte(" ")
	v.AfterExtra = nil
	return v, nil
}

// insertMember adds name: v to o. It goes first (after a leading
// "$schema"), never last: a new last member would have to take the
// comma and the comments that follow the current last one, while a
// member placed before another changes no byte of it.
func insertMember(o *hujson.Object, name string, v hujson.Value, l layout, closeIndent string) {
	before := ""
	if l.multiline {
		before = "\n" + l.indent
	}
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: []byte(before), Value: hujson.String(name)},
		Value: v,
	}
	if len(o.Members) == 0 {
		if strings.Trim(string(o.AfterExtra), " \t\r\n") == "" && l.multiline {
			o.AfterExtra = []byte("\n" + closeIndent)
		}
		o.Members = []hujson.ObjectMember{m}
		return
	}
	pos := 0
	if len(o.Members) > 1 {
		if lit, ok := o.Members[0].Name.Value.(hujson.Literal); ok && lit.String() == "$schema" {
			pos = 1
		}
	}
	// Follow the layout of the member the new one precedes.
	m.Name.BeforeExtra = layoutOf(o.Members[pos].Name.BeforeExtra, l)
	o.Members = append(o.Members[:pos], append([]hujson.ObjectMember{m}, o.Members[pos:]...)...)
}

// layoutOf is the whitespace a new member needs to sit like one whose
// leading extra is ex (which may hold the comments of that member).
func layoutOf(ex []byte, l layout) []byte {
	if !l.multiline {
		if strings.Trim(string(ex), " \t") == "" {
			return append([]byte(nil), ex...)
		}
		return []byte(" ")
	}
	return []byte("\n" + l.indent)
}

// remove deletes gno's entry, and the container too when that leaves it
// empty and without comments (so install then uninstall gives back the
// file as it was).
func (d *jsonDoc) remove() bool {
	c := d.container()
	if c == nil {
		return false
	}
	servers, _ := c.Value.Value.(*hujson.Object)
	if servers == nil || !removeMember(servers, ServerName) {
		return false
	}
	if len(servers.Members) == 0 && strings.Trim(string(servers.AfterExtra), " \t\r\n") == "" {
		removeMember(d.rootObj(), d.f.container)
	}
	return true
}

func removeMember(o *hujson.Object, name string) bool {
	k := -1
	for i, m := range o.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
			k = i
			break
		}
	}
	if k < 0 {
		return false
	}
	n := len(o.Members)
	trailing := o.Members[n-1].Value.AfterExtra != nil
	o.Members = append(o.Members[:k], o.Members[k+1:]...)
	if k == n-1 && len(o.Members) > 0 {
		// The member before becomes the last: keep the file's choice of
		// trailing comma.
		last := &o.Members[len(o.Members)-1].Value
		switch {
		case !trailing && last.AfterExtra != nil:
			o.AfterExtra = append(append([]byte(nil), last.AfterExtra...), o.AfterExtra...)
			last.AfterExtra = nil
		case trailing && last.AfterExtra == nil:
			last.AfterExtra = []byte{}
		}
	}
	return true
}

func (d *jsonDoc) bytes() []byte { return d.root.Pack() }
