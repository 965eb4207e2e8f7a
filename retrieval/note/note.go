// Package note edits a user's note files safely: paths stay inside their
// collection root (Path, the one path rule: no "..", no absolute paths, no
// hidden segments, no symlink leading out),
// writes are atomic (a temp file in the same folder, fsync, rename) with
// the file's mode kept, and an edit changes only the bytes it must: front
// matter formatting, line ends (LF or CRLF), a BOM and the trailing newline
// survive.
//
// It owns Path, the one answer to "is this path safe inside this root",
// and the bytes of a note; it must not touch the index (the engine's Notes
// part re-indexes what it wrote).
package note

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/ref"
)

// Mode says what a path must name: Path's checks of the target.
type Mode int

const (
	// Existing is a regular file that exists (an edit, a delete, the
	// source of a rename); a symlink or a folder is refused.
	Existing Mode = iota
	// Absent is a file that must not exist yet (the target of a rename).
	Absent
	// Either is a file that may exist, then as a regular file (a capture,
	// which creates or, when asked, replaces).
	Either
)

// sensitiveNames are path segments gno never writes under, on top of
// every hidden (dot) segment such as .ssh, .gnupg, .git or .env.
var sensitiveNames = map[string]bool{"node_modules": true, "__pycache__": true}

// maxSegmentBytes is the longest file or folder name most file systems take.
const maxSegmentBytes = 255

// Clean is the part of Path that needs no file system: it returns rel
// cleaned, or why it is refused. A caller that must know the clean path
// before choosing a file name (capture adds ".md") uses it, then Path.
func Clean(rel string) (string, error) {
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", gnoerr.New(gnoerr.InvalidPath, "path %q is absolute; give a path inside the collection", rel)
	}
	clean, err := ref.CleanRel(rel)
	if err != nil {
		return "", err
	}
	if strings.ContainsRune(rel, '\\') {
		return "", gnoerr.New(gnoerr.InvalidPath, "path %q: use / as the separator", rel)
	}
	for _, seg := range strings.Split(clean, "/") {
		switch {
		case strings.HasPrefix(seg, "."):
			return "", gnoerr.New(gnoerr.InvalidPath, "path %q: hidden or sensitive segment %q is not allowed", rel, seg)
		case sensitiveNames[strings.ToLower(seg)]:
			return "", gnoerr.New(gnoerr.InvalidPath, "path %q: sensitive segment %q is not allowed", rel, seg)
		case len(seg) > maxSegmentBytes:
			return "", gnoerr.New(gnoerr.InvalidPath, "path %q: segment longer than %d bytes", rel, maxSegmentBytes)
		case strings.IndexFunc(seg, func(r rune) bool { return unicode.IsControl(r) || strings.ContainsRune(`:*?"<>|`, r) }) >= 0:
			return "", gnoerr.New(gnoerr.InvalidPath, "path %q: segment %q has a character file systems refuse", rel, seg)
		}
	}
	return clean, nil
}

// Path is gno's one answer to "is this path safe inside this root": it
// returns the absolute path of rel inside root when rel is a clean
// relative path (no "..", not absolute, "/" as the separator, no NUL or
// control characters, no character file systems refuse, no hidden or
// sensitive segment, no segment over 255 bytes), no symlink on the way
// leads out of root, the deepest existing folder is a folder, and the
// target is what mode asks for. Every write of a user's file (capture,
// note update, delete and rename) goes through it.
func Path(root, rel string, mode Mode) (string, error) {
	clean, err := Clean(rel)
	if err != nil {
		return "", err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", gnoerr.Wrap(gnoerr.PathNotFound, err, "collection folder %s", root)
	}
	abs := filepath.Join(realRoot, filepath.FromSlash(clean))
	// The deepest existing folder must be a folder and resolve inside the
	// root, so no symlink leads the write outside the collection.
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			if fi, err := os.Stat(real); err == nil && !fi.IsDir() {
				return "", gnoerr.New(gnoerr.InvalidPath, "%s is a file, not a folder", dir)
			}
			if r, err := filepath.Rel(realRoot, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return "", gnoerr.New(gnoerr.InvalidPath, "%s leads outside the collection folder (symlink)", rel)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || dir == realRoot {
			return "", gnoerr.Wrap(gnoerr.InvalidPath, err, "check %s", rel)
		}
	}
	fi, err := os.Lstat(abs)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", gnoerr.Wrap(gnoerr.InvalidPath, err, "check %s", rel)
	case mode == Existing && !exists:
		return "", gnoerr.New(gnoerr.NotFound, "%s does not exist", rel)
	case mode == Absent && exists:
		return "", gnoerr.New(gnoerr.Conflict, "%s already exists", rel)
	case exists && !fi.Mode().IsRegular():
		return "", gnoerr.New(gnoerr.InvalidPath, "%s is not a regular file (symlink or folder); gno edits regular files only", rel)
	}
	return abs, nil
}

