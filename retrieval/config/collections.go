package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

func validGlob(g string) bool { return g != "" && doublestar.ValidatePattern(g) }

// dangerousRoots are folders too broad or too private to index whole;
// "~" stands for the user's home.
var dangerousRoots = []string{"/", "~", "/etc", "/usr", "/bin", "/var", "/System", "/Library",
	"~/.config", "~/.local", "~/.ssh", "~/.gnupg"}

// ExpandHome replaces a leading "~" with the user's home directory.
func ExpandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// CheckRoot validates a folder proposed as a collection root and returns
// its clean absolute path. Dangerous roots give INVALID_PATH, missing
// folders PATH_NOT_FOUND.
func CheckRoot(path string) (string, error) {
	if strings.TrimSpace(path) == "" || strings.ContainsRune(path, 0) {
		return "", gnoerr.New(gnoerr.InvalidPath, "invalid collection path %q", path)
	}
	abs, err := filepath.Abs(ExpandHome(path))
	if err != nil {
		return "", gnoerr.Wrap(gnoerr.InvalidPath, err, "invalid collection path %q", path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, d := range dangerousRoots {
		if d2 := filepath.Clean(ExpandHome(d)); d2 == abs {
			return "", gnoerr.New(gnoerr.InvalidPath, "refusing to index %s: the folder is too broad or sensitive (%s); pick a sub-folder", abs, d)
		}
	}
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", gnoerr.New(gnoerr.PathNotFound, "path not found: %s", abs)
	}
	if err != nil {
		return "", gnoerr.Wrap(gnoerr.InvalidPath, err, "stat %s", abs)
	}
	if !fi.IsDir() {
		return "", gnoerr.New(gnoerr.InvalidPath, "not a folder: %s", abs)
	}
	return abs, nil
}

// AddCollection validates col and appends it; col.Path may be relative or
// use "~". The name defaults to the folder's base name.
func (c *Config) AddCollection(col Collection) (*Collection, error) {
	abs, err := CheckRoot(col.Path)
	if err != nil {
		return nil, err
	}
	col.Path = abs
	if col.Name == "" {
		col.Name = filepath.Base(abs)
	}
	col.Name = strings.ToLower(col.Name)
	if err := newName(col.Name); err != nil {
		return nil, err
	}
	if col.Pattern == DefaultPattern {
		col.Pattern = ""
	}
	for _, g := range append(col.Patterns(), col.Exclude...) {
		if !validGlob(g) {
			return nil, gnoerr.New(gnoerr.InvalidInput, "invalid glob %q", g)
		}
	}
	for _, ex := range c.Collections {
		if ex.Name == col.Name {
			return nil, gnoerr.New(gnoerr.Duplicate, "collection %q already exists", col.Name)
		}
		if ex.Path == col.Path {
			return nil, gnoerr.New(gnoerr.Duplicate, "folder %s is already collection %q", col.Path, ex.Name)
		}
	}
	c.Collections = append(c.Collections, col)
	return &c.Collections[len(c.Collections)-1], nil
}

// RemoveCollection deletes the collection named name. Contexts that target
// it give HAS_REFERENCES.
func (c *Config) RemoveCollection(name string) error {
	name = strings.ToLower(name)
	for i, col := range c.Collections {
		if col.Name != name {
			continue
		}
		for _, ctx := range c.Contexts {
			if contextCollection(ctx.Target) == name {
				return gnoerr.New(gnoerr.HasReferences, "collection %q is referenced by context %q; remove it first with `gno context rm %s`", name, ctx.Target, ctx.Target)
			}
		}
		c.Collections = append(c.Collections[:i], c.Collections[i+1:]...)
		return nil
	}
	return gnoerr.New(gnoerr.NotFound, "collection %q not found", name)
}

// RenameCollection renames a collection and the contexts that target it.
func (c *Config) RenameCollection(from, to string) error {
	from, to = strings.ToLower(from), strings.ToLower(to)
	if err := newName(to); err != nil {
		return err
	}
	col, ok := c.Collection(from)
	if !ok {
		return gnoerr.New(gnoerr.NotFound, "collection %q not found", from)
	}
	if _, ok := c.Collection(to); ok && from != to {
		return gnoerr.New(gnoerr.Duplicate, "collection %q already exists", to)
	}
	col.Name = to
	for i := range c.Contexts {
		t := c.Contexts[i].Target
		if contextCollection(t) == from {
			c.Contexts[i].Target = to + t[len(from):]
		}
	}
	return nil
}

func contextCollection(target string) string {
	t := strings.TrimPrefix(target, "gno://")
	if i := strings.IndexByte(t, '/'); i >= 0 {
		t = t[:i]
	}
	return strings.ToLower(t)
}

// NormalizeTarget lowercases the collection part of a context target and
// strips a gno:// scheme and trailing slashes.
func NormalizeTarget(target string) string {
	t := strings.TrimSpace(target)
	if t == "/" {
		return t
	}
	t = strings.Trim(strings.TrimPrefix(t, "gno://"), "/")
	col, rest, _ := strings.Cut(t, "/")
	if rest == "" {
		return strings.ToLower(col)
	}
	return strings.ToLower(col) + "/" + rest
}

// AddContext attaches text to target ("/" for everything, a collection, or
// collection/path-prefix). An existing context on the same target is
// replaced.
func (c *Config) AddContext(target, text string) error {
	t := NormalizeTarget(target)
	if t == "" || strings.TrimSpace(text) == "" {
		return gnoerr.New(gnoerr.InvalidInput, "context needs a target and a text")
	}
	if t != "/" {
		if _, ok := c.Collection(contextCollection(t)); !ok {
			return gnoerr.New(gnoerr.NotFound, "collection %q not found", contextCollection(t))
		}
	}
	for i := range c.Contexts {
		if c.Contexts[i].Target == t {
			c.Contexts[i].Text = text
			return nil
		}
	}
	c.Contexts = append(c.Contexts, Context{Target: t, Text: text})
	return nil
}

// RemoveContext deletes the context on target.
func (c *Config) RemoveContext(target string) error {
	t := NormalizeTarget(target)
	for i := range c.Contexts {
		if c.Contexts[i].Target == t {
			c.Contexts = append(c.Contexts[:i], c.Contexts[i+1:]...)
			return nil
		}
	}
	return gnoerr.New(gnoerr.NotFound, "no context on %q", t)
}

// ContextsFor returns the texts of contexts matching a document, from the
// broadest to the most specific.
func (c *Config) ContextsFor(collection, relPath string) []string {
	var match []Context
	full := collection + "/" + relPath
	for _, ctx := range c.Contexts {
		t := ctx.Target
		if t == "/" || t == collection || strings.HasPrefix(full, t+"/") || full == t {
			match = append(match, ctx)
		}
	}
	sort.SliceStable(match, func(i, j int) bool { return len(match[i].Target) < len(match[j].Target) })
	out := make([]string, len(match))
	for i, m := range match {
		out[i] = m.Text
	}
	return out
}

// ReservedName is the collection name package-doc URIs use
// (gno://pkg/...): a new collection may not take it.
const ReservedName = "pkg"

// newName checks the name of a new or renamed collection.
func newName(name string) error {
	if name == ReservedName {
		return gnoerr.New(gnoerr.InvalidInput, "collection name %q is reserved for package docs (gno://pkg/...): use --name to pick another", name)
	}
	return ValidName(name)
}
