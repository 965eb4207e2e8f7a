package retrieval

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/note"
	"github.com/gnosearch/gno/retrieval/ref"
)

// CaptureRequest creates a Markdown document in a collection.
type CaptureRequest struct {
	Collection string
	Content    string
	// Path is where to write, relative to the collection root (".md" is
	// added without an extension). Empty: the file name comes from Title,
	// then the first heading, then the time, and never replaces a file.
	Path  string
	Title string
	// Overwrite lets an explicit Path replace an existing file.
	Overwrite bool
	// Now names an untitled capture (zero: the current time).
	Now time.Time
}

// CaptureResult is where a capture was written and whether it is indexed.
type CaptureResult struct {
	URI         string `json:"uri"`
	DocID       string `json:"docid,omitempty"`
	Collection  string `json:"collection"`
	RelPath     string `json:"relPath"`
	AbsPath     string `json:"absPath"`
	SizeBytes   int    `json:"sizeBytes"`
	Created     bool   `json:"created"`
	Overwritten bool   `json:"overwritten"`
	Indexed     bool   `json:"indexed"`
	// IndexErr is why indexing the collection after the write failed
	// (the file is written all the same).
	IndexErr error `json:"-"`
}

// Capture writes a new document into a collection and indexes it.
func (n *Notes) Capture(ctx context.Context, req CaptureRequest) (*CaptureResult, error) {
	if strings.TrimSpace(req.Content) == "" {
		return nil, gnoerr.New(gnoerr.InvalidInput, "content is empty")
	}
	cfg := n.e.Config()
	col, ok := cfg.Collection(req.Collection)
	if !ok {
		return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", req.Collection)
	}
	maxBytes := cfg.Index.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = config.DefaultMaxFileBytes
	}
	if int64(len(req.Content)) > maxBytes {
		return nil, gnoerr.New(gnoerr.InvalidInput, "content is %d bytes; the index takes files up to %d bytes", len(req.Content), maxBytes)
	}
	w, release, err := n.writer(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	c, err := writeCapture(*col, req)
	if err != nil {
		return nil, err
	}
	res := &CaptureResult{Collection: col.Name, RelPath: c.rel, AbsPath: c.abs, SizeBytes: len(req.Content), Created: !c.existed, Overwritten: c.existed}
	res.URI = ref.URI(col.Name, c.rel)
	if _, err := w.Update(ctx, UpdateOptions{Collection: col.Name}); err != nil {
		res.IndexErr = err
	}
	if d, err := n.e.Get(ctx, GetRequest{Ref: res.URI, LineCount: 1}); err == nil {
		res.DocID, res.Indexed = d.DocID, true
	}
	return res, nil
}

// captured is where a capture was written.
type captured struct {
	rel, abs string
	existed  bool
}

// writeCapture writes req.Content into col and returns where. A generated
// name never replaces an existing file (it gets -2, -3 ...); an explicit
// path replaces one only with Overwrite.
func writeCapture(col config.Collection, req CaptureRequest) (*captured, error) {
	generated := strings.TrimSpace(req.Path) == ""
	var rel string
	if generated {
		base := slug(req.Title)
		if base == "" {
			base = slug(firstHeading(req.Content))
		}
		if base == "" {
			base = "note-" + req.Now.UTC().Format("20060102-150405")
		}
		rel = base + ".md"
	} else {
		var err error
		if rel, err = note.Clean(strings.TrimSpace(req.Path)); err != nil {
			return nil, err
		}
		if path.Ext(rel) == "" {
			rel += ".md"
		}
	}
	if !ingest.Indexes(col, rel) {
		return nil, gnoerr.New(gnoerr.InvalidPath, "path %q does not match collection %s's patterns (%s), so it would not be indexed",
			rel, col.Name, strings.Join(col.Patterns(), ", "))
	}
	abs, existed, err := captureTarget(col, rel)
	if err != nil {
		return nil, err
	}
	if existed && !req.Overwrite {
		if !generated {
			return nil, gnoerr.New(gnoerr.Conflict, "%s already exists in collection %s; pass overwrite: true to replace it", rel, col.Name)
		}
		stem := strings.TrimSuffix(rel, ".md")
		for i := 2; existed; i++ {
			if i > 1000 {
				return nil, gnoerr.New(gnoerr.Conflict, "too many files named %s-N.md", stem)
			}
			rel = fmt.Sprintf("%s-%d.md", stem, i)
			if abs, existed, err = captureTarget(col, rel); err != nil {
				return nil, err
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("create folder for %s: %w", rel, err)
	}
	if err := config.WriteFileAtomic(abs, []byte(req.Content), 0o644); err != nil {
		return nil, err
	}
	return &captured{rel: rel, abs: abs, existed: existed}, nil
}

// captureTarget checks rel with the one path rule and reports whether a
// file is there already.
func captureTarget(col config.Collection, rel string) (string, bool, error) {
	abs, err := note.Path(col.Path, rel, note.Either)
	if err != nil {
		return "", false, err
	}
	_, err = os.Lstat(abs)
	return abs, err == nil, nil
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
