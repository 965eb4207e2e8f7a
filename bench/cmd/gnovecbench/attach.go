//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gnosearch/gno/retrieval/store"
)

// A gno index with a gen set's vectors and its built graph: fill -from
// stores the set's vectors for the index's first chunks (ascending id),
// attach rewrites the set's graph file (keys 0..n-1) into the engine's
// graph of that model (keys the chunk ids, the model's name, the .ver
// sidecar of the index's vectors_version), so a daemon maps a graph of a
// million vectors without the ~850 s of CPU its build costs a second
// time. Both hold to the format that retrieval/vector/format.go
// documents (format 2); vector.Open checks the result as any file.

// fillFrom stores the vectors of the gen set in dir for the first n
// chunks of the index (ascending id; all of them when it has fewer), in
// batches of 10,000, each its own vectors_version.
func fillFrom(index, model, dir string) error {
	ctx := context.Background()
	m, err := readMeta(dir)
	if err != nil {
		return err
	}
	st, queue, err := openQueue(ctx, index)
	if err != nil {
		return err
	}
	defer st.Close()
	ids := make([]int64, 0, len(queue))
	for _, q := range queue {
		ids = append(ids, q.ID)
	}
	chunks := len(ids)
	queue = nil
	if chunks == 0 {
		return fmt.Errorf("%s has no chunk without vectors to fill", index)
	}
	// attach gives vector i to the i-th smallest chunk holding one: the two
	// agree only when the model had no vectors before the fill.
	if have, err := st.VectorChunks(ctx, model); err != nil {
		return err
	} else if len(have) > 0 {
		return fmt.Errorf("%s already holds %d vectors of %s: fill -from needs an index without them (attach maps vector i to the i-th chunk holding one)", index, len(have), model)
	}
	slices.Sort(ids)
	ids = ids[:min(len(ids), m.n)]
	f, err := os.Open(filepath.Join(dir, "vectors.f32"))
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	t0, c0 := time.Now(), cpu()
	const batch = 10_000
	raw := make([]byte, 4*m.dims)
	for at := 0; at < len(ids); at += batch {
		end := min(at+batch, len(ids))
		vecs := make([][]float32, 0, end-at)
		for range end - at {
			if _, err := io.ReadFull(r, raw); err != nil {
				return err
			}
			v := make([]float32, m.dims)
			for j := range v {
				v[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
			}
			vecs = append(vecs, v)
		}
		if err := st.PutVectors(ctx, model, ids[at:end], vecs); err != nil {
			return err
		}
	}
	ver, err := st.Meta(ctx, "vectors_version")
	if err != nil {
		return err
	}
	fmt.Printf("filled %d of %d chunks (ids %d..%d) with the set's %d-dim vectors as %s: wall %s, cpu %s; vectors_version %s\n",
		len(ids), chunks, ids[0], ids[len(ids)-1], m.dims, model, time.Since(t0).Round(time.Millisecond),
		(cpu() - c0).Round(time.Millisecond), ver)
	return nil
}

// attach writes graph (a gen set's, keys 0..n-1, no deleted nodes) to out
// as model's graph of the index: key i becomes the i-th smallest chunk id
// holding a vector of model, so the keys stay ascending and only the
// header, the model and the keys change; scales, codes and links are
// copied as they are. out.ver gets the index's vectors_version.
func attach(graph, index, model, out string) error {
	ctx := context.Background()
	st, err := store.Open(ctx, index)
	if err != nil {
		return err
	}
	defer st.Close()
	live, err := st.VectorChunks(ctx, model)
	if err != nil {
		return err
	}
	ver, err := st.Meta(ctx, "vectors_version")
	if err != nil {
		return err
	}
	ids := make([]int64, 0, len(live))
	for id := range live {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	src, err := os.Open(graph)
	if err != nil {
		return err
	}
	defer src.Close()
	le := binary.LittleEndian
	head := make([]byte, 64)
	if _, err := io.ReadFull(src, head); err != nil {
		return err
	}
	if string(head[:12]) != "gno-hnsw-v2\n" {
		return fmt.Errorf("%s: not a format-2 graph", graph)
	}
	n, nLive, mlen := le.Uint64(head[40:]), le.Uint64(head[48:]), int64(le.Uint32(head[56:]))
	if n != nLive || n != uint64(len(ids)) {
		return fmt.Errorf("%s holds %d nodes (%d live), the index %d vectors of %s", graph, n, nLive, len(ids), model)
	}
	pad8 := func(x int64) int64 { return (x + 7) &^ 7 }
	oldKeys := pad8(64 + mlen)
	keys := make([]byte, 8*n)
	if _, err := src.ReadAt(keys, oldKeys); err != nil {
		return err
	}
	for i := range n {
		if le.Uint64(keys[8*i:]) != i {
			return fmt.Errorf("%s: key %d is %d, want the gen set's %d", graph, i, le.Uint64(keys[8*i:]), i)
		}
		le.PutUint64(keys[8*i:], uint64(ids[i]))
	}
	le.PutUint32(head[56:], uint32(len(model)))
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	le.PutUint32(head[60:], crc32.Update(crc32.Checksum(head[:60], castagnoli), castagnoli, []byte(model)))
	newHead := make([]byte, pad8(64+int64(len(model))))
	copy(newHead, head)
	copy(newHead[64:], model)
	tmp := out + ".tmp"
	dst, err := os.Create(tmp)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			os.Remove(tmp) // a failed attach leaves no partial graph behind
		}
	}()
	w := bufio.NewWriterSize(dst, 1<<20)
	w.Write(newHead) // a bufio.Writer keeps its first error for Flush
	w.Write(keys)
	if _, err := src.Seek(oldKeys+pad8(int64(len(keys))), io.SeekStart); err != nil {
		dst.Close()
		return err
	}
	if _, err := io.Copy(w, src); err != nil {
		dst.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return err
	}
	done = true
	if err := os.WriteFile(out+".ver", []byte(ver), 0o644); err != nil {
		return err
	}
	fmt.Printf("attached %d vectors of %s to %s (vectors_version %s)\n", n, model, out, ver)
	return nil
}
