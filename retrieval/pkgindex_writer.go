package retrieval

// The package-docs index's writer: Put, Bulk, SetProject, RemoveProject,
// Cleanup, Embed (pkgindex.go is its reads).

import (
	"context"
	"encoding/hex"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/store"
	"lukechampine.com/blake3"
)

// PackagesWriter is the package-docs index's writer lock (as Writer is
// the notes index's): stores versions, records projects, drops unused
// versions and embeds.
type PackagesWriter struct {
	w *Writer
}

// Writer takes the package-docs index's writer lock (see Engine.Writer);
// a notes sync holds another one and does not wait for it.
func (p *Packages) Writer(ctx context.Context, wait time.Duration) (*PackagesWriter, error) {
	w, err := p.e.Writer(ctx, wait)
	if err != nil {
		return nil, err
	}
	return &PackagesWriter{w: w}, nil
}

// Close releases the lock.
func (pw *PackagesWriter) Close() error { return pw.w.Close() }

// UnitDoc is one unit to store: its Markdown and what a result says of it.
type UnitDoc struct {
	Path, Title string
	// Keywords are more words the unit is found by (not shown): the
	// symbol split into words, the package name.
	Keywords string
	Text     string
	// Kind is readme, doc, example or api; Symbol, SymbolKind and
	// Signature are set on API items.
	Kind                          string
	Symbol, SymbolKind, Signature string
	File                          string
	Line                          int
}

// Put stores one package version (v.Key, its metadata) with its units,
// replacing an earlier copy, in one transaction. Units are chunked like
// notes (long READMEs and docs split on headings).
func (pw *PackagesWriter) Put(ctx context.Context, v *PackageVersion, units []UnitDoc) error {
	e := pw.w.e
	st, err := e.store(ctx)
	if err != nil {
		return err
	}
	cfg := e.Config()
	copt := chunk.Options{Tokens: cfg.Index.ChunkTokens, Overlap: cfg.Index.ChunkOverlap}
	docs := make([]*store.Document, len(units))
	rows := make([]store.PkgUnit, len(units))
	v.Bytes = 0
	for i, u := range units {
		text, invalid := ingest.Normalize([]byte(u.Text))
		sum := blake3.Sum256([]byte(text))
		d := &store.Document{Collection: v.Key, RelPath: u.Path, Hash: hex.EncodeToString(sum[:]), Title: u.Title,
			Mime: "text/markdown", Content: text, Size: int64(len(text)), InvalidBytes: invalid, Keywords: u.Keywords}
		d.LineCount = strings.Count(text, "\n")
		if text != "" && !strings.HasSuffix(text, "\n") {
			d.LineCount++
		}
		d.Chunks = chunk.Markdown(text, copt)
		docs[i] = d
		rows[i] = store.PkgUnit{Kind: u.Kind, Symbol: u.Symbol, SymbolKind: u.SymbolKind, Signature: u.Signature, File: u.File, Line: u.Line}
		v.Bytes += int64(len(text))
	}
	if _, err := st.PutPkgVersion(ctx, v, docs, rows); err != nil {
		return damaged(e.Paths.DBFile, err)
	}
	e.vectors.forget()
	return nil
}

// Bulk prepares the index for many versions in a row (FTS merging put
// off, as a large notes sync does) and returns the function that merges
// once and restores the defaults; call it when done, even after an error.
func (pw *PackagesWriter) Bulk(ctx context.Context) (end func(), err error) {
	st, err := pw.w.e.store(ctx)
	if err != nil {
		return func() {}, err
	}
	if err := st.BeginBulk(ctx); err != nil {
		return func() {}, err
	}
	return func() { st.EndBulk(context.WithoutCancel(ctx)) }, nil
}

// SetProject records the versions (keys; true for a direct dependency)
// project p uses, replacing its earlier set.
func (pw *PackagesWriter) SetProject(ctx context.Context, p *PackageProject, keys map[string]bool) error {
	st, err := pw.w.e.store(ctx)
	if err != nil {
		return err
	}
	return st.SetPkgProject(ctx, p, keys)
}

// RemoveProject forgets a project (its versions stay until Cleanup).
func (pw *PackagesWriter) RemoveProject(ctx context.Context, dir string) (bool, error) {
	st, err := pw.w.e.store(ctx)
	if err != nil {
		return false, err
	}
	return st.RemovePkgProject(ctx, dir)
}

// Cleanup drops the versions no project uses with their documents, then
// optimises and vacuums the database. It returns the versions dropped.
func (pw *PackagesWriter) Cleanup(ctx context.Context) (int, error) {
	e := pw.w.e
	st, err := e.store(ctx)
	if err != nil {
		return 0, err
	}
	n, keep, err := st.DropUnusedPkgVersions(ctx)
	if err != nil {
		return n, err
	}
	if _, err := st.Cleanup(ctx, keep); err != nil {
		return n, err
	}
	e.vectors.forget()
	return n, nil
}

// Embed computes the vectors the stored units lack (see Writer.Embed).
func (pw *PackagesWriter) Embed(ctx context.Context, opt EmbedOptions) (*EmbedResult, error) {
	opt.Collection = ""
	return pw.w.Embed(ctx, opt)
}
