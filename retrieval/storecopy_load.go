package retrieval

import (
	"context"
	"slices"

	"github.com/gnosearch/gno/retrieval/store"
)

// load copies the documents and the vectors as one bulk load of the
// destination (BeginBulk … EndBulk): SQLite merges its word index once,
// Postgres builds its vector index once after the vectors are in instead
// of growing it per insert (the most of the server's time in a copy).
// A copy killed in between leaves what a killed sync leaves: the next
// run, or the next write, finishes it.
func (c *copier) load(ctx context.Context) error {
	if err := c.dst.BeginBulk(ctx); err != nil {
		return err
	}
	err := c.documents(ctx)
	if err == nil {
		err = c.vectors(ctx)
	}
	if endErr := c.dst.EndBulk(context.WithoutCancel(ctx)); err == nil {
		err = endErr
	}
	return err
}

// vectors copies the vectors of the source's model that the destination
// lacks, in batches of one transaction each.
func (c *copier) vectors(ctx context.Context) error {
	model, err := c.src.VectorModel(ctx)
	if err != nil || model == "" {
		return err
	}
	c.res.Model = model
	total, _, err := c.src.VectorCount(ctx, model)
	if err != nil {
		return err
	}
	have, err := c.dst.VectorChunks(ctx, model)
	if err != nil {
		return err
	}
	const batch = 2048
	var ids []int64
	var vecs [][]float32
	done := 0
	flush := func() error {
		if len(ids) == 0 {
			return nil
		}
		if err := c.dst.PutVectors(ctx, model, ids, vecs); err != nil {
			return err
		}
		c.res.VectorsWritten += len(ids)
		ids, vecs = ids[:0], vecs[:0]
		return nil
	}
	var werr error
	err = c.src.EachVector(ctx, model, -1, func(chunkID int64, vec []float32) {
		if werr != nil {
			return
		}
		done++
		d, ok := c.docMap[store.DocOfChunk(chunkID)]
		if !ok {
			return
		}
		id := store.ChunkID(d, int(chunkID&0xffff))
		if have[id] {
			return
		}
		ids = append(ids, id)
		vecs = append(vecs, slices.Clone(vec))
		if len(ids) >= batch {
			werr = flush()
			c.progress(CopyProgress{Stage: "vectors", Done: done, Total: total})
		}
	})
	if err == nil {
		err = werr
	}
	if err == nil {
		err = flush()
	}
	c.progress(CopyProgress{Stage: "vectors", Done: done, Total: total})
	return err
}
