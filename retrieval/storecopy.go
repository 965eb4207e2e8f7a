package retrieval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/store"
)

// Copying an index between stores (`gno store copy`).
//
// The copy reads the source only through store.Backend and writes the
// destination through its write batches, so the destination's word index
// and statistics are built as a sync builds them. It is resumable: a
// destination remembers its source (meta copy_source), and a document
// already there with the same hash is not written again, nor a vector
// already stored. It ends with a check: equal counts, and the same top
// results for a sample of searches on both sides.
//
// Links and aliases are copied as written and resolved by the destination
// as a sync would. The source's writer lock is held for the copy, so no
// sync changes it between two reads. What the contract has no reader for
// is not copied: kept earlier texts, the change feed's removals and each
// document's own generation (every copied document is of the source's
// generation), the reconcile cache (its cursors cannot be listed),
// package docs, whether a tag was added by a user, and a document's count
// of invalid bytes.

// CopyMetaSource is the destination's meta key naming the source it is a
// copy of, so a second run resumes it and any other copy is refused.
const CopyMetaSource = "copy_source"

// copyBatch is how many documents one destination transaction writes (a
// variable so a test can interrupt a copy between batches).
var copyBatch = 256

// CopyProgress is one step of a copy, for a progress line.
type CopyProgress struct {
	// Stage is "documents", "vectors" or "check".
	Stage       string
	Done, Total int
}

// CopyResult is what a copy did and what its check found.
type CopyResult struct {
	From           string   `json:"from"`
	To             string   `json:"to"`
	Documents      int      `json:"documents"`
	Written        int      `json:"written"`
	Resumed        int      `json:"resumed"`
	Removed        int      `json:"removed"`
	Chunks         int      `json:"chunks"`
	Vectors        int      `json:"vectors"`
	VectorsWritten int      `json:"vectors_written"`
	Model          string   `json:"model,omitempty"`
	Skipped        int      `json:"skipped_files"`
	Generation     int64    `json:"generation"`
	Searches       int      `json:"searches_checked"`
	NotCopied      []string `json:"not_copied"`
	Seconds        float64  `json:"seconds"`
}

// notCopied names what a copy leaves behind, for the result.
var notCopied = []string{"kept earlier texts", "removals in the change feed", "per-document generations", "reconcile cache", "package docs", "user-tag marks", "invalid-byte counts"}

// CopyStore copies the index at from into the index at to (each a SQLite
// file or a store URL), refusing a destination that holds documents and is
// not an earlier copy of from. progress, if not nil, is called as it goes.
func CopyStore(ctx context.Context, from, to string, progress func(CopyProgress)) (*CopyResult, error) {
	start := time.Now()
	if progress == nil {
		progress = func(CopyProgress) {}
	}
	fromID, err := storeIdentity(from)
	if err != nil {
		return nil, err
	}
	toID, err := storeIdentity(to)
	if err != nil {
		return nil, err
	}
	if fromID == toID {
		return nil, gnoerr.New(gnoerr.InvalidInput, "the source and the destination are the same index (%s)", store.Redact(from))
	}
	if !store.IsURL(from) {
		if _, err := os.Stat(from); err != nil {
			return nil, gnoerr.Wrap(gnoerr.InvalidInput, err, "no index at %s", from)
		}
	}
	// The source's lock keeps a sync (a daemon's watcher) from changing it
	// between the copy's reads: a page would miss a document added or
	// renamed under a lower id.
	src, closeSrc, err := lockedStore(ctx, from)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	dst, closeDst, err := lockedStore(ctx, to)
	if err != nil {
		return nil, err
	}
	defer closeDst()
	c := &copier{src: src, dst: dst, progress: progress,
		res: &CopyResult{From: store.Redact(from), To: store.Redact(to), NotCopied: notCopied}}
	if err := c.refuseNames(ctx); err != nil {
		return nil, err
	}
	if err := c.claim(ctx, fromID); err != nil {
		return nil, err
	}
	if err := c.load(ctx); err != nil {
		return nil, err
	}
	if err := c.check(ctx); err != nil {
		return nil, err
	}
	c.res.Seconds = time.Since(start).Seconds()
	return c.res, nil
}

// storeIdentity names an index for copy_source: a URL without its
// password, or a file's absolute path.
func storeIdentity(loc string) (string, error) {
	if store.IsURL(loc) {
		return store.Redact(loc), nil
	}
	abs, err := filepath.Abs(loc)
	if err != nil {
		return "", gnoerr.Wrap(gnoerr.InvalidInput, err, "index file %s", loc)
	}
	return abs, nil
}

