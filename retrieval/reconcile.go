package retrieval

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
	"lukechampine.com/blake3"
)

// The reconcile loop keeps notes true to what they describe: Affected
// (which governing or linking notes a change touches), Diff (what changed
// in the files a note governs, or in a document itself) and the reconcile
// cache (MarkReconciled, ClearReconciled: what an agent has already
// checked, per named cursor). They are parts of Notes because they read
// the user's files and the change feed; none writes a user file.

// DefaultCursor is the reconcile cache cursor used when none is named.
const DefaultCursor = "default"

// cursorName is what a cursor may be called: a name, never a path.
var cursorName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkCursor validates a cursor name ("" is the default).
func checkCursor(c string) (string, error) {
	if c == "" {
		return DefaultCursor, nil
	}
	if !cursorName.MatchString(c) {
		return "", gnoerr.New(gnoerr.InvalidInput, "invalid cursor name %q: use letters, digits, '.', '_' or '-' (at most 64, no path characters)", c)
	}
	return c, nil
}

// MarkRequest asks to record files as reconciled.
type MarkRequest struct {
	// Files are REFs (gno://collection/path, collection/path) or absolute
	// paths inside a collection's folder.
	Files []string
	// Cursor names the cache (DefaultCursor if empty).
	Cursor string
}

// goneHash is the cache's hash of a file that did not exist when marked.
const goneHash = "-"

// MarkResult says what MarkReconciled recorded.
type MarkResult struct {
	Cursor  string `json:"cursor"`
	Updated int    `json:"updated"`
	// Missing are files that no longer exist (skipped, as the spec says).
	Missing []string `json:"missing"`
}

// MaxMarkFiles bounds the files of one mark.
const MaxMarkFiles = 100000

// MarkReconciled stores the BLAKE3 hash of each file's content under the
// cursor, all in one transaction: a bad name refuses the whole call, so a
// mark is never half-done.
func (n *Notes) MarkReconciled(ctx context.Context, req MarkRequest) (*MarkResult, error) {
	cursor, err := checkCursor(req.Cursor)
	if err != nil {
		return nil, err
	}
	if len(req.Files) == 0 {
		return nil, gnoerr.New(gnoerr.InvalidInput, "no files to mark")
	}
	if len(req.Files) > MaxMarkFiles {
		return nil, gnoerr.New(gnoerr.InvalidInput, "at most %d files at once, not %d", MaxMarkFiles, len(req.Files))
	}
	st, err := n.e.store(ctx)
	if err != nil {
		return nil, err
	}
	cfg := n.e.Config()
	out := &MarkResult{Cursor: cursor, Missing: []string{}}
	var rows []store.Reconciled
	var hasher fileHasher
	for _, f := range req.Files {
		col, rel, err := locate(cfg, f)
		if err != nil {
			return nil, err
		}
		if p := st.PathProblem(rel); p != "" {
			// Its document is not indexed either (the sync skips it).
			return nil, gnoerr.New(gnoerr.InvalidPath, "%s: %s", strconv.Quote(f), p)
		}
		h, err := hasher.hash(col, rel)
		if errors.Is(err, fs.ErrNotExist) {
			// Skipped for the caller; remembered as gone, so a deletion
			// once reconciled is not shown again.
			out.Missing = append(out.Missing, ref.URI(col.Name, rel))
			rows = append(rows, store.Reconciled{Collection: col.Name, RelPath: rel, Hash: goneHash})
			continue
		}
		if err != nil {
			return nil, err
		}
		rows = append(rows, store.Reconciled{Collection: col.Name, RelPath: rel, Hash: h})
	}
	if _, err = st.MarkReconciled(ctx, cursor, rows); err != nil {
		return nil, err
	}
	out.Updated = len(rows) - len(out.Missing)
	return out, nil
}

// ClearRequest asks to forget a cursor's reconcile cache.
type ClearRequest struct {
	Cursor string
}

// ClearResult says what ClearReconciled forgot.
type ClearResult struct {
	Cursor string `json:"cursor"`
	// Cleared is true when the cursor held anything.
	Cleared bool `json:"cleared"`
	Files   int  `json:"files"`
}