// Write replaces the file at abs atomically, keeping its mode.
func Write(abs string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(abs); err == nil {
		mode = fi.Mode().Perm()
	}
	return config.WriteFileAtomic(abs, data, mode)
}

// layout is how a file is written: its BOM, line end and front matter.
type layout struct {
	bom      []byte
	eol      string
	fmEnd    int  // offset past the closing front matter line (0: none)
	trailing bool // the file ends with a line end
}

func scan(raw []byte) layout {
	var l layout
	if bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		l.bom = raw[:3]
	}
	body := raw[len(l.bom):]
	l.eol = "\n"
	if i := bytes.IndexByte(body, '\n'); i > 0 && body[i-1] == '\r' {
		l.eol = "\r\n"
	}
	if end, _ := frontMatter(string(body)); end > 0 {
		l.fmEnd = len(l.bom) + end
	}
	l.trailing = bytes.HasSuffix(raw, []byte("\n"))
	return l
}

// frontMatter returns the offset past a leading front matter block and
// the offset of its closing line; 0 when there is none.
func frontMatter(s string) (end, closing int) {
	first, _, ok := strings.Cut(s, "\n")
	if !ok || strings.TrimRight(first, "\r") != "---" {
		return 0, 0
	}
	off := len(first) + 1
	for off <= len(s) {
		nl := strings.IndexByte(s[off:], '\n')
		line := s[off:]
		if nl >= 0 {
			line = s[off : off+nl]
		}
		if t := strings.TrimRight(line, " \t\r"); t == "---" || t == "..." {
			if nl < 0 {
				return len(s), off
			}
			return off + nl + 1, off
		}
		if nl < 0 {
			return 0, 0
		}
		off += nl + 1
	}
	return 0, 0
}

// withEOL converts LF line ends of s to eol.
func withEOL(s, eol string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if eol == "\n" {
		return s
	}
	return strings.ReplaceAll(s, "\n", eol)
}

// ReplaceBody returns raw with its body (everything after the front
// matter) replaced by content. Content that brings its own front matter
// replaces the whole file. The file's BOM and line ends are kept, and its
// trailing line end when it had one.
func ReplaceBody(raw []byte, content string) []byte {
	l := scan(raw)
	content = withEOL(content, l.eol)
	if l.trailing && content != "" && !strings.HasSuffix(content, l.eol) {
		content += l.eol
	}
	var b bytes.Buffer
	if end, _ := frontMatter(content); end > 0 || l.fmEnd == 0 {
		b.Write(l.bom)
	} else {
		b.Write(raw[:l.fmEnd])
	}
	b.WriteString(content)
	return b.Bytes()
}