type copier struct {
	src, dst store.Backend
	progress func(CopyProgress)
	res      *CopyResult
	gen      int64
	// docMap maps source document ids to the destination's.
	docMap map[int64]int64
	// aliases are the source documents' front-matter aliases.
	aliases map[int64][]string
	// dstTags are the destination's tags by its document ids, read once
	// (a resumed document is written again when its tags differ).
	dstTags map[int64][]string
}

// claim refuses a destination with documents that is not a copy of
// fromID, and marks it as one.
func (c *copier) claim(ctx context.Context, fromID string) error {
	got, err := c.dst.Meta(ctx, CopyMetaSource)
	if err != nil {
		return err
	}
	some, err := c.dst.List(ctx, nil, "", 1, 0)
	if err != nil {
		return err
	}
	if len(some) > 0 && got != fromID {
		what := "an index of its own"
		if got != "" {
			what = "a copy of " + got
		}
		return gnoerr.New(gnoerr.InvalidInput, "%s is not empty (it holds %s): copy into an empty index, or remove it first", c.res.To, what)
	}
	if got != fromID {
		return c.dst.SetMeta(ctx, CopyMetaSource, fromID)
	}
	return nil
}

// documents copies every document with its chunks, tags and governing
// declarations, then the skipped files, in batches of copyBatch.
func (c *copier) documents(ctx context.Context) error {
	var err error
	if c.gen, err = c.src.Generation(ctx); err != nil {
		return err
	}
	c.res.Generation = c.gen
	cols, err := c.src.CollectionNames(ctx)
	if err != nil {
		return err
	}
	tags, err := c.src.DocTags(ctx)
	if err != nil {
		return err
	}
	notes, err := c.src.GoverningNotes(ctx)
	if err != nil {
		return err
	}
	declares := map[int64]links.Declarations{}
	for _, n := range notes {
		declares[n.ID] = n.Declares
	}
	// A collection the source no longer has goes from the copy too.
	if _, err := c.dst.Cleanup(ctx, cols); err != nil {
		return err
	}
	if c.dstTags, err = c.dst.DocTags(ctx); err != nil {
		return err
	}
	names, err := c.src.NoteNames(ctx, nil)
	if err != nil {
		return err
	}
	c.aliases = map[int64][]string{}
	for _, n := range names {
		if len(n.Aliases) > 0 {
			c.aliases[n.ID] = n.Aliases
		}
	}
	total := 0
	for _, col := range cols {
		st, err := c.src.DocStates(ctx, col)
		if err != nil {
			return err
		}
		total += len(st)
	}
	c.res.Documents = total
	c.docMap = make(map[int64]int64, total)
	done := 0
	for _, col := range cols {
		have, err := c.statesWithHashes(ctx, col)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		// Pages by id (keyset): each a range scan of the key, where
		// pages by offset would read every row before theirs again.
		for after := int64(0); ; {
			metas, err := c.src.ListAfter(ctx, col, after, copyBatch)
			if err != nil {
				return err
			}
			if len(metas) == 0 {
				break
			}
			after = metas[len(metas)-1].ID
			if err := c.docBatch(ctx, col, metas, have, tags, declares); err != nil {
				return err
			}
			for _, m := range metas {
				seen[m.RelPath] = true
			}
			done += len(metas)
			c.progress(CopyProgress{Stage: "documents", Done: done, Total: total})
		}
		if err := c.finishCollection(ctx, col, have, seen); err != nil {
			return err
		}
	}
	// Every batch is at the source's generation; this empty one sets it
	// also when the source has no documents.
	b, err := c.dst.Begin(ctx, c.gen)
	if err != nil {
		return err
	}
	return b.Commit()
}

