package retrieval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/display"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// docID formats a content hash as the public document id.
func docID(hash string) string {
	if len(hash) > 8 {
		hash = hash[:8]
	}
	return "#" + hash
}

func (e *Engine) source(cfg *config.Config, m *store.DocMeta, full bool) Source {
	s := Source{RelPath: m.RelPath, Mime: m.Mime, Ext: path.Ext(m.RelPath)}
	if c, ok := cfg.Collection(m.Collection); ok {
		s.AbsPath = filepath.Join(c.Path, filepath.FromSlash(m.RelPath))
	}
	if full {
		s.ModifiedAt = time.Unix(0, m.MtimeNS).UTC().Format(time.RFC3339)
		s.SizeBytes = m.Size
	}
	return s
}

// resolve finds the document a REF names.
func (e *Engine) resolve(ctx context.Context, s string) (*store.DocMeta, error) {
	if e.pkgs {
		return e.resolvePackage(ctx, s)
	}
	r, err := ref.Parse(s)
	if err != nil {
		return nil, err
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	var m *store.DocMeta
	if r.Kind == ref.ByDocID {
		m, err = st.DocByHashPrefix(ctx, r.DocID)
	} else {
		if _, ok := e.Config().Collection(r.Collection); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", r.Collection)
		}
		m, err = st.DocByPath(ctx, r.Collection, r.Path)
	}
	return m, gone(err, s)
}

// gone names ref in the NOT_FOUND of a document that vanished
// (store.ErrNotFound); other errors pass through.
func gone(err error, ref string) error {
	if errors.Is(err, store.ErrNotFound) {
		if !utf8.ValidString(ref) {
			// Shown as it was asked for, not as replacement characters.
			ref = strconv.Quote(ref)
		}
		return gnoerr.New(gnoerr.NotFound, "document not found: %s", ref)
	}
	return err
}

// Get reads one document, optionally a line range of it.
func (e *Engine) Get(ctx context.Context, req GetRequest) (*Document, error) {
	return readAs(ctx, e, func(ctx context.Context) (*Document, error) { return e.get(ctx, req) })
}