// SetTags returns raw with its front-matter tags replaced by tags (a flow
// list on one line), changing no other line. A file without front matter
// gets a block holding only the tags.
func SetTags(raw []byte, tags []string) []byte {
	l := scan(raw)
	list := "tags: [" + strings.Join(quoteTags(tags), ", ") + "]" + l.eol
	if l.fmEnd == 0 {
		var b bytes.Buffer
		b.Write(l.bom)
		b.WriteString("---" + l.eol + list + "---" + l.eol)
		b.Write(raw[len(l.bom):])
		return b.Bytes()
	}
	s := string(raw[len(l.bom):])
	_, closing := frontMatter(s)
	first := strings.IndexByte(s, '\n') + 1
	// Find a top-level "tags:" key and the indented or "- " lines under it.
	start, end := -1, -1
	for off := first; off < closing; {
		nl := strings.IndexByte(s[off:], '\n')
		next := off + nl + 1
		line := s[off : off+nl]
		if start >= 0 && end < 0 {
			if t := strings.TrimLeft(line, " \t"); len(line) > 0 && (line[0] == ' ' || line[0] == '\t' || strings.HasPrefix(t, "- ") || t == "-" || strings.TrimSpace(line) == "") {
				off = next
				continue
			}
			end = off
		}
		if start < 0 && (strings.HasPrefix(line, "tags:") || strings.HasPrefix(line, "tags :")) {
			start = off
		}
		off = next
	}
	if start >= 0 && end < 0 {
		end = closing
	}
	if start < 0 {
		start, end = closing, closing
	}
	var b bytes.Buffer
	b.Write(l.bom)
	b.WriteString(s[:start])
	b.WriteString(list)
	b.WriteString(s[end:])
	return b.Bytes()
}

func quoteTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if strings.ContainsAny(t, ",[]{}:#'\"&*!|>%@`") || strings.HasPrefix(t, "-") {
			t = `"` + strings.ReplaceAll(strings.ReplaceAll(t, `\`, `\\`), `"`, `\"`) + `"`
		}
		out = append(out, t)
	}
	return out
}

// RewriteLinks returns raw with the targets of the chosen links replaced;
// every other byte is kept. choose sees each link of the file and returns
// its new written target, or false to leave it.
func RewriteLinks(raw []byte, choose func(l links.Link) (string, bool)) ([]byte, int) {
	off := 0
	if bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		off = 3
	}
	text := string(raw[off:])
	var b strings.Builder
	last, n := 0, 0
	for _, l := range links.Extract(text) {
		t, ok := choose(l)
		if !ok {
			continue
		}
		b.WriteString(text[last:l.TargetStart])
		b.WriteString(t)
		last = l.TargetEnd
		n++
	}
	if n == 0 {
		return raw, 0
	}
	b.WriteString(text[last:])
	return append(append([]byte(nil), raw[:off]...), b.String()...), n
}

// NewTarget writes the target of link l so that it names newRel, a note
// moved from oldRel, from a note at srcRel: wikilinks keep their style (a
// bare name stays a bare name, a path becomes the new path; ".md" kept or
// left off as before); Markdown links get the path relative to the source,
// escaped as a URL path; gno:// links the new URI.
func NewTarget(l links.Link, srcRel, col, newRel string) string {
	switch l.Kind {
	case links.URI:
		return ref.URI(col, newRel)
	case links.Markdown:
		rel := RelPath(path.Dir(srcRel), newRel)
		if strings.HasPrefix(l.Target, "/") {
			rel = "/" + newRel
		}
		return (&url.URL{Path: rel}).EscapedPath()
	}
	t := newRel
	if !strings.HasSuffix(strings.ToLower(l.Target), path.Ext(newRel)) || path.Ext(newRel) == "" {
		t = strings.TrimSuffix(newRel, path.Ext(newRel))
	}
	if !strings.Contains(strings.Trim(l.Target, "/"), "/") {
		t = path.Base(t)
	}
	return t
}

// RelPath is the path of target relative to folder dir (both slash paths
// from the collection root).
func RelPath(dir, target string) string {
	if dir == "." || dir == "" {
		return target
	}
	from := strings.Split(dir, "/")
	to := strings.Split(target, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	return strings.Repeat("../", len(from)-i) + strings.Join(to[i:], "/")
}

// Remove deletes the note file at abs.
func Remove(abs string) error {
	if err := os.Remove(abs); err != nil {
		return fmt.Errorf("delete %s: %w", abs, err)
	}
	return nil
}

// Move renames the note at from to to (creating folders), refusing to
// replace an existing file.
func Move(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return fmt.Errorf("create folder for %s: %w", to, err)
	}
	if _, err := os.Lstat(to); err == nil {
		return gnoerr.New(gnoerr.Conflict, "%s already exists", to)
	}
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("rename %s: %w", from, err)
	}
	return nil
}
