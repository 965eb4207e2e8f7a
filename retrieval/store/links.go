package store

import (
	"context"
	"database/sql"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/gnosearch/gno/retrieval/links"
)

// linksSchema holds the links between documents and the names (file name
// and aliases, as links.Key) each document answers to. A link keeps its
// target as written; dst_id is where it resolves now (NULL: unresolved or
// an attachment), and is recomputed whenever a document with its key
// appears, changes its aliases or goes.
const linksSchema = `
CREATE TABLE IF NOT EXISTS links(
	src_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	kind INTEGER NOT NULL,
	target TEXT NOT NULL,
	fragment TEXT NOT NULL,
	alias TEXT NOT NULL,
	line INTEGER NOT NULL,
	key TEXT NOT NULL,
	attach INTEGER NOT NULL DEFAULT 0,
	dst_id INTEGER REFERENCES documents(id) ON DELETE SET NULL,
	PRIMARY KEY(src_id, seq)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS links_dst ON links(dst_id);
CREATE INDEX IF NOT EXISTS links_key ON links(key);
CREATE TABLE IF NOT EXISTS doc_keys(
	key TEXT NOT NULL,
	doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	alias INTEGER NOT NULL,
	name TEXT NOT NULL,
	PRIMARY KEY(key, doc_id, alias)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS doc_keys_doc ON doc_keys(doc_id);
`

// linkState is what a batch must re-resolve before it commits.
type linkState struct {
	// docs written in this batch whose links wait, in memory, to be
	// resolved and inserted at commit (one INSERT each, no UPDATE).
	docs map[int64]*newLinks
	keys map[string]bool // names that gained or lost a document
}

// newLinks are the links of one document written in the batch.
type newLinks struct {
	col, rel string
	links    []links.Link
}

func (b *Batch) linkState() *linkState {
	if b.links == nil {
		b.links = &linkState{docs: map[int64]*newLinks{}, keys: map[string]bool{}}
	}
	return b.links
}

// docKeys are the names a document answers to: its file name, then its
// aliases.
func docKeys(rel string, aliases []string) []struct {
	key, name string
	alias     bool
} {
	base := path.Base(rel)
	out := []struct {
		key, name string
		alias     bool
	}{{links.Key(rel), strings.TrimSuffix(base, path.Ext(base)), false}}
	for _, a := range aliases {
		if k := strings.ToLower(strings.TrimSpace(a)); k != "" {
			out = append(out, struct {
				key, name string
				alias     bool
			}{k, a, true})
		}
	}
	return out
}

// putLinks replaces the links and names of document id, inside the
// batch's transaction, and marks what must be re-resolved at commit.
func (b *Batch) putLinks(ctx context.Context, id int64, d *Document, existed bool) error {
	ls := b.linkState()
	old := map[string]bool{}
	if existed {
		rows, err := b.tx.QueryContext(ctx, "SELECT key || char(0) || alias FROM doc_keys WHERE doc_id = ?", id)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return err
			}
			old[k] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if _, err := b.exec(ctx, "DELETE FROM links WHERE src_id = ?", id); err != nil {
			return err
		}
		if _, err := b.exec(ctx, "DELETE FROM doc_keys WHERE doc_id = ?", id); err != nil {
			return err
		}
	}
	for _, k := range docKeys(d.RelPath, d.Aliases) {
		a := 0
		if k.alias {
			a = 1
		}
		full := fmt.Sprintf("%s\x00%d", k.key, a)
		if old[full] {
			delete(old, full)
		} else {
			ls.keys[k.key] = true
		}
		if _, err := b.exec(ctx, "INSERT OR IGNORE INTO doc_keys(key, doc_id, alias, name) VALUES(?, ?, ?, ?)", k.key, id, a, k.name); err != nil {
			return err
		}
	}
	for k := range old { // names the document no longer has
		key, _, _ := strings.Cut(k, "\x00")
		ls.keys[key] = true
	}
	ls.docs[id] = &newLinks{col: d.Collection, rel: d.RelPath, links: d.Links}
	return nil
}

// forgetLinks marks the names of a document about to be removed, so links
// to it are re-resolved (to another note of that name, or to nothing).
func (b *Batch) forgetLinks(ctx context.Context, id int64) error {
	ls := b.linkState()
	rows, err := b.tx.QueryContext(ctx, "SELECT key FROM doc_keys WHERE doc_id = ?", id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return err
		}
		ls.keys[k] = true
	}
	delete(ls.docs, id)
	return rows.Err()
}

// pendingLink is a stored link being re-resolved.
type pendingLink struct {
	src         int64
	seq         int
	kind        links.Kind
	target, key string
	col, rel    string
	dst         int64
}

