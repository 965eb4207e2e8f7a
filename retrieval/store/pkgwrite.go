package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/segment"
)

// PutPkgVersion stores one package version with its unit documents in
// one transaction, replacing an earlier copy of the same key: a version
// is either wholly there or not at all. units[i] describes docs[i]; their
// Collection must be v.Key. It returns the version's id.
func (s *Store) PutPkgVersion(ctx context.Context, v *PkgVersion, docs []*Document, units []PkgUnit) (int64, error) {
	if len(docs) != len(units) {
		return 0, fmt.Errorf("store %s: %d documents for %d units", v.Key, len(docs), len(units))
	}
	gen, err := s.Generation(ctx)
	if err != nil {
		return 0, err
	}
	b, err := s.begin(ctx, gen+1)
	if err != nil {
		return 0, err
	}
	defer b.Rollback()
	// The old copy's documents go (chunks, vectors and units cascade);
	// the row is updated in place, so projects using it keep pointing at it.
	b.changes.untrack() // a collection's documents go unlisted: the link index rebuilds
	if _, err := b.tx.ExecContext(ctx, "DELETE FROM documents WHERE collection = ?", v.Key); err != nil {
		return 0, fmt.Errorf("store %s: %w", v.Key, err)
	}
	if v.AddedNS == 0 {
		v.AddedNS = time.Now().UnixNano()
	}
	var id int64
	err = b.tx.QueryRowContext(ctx, `INSERT INTO pkg_versions(key, ecosystem, name, version, summary, license, homepage, repository, units, bytes, warnings, extractor, added_ns)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(key) DO UPDATE SET summary = excluded.summary, license = excluded.license, homepage = excluded.homepage,
			repository = excluded.repository, units = excluded.units, bytes = excluded.bytes, warnings = excluded.warnings,
			extractor = excluded.extractor, added_ns = excluded.added_ns
		RETURNING id`, v.Key, v.Ecosystem, v.Name, v.Version, v.Summary, v.License, v.Homepage, v.Repository,
		len(units), v.Bytes, strings.Join(v.Warnings, "\n"), v.Extractor, v.AddedNS).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store %s: %w", v.Key, err)
	}
	ids, err := b.putUnitDocs(ctx, v.Key, docs)
	if err != nil {
		return 0, fmt.Errorf("store %s: %w", v.Key, err)
	}
	for i, u := range units {
		if _, err := b.exec(ctx, `INSERT INTO pkg_units(doc_id, version_id, kind, symbol, symbol_kind, signature, leaf, file, line) VALUES(?,?,?,?,?,?,?,?,?)`,
			ids[i], id, u.Kind, u.Symbol, u.SymbolKind, u.Signature, symbolLeaf(u.Symbol), u.File, u.Line); err != nil {
			return 0, fmt.Errorf("store %s unit %s: %w", v.Key, docs[i].RelPath, err)
		}
	}
	if err := b.Commit(); err != nil {
		return 0, fmt.Errorf("store %s: %w", v.Key, err)
	}
	v.ID, v.Units = id, len(units)
	return id, nil
}

// unitChunkRows is how many chunks one INSERT writes, and how many word
// index rows: FTS5 flushes its pending terms to a new segment at every
// statement savepoint, and a version written chunk by chunk made a
// segment per unit and merged them over and over (half of a 100-package
// add's CPU). 10 columns × 500 rows
// stays under SQLite's 32,766 parameters.
const unitChunkRows = 500

// putUnitDocs inserts a version's unit documents (all new: the caller
// deleted the old copy) with their content, then their chunks in
// multi-row statements. It returns the documents' ids.
func (b *Batch) putUnitDocs(ctx context.Context, key string, docs []*Document) ([]int64, error) {
	ids := make([]int64, len(docs))
	var rows []any
	var words wordIndex
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		q := "INSERT INTO chunks(id, doc_id, seq, title, headings, body, start_line, end_line, start_byte, end_byte) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?,?,?),", n), ",")
		if _, err := b.tx.ExecContext(ctx, q, rows...); err != nil {
			return err
		}
		rows, n = rows[:0], 0
		return words.flush(ctx, b.tx.ExecContext)
	}
	for i, d := range docs {
		if d.Collection != key {
			return nil, fmt.Errorf("unit %s belongs to %q", d.RelPath, d.Collection)
		}
		if len(d.Chunks) > MaxChunks {
			return nil, fmt.Errorf("unit %s: %d chunks, more than %d", d.RelPath, len(d.Chunks), MaxChunks)
		}
		res, err := b.exec(ctx, `INSERT INTO documents(collection, rel_path, hash, title, lang, mime, size, mtime_ns, line_count, invalid_bytes, added_gen, changed_gen)
			VALUES(?,?,?,?,?,?,?,?,?,?,?,?)`, d.Collection, d.RelPath, d.Hash, d.Title, d.Lang, d.Mime, d.Size, d.MtimeNS, d.LineCount, d.InvalidBytes, b.gen, b.gen)
		if err != nil {
			return nil, fmt.Errorf("unit %s: %w", d.RelPath, err)
		}
		id, _ := res.LastInsertId()
		if id >= MaxDocID {
			return nil, fmt.Errorf("unit %s: document id space exhausted; run `gno cleanup`", d.RelPath)
		}
		ids[i] = id
		if _, err := b.exec(ctx, "INSERT INTO contents(doc_id, content) VALUES(?, ?)", id, d.Content); err != nil {
			return nil, fmt.Errorf("unit %s: %w", d.RelPath, err)
		}
		title := d.Title
		if d.Keywords != "" {
			title += " " + d.Keywords
		}
		for j, c := range d.Chunks {
			cid, heads := ChunkID(id, j), strings.Join(c.Headings, " > ")
			body, end := storedBody(d.Content, c.Text, c.StartByte, c.EndByte)
			rows = append(rows, cid, id, j, title, heads, body, c.StartLine, c.EndLine, c.StartByte, end)
			words.add(cid, title, heads, c.Text)
			n++
			if segment.Has(c.Text) || segment.Has(title) || segment.Has(heads) {
				if _, err := b.exec(ctx, insertSegmented, cid, segment.Text(title), segment.Text(heads), segment.Text(c.Text)); err != nil {
					return nil, fmt.Errorf("unit %s: %w", d.RelPath, err)
				}
			}
			if n == unitChunkRows {
				if err := flush(); err != nil {
					return nil, fmt.Errorf("unit %s: %w", d.RelPath, err)
				}
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return ids, nil
}
