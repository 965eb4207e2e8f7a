package install

import (
	"bytes"
	"errors"
	"fmt"
	"sort"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlDoc edits gno's table in a TOML config (Codex's config.toml) as
// text: go-toml's parser finds where each table and key/value starts and
// ends, and only the lines of gno's own table are cut or added, so every
// other table, comment and blank line stays byte for byte. go-toml has
// no comment-preserving writer, hence the splicing; every result is
// decoded again and checked before it is written.
type tomlDoc struct {
	f    *format
	path string
	data []byte
	// parts are the byte ranges that define gno's entry, in order.
	parts []span
	// main is the range of the [container.gno] table, if it has one.
	main *span
	// decoded is the whole document, for reading gno's entry.
	decoded map[string]any
}

type span struct{ start, end int }

func parseTOMLDoc(f *format, path string, data []byte) (*tomlDoc, error) {
	d := &tomlDoc{f: f, path: path, data: data}
	if err := toml.Unmarshal(data, &d.decoded); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, gnoerr.New(gnoerr.InvalidInput, "%s is not valid TOML (line %d, column %d: %s); fix or move it first, nothing was written", path, row, col, de.Error())
		}
		return nil, gnoerr.Wrap(gnoerr.InvalidInput, err, "%s is not valid TOML; fix or move it first, nothing was written", path)
	}
	if c, ok := d.decoded[f.container]; ok {
		if _, isTable := c.(map[string]any); !isTable {
			return nil, gnoerr.New(gnoerr.InvalidInput, "%s in %s is not a table; fix it first, nothing was written", f.container, path)
		}
	}
	d.scan()
	return d, nil
}

// scan finds the parts of data that define container.gno: its table and
// sub-tables ([mcp_servers.gno], [mcp_servers.gno.env]) and key/values
// whose full key falls under it (gno.command = ... under [mcp_servers]).
func (d *tomlDoc) scan() {
	p := unstable.Parser{}
	p.Reset(d.data)
	prefix := []string{d.f.container, ServerName}
	var table []string
	var cur *span // the gno (sub-)table being read
	flush := func() {
		if cur != nil {
			d.parts = append(d.parts, *cur)
			cur = nil
		}
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			flush()
			keys, first := keyOf(e)
			table = keys
			if hasPrefix(keys, prefix) {
				start := lineStart(d.data, first)
				cur = &span{start, lineEnd(d.data, first)}
				if len(keys) == 2 && e.Kind == unstable.Table && d.main == nil {
					d.main = &span{start, 0}
				}
			}
		case unstable.KeyValue:
			keys, first := keyOf(e)
			full := append(append([]string{}, table...), keys...)
			end := lineEnd(d.data, int(e.Raw.Offset+e.Raw.Length)-1)
			switch {
			case cur != nil:
				cur.end = end
			case hasPrefix(full, prefix):
				d.parts = append(d.parts, span{lineStart(d.data, first), end})
			}
		}
	}
	flush()
	if d.main != nil {
		for _, s := range d.parts {
			if s.start == d.main.start {
				d.main.end = s.end
			}
		}
	}
}

func keyOf(e *unstable.Node) ([]string, int) {
	var keys []string
	first := -1
	it := e.Key()
	for it.Next() {
		k := it.Node()
		if first < 0 {
			first = int(k.Raw.Offset)
		}
		keys = append(keys, string(k.Data))
	}
	return keys, first
}

func hasPrefix(keys, prefix []string) bool {
	if len(keys) < len(prefix) {
		return false
	}
	for i := range prefix {
		if keys[i] != prefix[i] {
			return false
		}
	}
	return true
}

func lineStart(b []byte, n int) int { return bytes.LastIndexByte(b[:n], '\n') + 1 }

// lineEnd is the offset after the newline ending the line that holds n.
func lineEnd(b []byte, n int) int {
	if i := bytes.IndexByte(b[n:], '\n'); i >= 0 {
		return n + i + 1
	}
	return len(b)
}