// resolveLinks resolves and inserts the links of documents written in
// this batch, and re-resolves every stored link whose key gained or lost
// a document, all inside the transaction, so the committed index never
// has links disagreeing with its documents.
func (b *Batch) resolveLinks(ctx context.Context) error {
	ls := b.links
	if ls == nil || len(ls.docs)+len(ls.keys) == 0 {
		return nil
	}
	var todo []pendingLink
	const sel = "SELECT l.src_id, l.seq, l.kind, l.target, l.key, d.collection, d.rel_path, coalesce(l.dst_id, 0) FROM links l JOIN documents d ON d.id = l.src_id WHERE l.attach = 0 AND l.key IN ("
	for _, chunk := range chunkArgs(stringKeys(ls.keys)) {
		rows, err := b.tx.QueryContext(ctx, sel+placeholders(len(chunk))+")", chunk...)
		if err != nil {
			return fmt.Errorf("resolve links: %w", err)
		}
		for rows.Next() {
			var p pendingLink
			var kind int
			if err := rows.Scan(&p.src, &p.seq, &kind, &p.target, &p.key, &p.col, &p.rel, &p.dst); err != nil {
				rows.Close()
				return err
			}
			p.kind = links.Kind(kind)
			todo = append(todo, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	keys := map[string]bool{}
	for _, p := range todo {
		keys[p.key] = true
	}
	for _, d := range ls.docs {
		for _, l := range d.links {
			if l.Target != "" {
				keys[links.Key(l.Target)] = true
			}
		}
	}
	cands, err := candidates(ctx, b.tx, stringKeys(keys))
	if err != nil {
		return err
	}
	for _, p := range todo {
		dst := links.Resolve(p.kind, p.target, p.col, p.rel, cands[p.key])
		if dst == p.dst {
			continue
		}
		var v any
		if dst != 0 {
			v = dst
		}
		if _, err := b.exec(ctx, "UPDATE links SET dst_id = ? WHERE src_id = ? AND seq = ?", v, p.src, p.seq); err != nil {
			return fmt.Errorf("resolve links: %w", err)
		}
	}
	ids := make([]int64, 0, len(ls.docs))
	for id := range ls.docs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if err := b.insertLinks(ctx, id, ls.docs[id], cands); err != nil {
			return err
		}
	}
	b.links = nil
	return nil
}

// linkRows is how many links one INSERT statement carries.
const linkRows = 32

// insertLinks writes the resolved links of document id, linkRows to a
// statement.
func (b *Batch) insertLinks(ctx context.Context, id int64, d *newLinks, cands map[string][]links.Candidate) error {
	args := make([]any, 0, 10*linkRows)
	flush := func(n int) error {
		if n == 0 {
			return nil
		}
		q := "INSERT INTO links(src_id, seq, kind, target, fragment, alias, line, key, attach, dst_id) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?,?,?),", n), ",")
		if _, err := b.exec(ctx, q, args...); err != nil {
			return fmt.Errorf("index links of %s/%s: %w", d.col, d.rel, err)
		}
		args = args[:0]
		return nil
	}
	n := 0
	for i, l := range d.links {
		key, attach := links.Key(l.Target), 0
		var dst any
		switch {
		case l.Target == "":
			dst, key = id, "" // a heading of the same note
		case links.IsAttachment(l.Target):
			attach = 1
		default:
			if to := links.Resolve(l.Kind, l.Target, d.col, d.rel, cands[key]); to != 0 {
				dst = to
			}
		}
		args = append(args, id, i, int(l.Kind), l.Target, l.Fragment, l.Alias, l.Line, key, attach, dst)
		if n++; n == linkRows {
			if err := flush(n); err != nil {
				return err
			}
			n = 0
		}
	}
	return flush(n)
}

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// candidates loads, for each key, the documents answering to it.
func candidates(ctx context.Context, tx querier, keys []any) (map[string][]links.Candidate, error) {
	out := map[string][]links.Candidate{}
	for _, chunk := range chunkArgs(keys) {
		rows, err := tx.QueryContext(ctx, "SELECT k.key, k.doc_id, k.alias, d.collection, d.rel_path FROM doc_keys k JOIN documents d ON d.id = k.doc_id WHERE k.key IN ("+placeholders(len(chunk))+")", chunk...)
		if err != nil {
			return nil, fmt.Errorf("resolve links: %w", err)
		}
		for rows.Next() {
			var k string
			var c links.Candidate
			if err := rows.Scan(&k, &c.ID, &c.Alias, &c.Collection, &c.RelPath); err != nil {
				rows.Close()
				return nil, err
			}
			out[k] = append(out[k], c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func stringKeys(m map[string]bool) []any {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := make([]any, len(ks))
	for i, k := range ks {
		out[i] = k
	}
	return out
}

// chunkArgs splits args into pieces SQLite takes as IN (...) lists.
func chunkArgs(args []any) [][]any {
	var out [][]any
	for len(args) > 0 {
		n := min(len(args), 500)
		out = append(out, args[:n])
		args = args[n:]
	}
	return out
}

// backfillLinks extracts the links and aliases of every document already
// in an index created before links were stored.
func backfillLinks(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT d.id, d.collection, d.rel_path, d.mime, c.content FROM documents d JOIN contents c ON c.doc_id = d.id")
	if err != nil {
		return err
	}
	var docs []Document
	var ids []int64
	for rows.Next() {
		var d Document
		var id int64
		if err := rows.Scan(&id, &d.Collection, &d.RelPath, &d.Mime, &d.Content); err != nil {
			rows.Close()
			return err
		}
		if d.Mime == "text/markdown" {
			d.Links, d.Aliases = links.Extract(d.Content), links.Aliases(d.Content)
		}
		d.Content = ""
		docs, ids = append(docs, d), append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	b := &Batch{tx: tx}
	for i := range docs {
		if err := b.putLinks(ctx, ids[i], &docs[i], false); err != nil {
			return err
		}
	}
	if err := b.resolveLinks(ctx); err != nil {
		return err
	}
	for _, st := range b.stmts {
		st.Close()
	}
	return nil
}
