package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"strings"

	"github.com/gnosearch/gno/retrieval/links"
)

// linksSchema keeps, for each document with links or aliases, its links
// as written (encoded, in order) and its front-matter aliases, in one row
// written with the document. Where a link points is not stored: it is a
// function of the whole document set, computed when links are read (see
// linkIndex). So a note that appears, is renamed or goes re-resolves every
// link naming it with no write at all, and a sync pays one row per
// document instead of three B-tree entries per link (schema 2 stored a row
// per link with its target's id: links were 25–30% of a full sync's CPU,
// against the ≤ 15% issue 11 allows; bench/RESULTS.md).
const linksSchema = `
CREATE TABLE IF NOT EXISTS doc_links(
	doc_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
	aliases TEXT NOT NULL,
	links BLOB NOT NULL);
`

// putLinks stores the links and aliases of document id inside the batch.
func (b *Batch) putLinks(ctx context.Context, id int64, d *Document, existed bool) error {
	if len(d.Links) == 0 && len(d.Aliases) == 0 {
		if existed {
			_, err := b.exec(ctx, "DELETE FROM doc_links WHERE doc_id = ?", id)
			return err
		}
		return nil
	}
	_, err := b.exec(ctx, "INSERT INTO doc_links(doc_id, aliases, links) VALUES(?, ?, ?) ON CONFLICT(doc_id) DO UPDATE SET aliases = excluded.aliases, links = excluded.links",
		id, JoinAliases(d.Aliases), EncodeLinks(d.Links))
	return err
}

// JoinAliases keeps aliases one per line: an alias is a name, never
// several lines.
func JoinAliases(as []string) string {
	clean := make([]string, 0, len(as))
	for _, a := range as {
		if a = strings.TrimSpace(strings.ReplaceAll(a, "\n", " ")); a != "" {
			clean = append(clean, a)
		}
	}
	return strings.Join(clean, "\n")
}

func splitAliases(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// linksFormat leads every encoded link list, so a later layout can be told
// apart.
const linksFormat = 1

// EncodeLinks packs links as: a format byte, then per link its kind and
// line (uvarints) and its target, fragment and alias (uvarint length and
// bytes).
func EncodeLinks(ls []links.Link) []byte {
	n := 1
	for _, l := range ls {
		n += 2*binary.MaxVarintLen32 + 3*binary.MaxVarintLen32 + len(l.Target) + len(l.Fragment) + len(l.Alias)
	}
	out := make([]byte, 1, n)
	out[0] = linksFormat
	for _, l := range ls {
		out = binary.AppendUvarint(out, uint64(l.Kind))
		out = binary.AppendUvarint(out, uint64(max(l.Line, 0)))
		for _, s := range []string{l.Target, l.Fragment, l.Alias} {
			out = binary.AppendUvarint(out, uint64(len(s)))
			out = append(out, s...)
		}
	}
	return out
}

var errLinkData = errors.New("undecodable link data")

// decodeLinks reverses EncodeLinks.
func decodeLinks(b []byte) ([]links.Link, error) {
	if len(b) == 0 || b[0] != linksFormat {
		return nil, errLinkData
	}
	// The strings are read out of one copy of b: one allocation a
	// document, not one a string (the link index keeps them all).
	all := string(b[1:])
	b = b[1:]
	var out []links.Link
	num := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	str := func() (string, bool) {
		n, ok := num()
		if !ok || n > uint64(len(b)) {
			return "", false
		}
		at := len(all) - len(b)
		b = b[n:]
		return all[at : at+int(n)], true
	}
	for len(b) > 0 {
		var l links.Link
		kind, ok1 := num()
		line, ok2 := num()
		t, ok3 := str()
		f, ok4 := str()
		a, ok5 := str()
		if !(ok1 && ok2 && ok3 && ok4 && ok5) || kind > 255 || line > 1<<31-1 {
			return nil, errLinkData
		}
		l.Kind, l.Line, l.Target, l.Fragment, l.Alias = links.Kind(kind), int(line), t, f, a
		out = append(out, l)
	}
	return out, nil
}

// bumpWrites counts a committed change to the document set in the same
// transaction, so readers can tell their cached link index is stale. It
// starts at a random value: an index rebuilt from scratch must not reach a
// number an open reader has cached.
func bumpWrites(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES('writes', abs(random() % 1000000000000)) ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")
	return err
}

// backfillLinks extracts the links and aliases of every Markdown document
// already in an index from an older schema.
func backfillLinks(ctx context.Context, tx *sql.Tx) error {
	return eachMarkdown(ctx, tx, false, func(b *Batch, id int64, _, content string) error {
		d := Document{Links: links.Extract(content), Aliases: links.Aliases(content)}
		return b.putLinks(ctx, id, &d, false)
	})
}