// docBatch writes the documents of metas not already in the destination
// with the same hash, in one transaction, and maps their ids.
func (c *copier) docBatch(ctx context.Context, col string, metas []*store.DocMeta, have map[string]store.DocState, tags map[int64][]string, declares map[int64]links.Declarations) error {
	var todo []*store.DocMeta
	for _, m := range metas {
		if h, ok := have[m.RelPath]; ok && h.Hash == m.Hash && h.Size == m.Size && h.MtimeNS == m.MtimeNS && sameTags(c.dstTags[h.ID], tags[m.ID]) {
			c.docMap[m.ID] = h.ID
			c.res.Resumed++
			continue
		}
		todo = append(todo, m)
	}
	if len(todo) == 0 {
		return nil
	}
	ids := make([]int64, len(todo))
	for i, m := range todo {
		ids[i] = m.ID
	}
	chunks, err := c.chunksOf(ctx, ids)
	if err != nil {
		return err
	}
	b, err := c.dst.Begin(ctx, c.gen)
	if err != nil {
		return err
	}
	defer b.Rollback()
	rels := make([]string, len(todo))
	for i, m := range todo {
		text, err := c.src.Content(ctx, m.ID)
		if err != nil {
			return err
		}
		d := &store.Document{Collection: m.Collection, RelPath: m.RelPath, Hash: m.Hash, Title: m.Title,
			Lang: m.Lang, Mime: m.Mime, Tags: tags[m.ID], Content: text, Size: m.Size, MtimeNS: m.MtimeNS,
			LineCount: m.LineCount, Chunks: toChunks(text, chunks[m.ID]), Declares: declares[m.ID], Aliases: c.aliases[m.ID]}
		if d.Links, err = c.linksOf(ctx, m.ID); err != nil {
			return err
		}
		if err := b.Put(ctx, d); err != nil {
			return err
		}
		rels[i] = m.RelPath
		c.res.Written++
	}
	if err := b.Commit(); err != nil {
		return err
	}
	st, err := c.dst.DocStatesOf(ctx, col, rels)
	if err != nil {
		return err
	}
	for _, m := range todo {
		s, ok := st[m.RelPath]
		if !ok {
			return fmt.Errorf("copy %s/%s: not in the destination after its batch", m.Collection, m.RelPath)
		}
		c.docMap[m.ID] = s.ID
	}
	return nil
}

// chunksOf reads the chunks of docs, in order: chunk ids are the
// document's id and a sequence number, asked for 16 at a time.
func (c *copier) chunksOf(ctx context.Context, docs []int64) (map[int64][]*store.ChunkRow, error) {
	const step = 16
	out := map[int64][]*store.ChunkRow{}
	pending := docs
	for seq := 0; len(pending) > 0; seq += step {
		ids := make([]int64, 0, len(pending)*step)
		for _, d := range pending {
			for i := range step {
				ids = append(ids, store.ChunkID(d, seq+i))
			}
		}
		rows, err := c.src.Chunks(ctx, ids)
		if err != nil {
			return nil, err
		}
		var more []int64
		for _, d := range pending {
			for i := range step {
				r, ok := rows[store.ChunkID(d, seq+i)]
				if !ok {
					break
				}
				out[d] = append(out[d], r)
				if i == step-1 {
					more = append(more, d)
				}
			}
		}
		pending = more
	}
	return out, nil
}

// toChunks turns stored chunk rows back into the chunks a sync writes;
// their byte offsets, which the store does not return, are found in text.
func toChunks(text string, rows []*store.ChunkRow) []chunk.Chunk {
	out := make([]chunk.Chunk, len(rows))
	at := 0
	for i, r := range rows {
		var heads []string
		if r.Headings != "" {
			heads = strings.Split(r.Headings, " > ")
		}
		c := chunk.Chunk{Text: r.Body, Headings: heads, StartLine: r.StartLine, EndLine: r.EndLine}
		if j := strings.Index(text[at:], r.Body); j >= 0 {
			c.StartByte, c.EndByte = at+j, at+j+len(r.Body)
			at += j
		} else if j := strings.Index(text, r.Body); j >= 0 {
			c.StartByte, c.EndByte = j, j+len(r.Body)
		}
		out[i] = c
	}
	return out
}

// finishCollection removes documents of an earlier partial copy that
// the source no longer has, and copies the collection's skipped files.
func (c *copier) finishCollection(ctx context.Context, col string, have map[string]store.DocState, seen map[string]bool) error {
	skips, err := c.src.SkipStates(ctx, col)
	if err != nil {
		return err
	}
	old, err := c.dst.SkipStates(ctx, col)
	if err != nil {
		return err
	}
	b, err := c.dst.Begin(ctx, c.gen)
	if err != nil {
		return err
	}
	defer b.Rollback()
	for rel, h := range have {
		if !seen[rel] {
			if err := b.Remove(ctx, h.ID); err != nil {
				return err
			}
			c.res.Removed++
		}
	}
	for rel, st := range skips {
		c.res.Skipped++
		if o, ok := old[rel]; ok && o == st {
			continue
		}
		if err := b.PutSkip(ctx, col, rel, st); err != nil {
			return err
		}
	}
	for rel := range old {
		if _, ok := skips[rel]; !ok {
			if err := b.DeleteSkip(ctx, col, rel); err != nil {
				return err
			}
		}
	}
	return b.Commit()
}