func (d *tomlDoc) get() (map[string]any, bool) {
	c, _ := d.decoded[d.f.container].(map[string]any)
	v, ok := c[ServerName]
	if !ok {
		return nil, false
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, true
}

// set replaces gno's parts by a fresh [container.gno] table, where the
// old table was or else at the end of the file.
func (d *tomlDoc) set(fields []field) error {
	block := d.render(fields)
	if d.main != nil {
		d.splice(d.parts, d.main.start, block)
	} else {
		d.splice(d.parts, -1, block)
	}
	return d.check(fields)
}

func (d *tomlDoc) remove() bool {
	if _, ok := d.get(); !ok {
		return false
	}
	d.splice(d.parts, -1, nil)
	return true
}

// render writes the table; string values use TOML basic strings, whose
// escapes are JSON's.
func (d *tomlDoc) render(fields []field) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "[%s.%s]\n", d.f.container, ServerName)
	for _, f := range fields {
		fmt.Fprintf(&b, "%s = %s\n", f.key, inlineJSON(f.value))
	}
	return b.Bytes()
}

// splice cuts the spans out of data, inserting block at offset at (an
// original offset; -1 is the end of the file). A blank line left doubled
// by a cut goes with it.
func (d *tomlDoc) splice(cuts []span, at int, block []byte) {
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].start < cuts[j].start })
	src := d.data
	var out []byte
	pos := 0
	for _, c := range cuts {
		out = append(out, src[pos:c.start]...)
		if c.start == at {
			out = append(out, block...)
			block = nil
		}
		pos = c.end
		// A cut between two blank lines (or at the end, after one) takes
		// one of them with it.
		if c.start != at && endsBlank(out) {
			switch {
			case pos == len(src):
				if len(out) > 0 {
					out = out[:len(out)-1]
				}
			case src[pos] == '\n':
				pos++
			}
		}
	}
	out = append(out, src[pos:]...)
	if block != nil {
		if len(bytes.TrimSpace(out)) > 0 {
			if !bytes.HasSuffix(out, []byte("\n")) {
				out = append(out, '\n')
			}
			if !bytes.HasSuffix(out, []byte("\n\n")) {
				out = append(out, '\n')
			}
		} else {
			out = nil
		}
		out = append(out, block...)
	}
	d.data = out
}

// endsBlank reports whether b ends with an empty line (or is empty).
func endsBlank(b []byte) bool {
	return len(b) == 0 || bytes.HasSuffix(b, []byte("\n\n"))
}

// check decodes the edited text and confirms gno's entry is exactly
// what was meant: a config this editor cannot rewrite safely (gno in an
// inline table, say) is refused rather than written wrong.
func (d *tomlDoc) check(fields []field) error {
	var m map[string]any
	if err := toml.Unmarshal(d.data, &m); err != nil {
		return gnoerr.New(gnoerr.InvalidInput, "cannot add gno to %s safely (%v); add this by hand:\n%s", d.path, err, d.render(fields))
	}
	c, _ := m[d.f.container].(map[string]any)
	got, _ := c[ServerName].(map[string]any)
	if got == nil || !sameEntry(got, fields) || len(got) != len(fields) {
		return gnoerr.New(gnoerr.InvalidInput, "cannot add gno to %s safely (its %s.%s is written in a form gno does not edit); add this by hand:\n%s", d.path, d.f.container, ServerName, d.render(fields))
	}
	return nil
}

// checkRemoved confirms gno is gone after remove.
func (d *tomlDoc) checkRemoved() error {
	var m map[string]any
	err := toml.Unmarshal(d.data, &m)
	if err == nil {
		c, _ := m[d.f.container].(map[string]any)
		if _, still := c[ServerName]; !still {
			return nil
		}
	}
	return gnoerr.New(gnoerr.InvalidInput, "cannot remove gno from %s safely (its %s.%s is written in a form gno does not edit); remove it by hand", d.path, d.f.container, ServerName)
}

func (d *tomlDoc) bytes() []byte { return d.data }