// ClearReconciled forgets every hash of the cursor: the next Diff shows
// everything again.
func (n *Notes) ClearReconciled(ctx context.Context, req ClearRequest) (*ClearResult, error) {
	cursor, err := checkCursor(req.Cursor)
	if err != nil {
		return nil, err
	}
	st, err := n.e.store(ctx)
	if err != nil {
		return nil, err
	}
	k, err := st.ClearReconciled(ctx, cursor)
	if err != nil {
		return nil, err
	}
	return &ClearResult{Cursor: cursor, Cleared: k > 0, Files: k}, nil
}

// locate maps a REF or an absolute path to its collection and relative
// path.
func locate(cfg *config.Config, f string) (*config.Collection, string, error) {
	if filepath.IsAbs(f) {
		abs := filepath.Clean(f)
		for i := range cfg.Collections {
			c := &cfg.Collections[i]
			rel, err := filepath.Rel(c.Path, abs)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == "." {
				continue
			}
			clean, err := ref.CleanRel(filepath.ToSlash(rel))
			if err != nil {
				return nil, "", err
			}
			return c, clean, nil
		}
		return nil, "", gnoerr.New(gnoerr.InvalidPath, "%s is in no collection's folder", f)
	}
	r, err := ref.Parse(f)
	if err != nil {
		return nil, "", err
	}
	if r.Kind != ref.ByPath {
		return nil, "", gnoerr.New(gnoerr.InvalidInput, "name a file by path, not by docid: %s", f)
	}
	c, ok := cfg.Collection(r.Collection)
	if !ok {
		return nil, "", gnoerr.New(gnoerr.NotFound, "collection %q not found (in %s)", r.Collection, f)
	}
	return c, r.Path, nil
}

// fileHasher hashes collection files, resolving each folder's symlinks
// once per request (a mark of 1,000 files in 20 folders resolves 20).
type fileHasher struct {
	dirs map[string]string
}

// resolve is filepath.EvalSymlinks of a folder, cached.
func (h *fileHasher) resolve(dir string) (string, error) {
	if r, ok := h.dirs[dir]; ok {
		return r, nil
	}
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	if h.dirs == nil {
		h.dirs = map[string]string{}
	}
	h.dirs[dir] = r
	return r, nil
}

// open opens collection file rel for reading, refusing one a symlink
// leads out of the collection's folder and anything not a regular file.
func (h *fileHasher) open(col *config.Collection, rel string) (*os.File, error) {
	root, err := h.resolve(col.Path)
	if err != nil {
		return nil, err
	}
	abs := filepath.Join(col.Path, filepath.FromSlash(rel))
	dir, err := h.resolve(filepath.Dir(abs))
	if err != nil {
		return nil, err
	}
	real := filepath.Join(dir, filepath.Base(abs))
	if fi, err := os.Lstat(real); err != nil {
		return nil, err
	} else if fi.Mode()&os.ModeSymlink != 0 {
		if real, err = filepath.EvalSymlinks(real); err != nil {
			return nil, err
		}
	}
	if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return nil, gnoerr.New(gnoerr.InvalidPath, "%s leads out of collection %s", rel, col.Name)
	}
	// A FIFO or device would block the read (or never end): only
	// regular files are hashed.
	if fi, err := os.Stat(real); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, gnoerr.New(gnoerr.InvalidPath, "%s in collection %s is not a regular file", rel, col.Name)
	}
	return os.Open(real)
}

// hash is the BLAKE3 hash (hex) of a collection file, as the index hashes
// files.
func (h *fileHasher) hash(col *config.Collection, rel string) (string, error) {
	f, err := h.open(col, rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || gnoerr.CodeOf(err) == gnoerr.InvalidPath {
			return "", err
		}
		return "", gnoerr.Wrap(gnoerr.Runtime, err, "read %s", ref.URI(col.Name, rel))
	}
	defer f.Close()
	d := blake3.New(32, nil)
	if _, err := io.Copy(d, f); err != nil {
		return "", gnoerr.Wrap(gnoerr.Runtime, err, "read %s", ref.URI(col.Name, rel))
	}
	return hex.EncodeToString(d.Sum(nil)), nil
}
