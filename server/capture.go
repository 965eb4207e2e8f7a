package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ref"
)

// sensitiveNames are path segments gno_capture never writes under, on top
// of every hidden (dot) segment such as .ssh, .gnupg, .git or .env.
var sensitiveNames = map[string]bool{"node_modules": true, "__pycache__": true}

// maxSegmentBytes is the longest file or folder name most file systems take.
const maxSegmentBytes = 255

// captured is where a capture was written.
type captured struct {
	rel, abs string
	existed  bool
}

// writeCapture writes content into collection col and returns where. With
// relPath empty, the file name comes from title, then the first heading,
// then the time, and never replaces an existing file; an explicit path
// replaces one only with overwrite.
func writeCapture(col config.Collection, relPath, title, content string, overwrite bool, now time.Time) (*captured, error) {
	generated := strings.TrimSpace(relPath) == ""
	var rel string
	if generated {
		base := slug(title)
		if base == "" {
			base = slug(firstHeading(content))
		}
		if base == "" {
			base = "note-" + now.UTC().Format("20060102-150405")
		}
		rel = base + ".md"
	} else {
		var err error
		if rel, err = capturePath(relPath); err != nil {
			return nil, err
		}
	}
	if !indexable(col, rel) {
		return nil, gnoerr.New(gnoerr.InvalidPath, "path %q does not match collection %s's patterns (%s), so it would not be indexed",
			rel, col.Name, strings.Join(col.Patterns(), ", "))
	}
	root, err := filepath.EvalSymlinks(col.Path)
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.PathNotFound, err, "collection folder %s", col.Path)
	}
	if err := checkParent(root, path.Dir(rel)); err != nil {
		return nil, err
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	existed, err := checkTarget(abs)
	if err != nil {
		return nil, err
	}
	if existed && !overwrite {
		if !generated {
			return nil, gnoerr.New(gnoerr.Conflict, "%s already exists in collection %s; pass overwrite: true to replace it", rel, col.Name)
		}
		stem := strings.TrimSuffix(rel, ".md")
		for i := 2; existed; i++ {
			if i > 1000 {
				return nil, gnoerr.New(gnoerr.Conflict, "too many files named %s-N.md", stem)
			}
			rel = fmt.Sprintf("%s-%d.md", stem, i)
			abs = filepath.Join(root, filepath.FromSlash(rel))
			if existed, err = checkTarget(abs); err != nil {
				return nil, err
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("create folder for %s: %w", rel, err)
	}
	if err := config.WriteFileAtomic(abs, []byte(content), 0o644); err != nil {
		return nil, err
	}
	return &captured{rel: rel, abs: abs, existed: existed}, nil
}

// capturePath validates a caller-given path: relative, no "..", no NUL or
// control characters, no hidden or sensitive segments. A path without an
// extension gets ".md".
func capturePath(p string) (string, error) {
	rel, err := ref.CleanRel(strings.TrimSpace(p))
	if err != nil {
		return "", err
	}
	if strings.ContainsRune(p, '\\') {
		return "", gnoerr.New(gnoerr.InvalidPath, "path %q: use / as the separator", p)
	}
	for _, seg := range strings.Split(rel, "/") {
		switch {
		case strings.HasPrefix(seg, "."):
			return "", gnoerr.New(gnoerr.InvalidPath, "path %q: hidden or sensitive segment %q is not allowed", p, seg)
		case sensitiveNames[strings.ToLower(seg)]:
			return "", gnoerr.New(gnoerr.InvalidPath, "path %q: sensitive segment %q is not allowed", p, seg)
		case len(seg) > maxSegmentBytes:
			return "", gnoerr.New(gnoerr.InvalidPath, "path %q: segment longer than %d bytes", p, maxSegmentBytes)
		case strings.IndexFunc(seg, func(r rune) bool { return unicode.IsControl(r) || strings.ContainsRune(`:*?"<>|`, r) }) >= 0:
			return "", gnoerr.New(gnoerr.InvalidPath, "path %q: segment %q has a character file systems refuse", p, seg)
		}
	}
	if path.Ext(rel) == "" {
		rel += ".md"
	}
	return rel, nil
}

// indexable reports whether a sync of col would pick up rel.
func indexable(col config.Collection, rel string) bool {
	in := false
	for _, g := range col.Patterns() {
		if ok, _ := doublestar.Match(g, rel); ok {
			in = true
			break
		}
	}
	if !in {
		return false
	}
	for _, g := range col.Exclude {
		if ok, _ := doublestar.Match(g, rel); ok {
			return false
		}
	}
	return true
}

// checkParent makes sure the deepest existing folder on the way to dir
// resolves inside root, so no symlink leads the write outside the
// collection.
func checkParent(root, dir string) error {
	p := filepath.Join(root, filepath.FromSlash(dir))
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			fi, err := os.Stat(real)
			if err == nil && !fi.IsDir() {
				return gnoerr.New(gnoerr.InvalidPath, "%s is a file, not a folder", p)
			}
			r, err := filepath.Rel(root, real)
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return gnoerr.New(gnoerr.InvalidPath, "%s leads outside the collection folder (symlink)", p)
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return gnoerr.Wrap(gnoerr.InvalidPath, err, "check %s", p)
		}
		if p == root {
			return gnoerr.Wrap(gnoerr.PathNotFound, err, "collection folder %s", root)
		}
		p = filepath.Dir(p)
	}
}

// checkTarget reports whether abs exists as a regular file; symlinks and
// folders are refused.
func checkTarget(abs string) (bool, error) {
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, gnoerr.Wrap(gnoerr.InvalidPath, err, "check %s", abs)
	}
	if !fi.Mode().IsRegular() {
		return false, gnoerr.New(gnoerr.InvalidPath, "%s exists and is not a regular file", abs)
	}
	return true, nil
}

// firstHeading returns the text of the first Markdown heading of s.
func firstHeading(s string) string {
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			return strings.TrimSpace(strings.TrimLeft(t, "#"))
		}
	}
	return ""
}

// slug turns a title into a file name: lowercase letters and digits of
// any script, other runs as "-", at most 80 bytes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			if b.Len()+len(string(r)) > 80 {
				break
			}
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	return b.String()
}