func (e *Engine) get(ctx context.Context, req GetRequest) (*Document, error) {
	m, err := e.resolve(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	st, _ := e.store(ctx)
	content, err := st.Content(ctx, m.ID)
	if err != nil {
		return nil, gone(err, req.Ref)
	}
	cfg := e.Config()
	d := e.document(cfg, m, content)
	if req.FromLine < 0 || req.LineCount < 0 {
		return nil, gnoerr.New(gnoerr.InvalidInput, "line numbers must be positive")
	}
	if req.FromLine > 1 || req.LineCount > 0 {
		lines := display.SplitLines(content)
		from := max(req.FromLine, 1)
		if from > len(lines) && len(lines) > 0 {
			return nil, gnoerr.New(gnoerr.InvalidInput, "line %d is past the end of %s (%d lines)", from, d.URI, len(lines))
		}
		to := len(lines)
		if req.LineCount > 0 && from-1+req.LineCount < to {
			to = from - 1 + req.LineCount
		}
		d.Content = strings.Join(lines[from-1:to], "\n")
		d.ReturnedLines = LineRange{Start: from, End: to}
	}
	return d, nil
}

func (e *Engine) document(cfg *config.Config, m *store.DocMeta, content string) *Document {
	return &Document{
		DocID:         docID(m.Hash),
		URI:           e.uri(m),
		Title:         m.Title,
		Collection:    m.Collection,
		Content:       content,
		TotalLines:    m.LineCount,
		ReturnedLines: LineRange{Start: 1, End: m.LineCount},
		Source:        e.source(cfg, m, true),
		Tags:          m.Tags,
		Lang:          m.Lang,
		Context:       cfg.ContextsFor(m.Collection, m.RelPath),
		Generation:    m.ChangedGen,
	}
}

// DefaultMaxBytes is multi-get's per-document size cap.
const DefaultMaxBytes = 10240

// MultiGet reads several documents by refs or by a glob over
// collection/path; documents over MaxBytes are skipped with a reason.
func (e *Engine) MultiGet(ctx context.Context, req MultiGetRequest) (*MultiGetResult, error) {
	return readAs(ctx, e, func(ctx context.Context) (*MultiGetResult, error) { return e.multiGet(ctx, req) })
}

func (e *Engine) multiGet(ctx context.Context, req MultiGetRequest) (*MultiGetResult, error) {
	if (len(req.Refs) == 0) == (req.Pattern == "") {
		return nil, gnoerr.New(gnoerr.InvalidInput, "give either refs or a pattern, not both")
	}
	if req.MaxBytes <= 0 {
		req.MaxBytes = DefaultMaxBytes
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	cfg := e.Config()
	out := &MultiGetResult{Documents: []Document{}, Skipped: []Skipped{}}
	var metas []*store.DocMeta
	var names []string
	if req.Pattern != "" {
		pat := strings.TrimPrefix(req.Pattern, ref.Scheme)
		all, err := st.List(ctx, e.Config().CollectionNames(), "", 0, 0)
		if err != nil {
			return nil, err
		}
		for _, m := range all {
			if ok, _ := path.Match(pat, m.Collection+"/"+m.RelPath); ok || globMatch(pat, m.Collection+"/"+m.RelPath) {
				metas = append(metas, m)
				names = append(names, ref.URI(m.Collection, m.RelPath))
			}
		}
	} else {
		for _, r := range req.Refs {
			m, err := e.resolve(ctx, r)
			if err != nil {
				out.Skipped = append(out.Skipped, Skipped{Ref: r, Reason: gnoerr.Public(err)})
				continue
			}
			metas = append(metas, m)
			names = append(names, r)
		}
	}
	out.Meta.Requested = len(metas) + len(out.Skipped)
	for i, m := range metas {
		if m.Size > int64(req.MaxBytes) {
			out.Skipped = append(out.Skipped, Skipped{Ref: names[i], Reason: fmt.Sprintf("exceeds maxBytes (%d > %d)", m.Size, req.MaxBytes)})
			continue
		}
		content, err := st.Content(ctx, m.ID)
		if err != nil {
			out.Skipped = append(out.Skipped, Skipped{Ref: names[i], Reason: gnoerr.Public(gone(err, names[i]))})
			continue
		}
		out.Documents = append(out.Documents, *e.document(cfg, m, content))
	}
	out.Meta.Returned = len(out.Documents)
	out.Meta.Skipped = len(out.Skipped)
	return out, nil
}

// List returns the documents under target: "" for all, a collection, or
// collection/path-prefix.
func (e *Engine) List(ctx context.Context, target string, limit, offset int) ([]Entry, error) {
	cfg := e.Config()
	col, prefix, _ := strings.Cut(strings.Trim(strings.TrimPrefix(target, ref.Scheme), "/"), "/")
	col = strings.ToLower(col)
	if col != "" {
		if _, ok := cfg.Collection(col); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", col)
		}
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	cols := cfg.CollectionNames()
	if col != "" {
		cols = []string{col}
	}
	if offset > 0 && limit <= 0 {
		limit = math.MaxInt32 // the store pages only with a limit
	}
	ms, err := st.List(ctx, cols, prefix, limit, offset)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(ms))
	for _, m := range ms {
		out = append(out, Entry{DocID: docID(m.Hash), URI: ref.URI(m.Collection, m.RelPath), Title: m.Title, Collection: m.Collection,
			RelPath: m.RelPath, SizeBytes: m.Size, ModifiedAt: time.Unix(0, m.MtimeNS).UTC().Format(time.RFC3339)})
	}
	return out, nil
}

func globMatch(pattern, name string) bool {
	ok, _ := doublestar.Match(pattern, name)
	return ok
}
