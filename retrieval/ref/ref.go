// Package ref parses and formats the ways a user names a document:
// gno://collection/path URIs, collection/path, and #docid.
//
// It owns REF syntax; it must not look a document up (the engine does).
package ref

import (
	"fmt"
	"path"
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// Kind says which form a Ref was written in.
type Kind int

const (
	// ByPath names a document by collection and relative path.
	ByPath Kind = iota
	// ByDocID names a document by a prefix of its content hash.
	ByDocID
)

// Ref is a parsed document reference.
type Ref struct {
	Kind       Kind
	Collection string // lowercase; ByPath only
	Path       string // slash-separated, decoded, relative; ByPath only
	DocID      string // lowercase hex without '#'; ByDocID only
}

// Scheme is the URI scheme of gno documents.
const Scheme = "gno://"

// Parse reads any REF form. Paths are cleaned; ".." segments, absolute
// paths and NUL bytes are refused.
func Parse(s string) (Ref, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Ref{}, gnoerr.New(gnoerr.InvalidInput, "empty reference")
	}
	if strings.ContainsRune(s, 0) {
		return Ref{}, gnoerr.New(gnoerr.InvalidPath, "reference contains a NUL byte")
	}
	if strings.HasPrefix(s, "#") {
		id := strings.ToLower(s[1:])
		if len(id) < 6 || len(id) > 64 || !isHex(id) {
			return Ref{}, gnoerr.New(gnoerr.InvalidInput, "invalid docid %q: want # and 6 to 64 hex digits", s)
		}
		return Ref{Kind: ByDocID, DocID: id}, nil
	}
	raw := s
	if strings.HasPrefix(strings.ToLower(s), Scheme) {
		dec, err := unescape(s[len(Scheme):])
		if err != nil {
			return Ref{}, gnoerr.Wrap(gnoerr.InvalidInput, err, "invalid URI %q", s)
		}
		raw = dec
	}
	col, rel, ok := strings.Cut(raw, "/")
	if !ok || col == "" || rel == "" {
		return Ref{}, gnoerr.New(gnoerr.InvalidInput, "invalid reference %q: want gno://collection/path, collection/path or #docid", s)
	}
	clean, err := CleanRel(rel)
	if err != nil {
		return Ref{}, err
	}
	return Ref{Kind: ByPath, Collection: strings.ToLower(col), Path: clean}, nil
}

// CleanRel validates a collection-relative path: no "..", not absolute, no
// NUL, no backslash tricks. It returns the cleaned slash form.
func CleanRel(rel string) (string, error) {
	if rel == "" || strings.ContainsRune(rel, 0) {
		return "", gnoerr.New(gnoerr.InvalidPath, "invalid path %q", rel)
	}
	for _, seg := range strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return "", gnoerr.New(gnoerr.InvalidPath, "path %q escapes its collection (..)", rel)
		}
	}
	c := path.Clean(rel)
	if c == "." || c == "" {
		return "", gnoerr.New(gnoerr.InvalidPath, "invalid path %q", rel)
	}
	// Checked on the cleaned form, so "./C:" cannot slip through.
	if strings.HasPrefix(rel, "/") || strings.HasPrefix(c, "/") || strings.HasPrefix(c, `\`) || isDrive(c) {
		return "", gnoerr.New(gnoerr.InvalidPath, "path %q must be relative", rel)
	}
	return c, nil
}

// isDrive reports a Windows drive prefix such as "C:".
func isDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

// String formats the ref in its canonical form.
func (r Ref) String() string {
	if r.Kind == ByDocID {
		return "#" + r.DocID
	}
	return URI(r.Collection, r.Path)
}

// URI formats gno://collection/path with each segment percent-encoded per
// RFC 3986; '/' separators are kept.
func URI(collection, rel string) string {
	var b strings.Builder
	b.WriteString(Scheme)
	b.WriteString(escape(collection))
	for _, seg := range strings.Split(rel, "/") {
		b.WriteByte('/')
		b.WriteString(escape(seg))
	}
	return b.String()
}

// pchar reports bytes RFC 3986 allows unencoded in a path segment.
func pchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}

func escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if pchar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1:i+3]) {
			return "", fmt.Errorf("bad percent-encoding at byte %d", i)
		}
		b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
		i += 2
	}
	return b.String(), nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
