package onnx

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/cpu"
)

// The optimized-model cache.
//
// ONNX Runtime spends most of a model's load optimising its graph (fusing
// attention, layer norms, GELU, quantised matmuls) and copying its weights,
// the same work for the same model every time a process starts: ~200 ms of
// CPU of the ~600 a first `gno query --fast` took. So the first load asks
// ONNX Runtime to save the graph it optimised (SessionOptions' optimized
// model file path), in its own flatbuffer format (ORT), and later loads
// create the session from that copy, mapped into memory, with the runtime
// reading the weights in place (session.use_ort_model_bytes_directly and
// _for_initializers) instead of parsing and copying them.
//
// An entry lives in the model's folder, optimized/model-<key>.ort, and is
// used only when everything it was derived from is unchanged: the key
// hashes the model file's size and modification time, the ONNX Runtime
// version (the ORT format is the runtime's own), the CPU's instruction-set
// flags (an optimised graph may hold kernels chosen for this CPU) and this
// format's version. It ends with a trailer holding the key again, the
// graph's length and CRC-32C, and the graph facts gno checks before running
// a model (so the original need not be read); an entry whose trailer or
// checksum does not match is deleted and rebuilt, and so is one the runtime
// refuses. Entries are written to a temporary file, synced and renamed, so
// a killed process leaves either no entry or a whole one, and are never
// modified in place (a mapped file must not shrink). A model folder that
// cannot be written simply runs uncached. The session is created with the
// same options and optimisation level either way, and
// TestOptimizedCacheSameVectors checks that vectors are bit-identical.

// cacheFormat versions the entry layout and the key's recipe.
const cacheFormat = "gno-onnx-opt/2"

// cacheMagic ends every entry.
var cacheMagic = [8]byte{'g', 'n', 'o', 'o', 'p', 't', '0', '1'}

// cacheDir is the folder, inside a model's folder, entries are kept in.
const cacheDir = "optimized"

// castagnoli is the CRC-32C table; hash/crc32 builds it once, on the
// first call, not when gno starts.
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// cacheTrailer describes an entry; it follows the graph, then its own
// length (8 bytes, little-endian) and cacheMagic.
type cacheTrailer struct {
	Format string    `json:"format"`
	Key    string    `json:"key"`
	Size   int64     `json:"size"`
	CRC32C uint32    `json:"crc32c"`
	Graph  graphInfo `json:"graph"`
}

// cacheKey identifies the optimised form of the model at modelPath for
// this runtime and CPU.
func cacheKey(modelPath, runtimeVersion string) (string, error) {
	fi, err := os.Stat(modelPath)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%d %d\n%s\n%s/%s\n%v\n%v\n", cacheFormat, fi.Size(), fi.ModTime().UnixNano(),
		runtimeVersion, runtime.GOOS, runtime.GOARCH, cpu.X86, cpu.ARM64)
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

// cachePath is where the entry with key lives for a model folder.
func cachePath(modelDir, key string) string {
	return filepath.Join(modelDir, cacheDir, "model-"+key+".ort")
}

// errCacheInvalid marks an entry that exists but cannot be trusted.
var errCacheInvalid = errors.New("invalid optimized-model cache entry")

// readCached maps the entry at path and returns its graph and graph facts.
// A missing entry returns an error satisfying os.IsNotExist; a damaged one,
// errCacheInvalid.
func readCached(path, key string) (graph []byte, gi *graphInfo, release func(), mapped bool, err error) {
	data, release, mapped, err := mapFile(path)
	if err != nil {
		return nil, nil, nil, false, err
	}
	graph, gi, err = parseCached(data, key)
	if err != nil {
		release()
		return nil, nil, nil, false, fmt.Errorf("%w %s: %v", errCacheInvalid, path, err)
	}
	return graph, gi, release, mapped, nil
}

// parseCached checks an entry's trailer and checksum.
func parseCached(data []byte, key string) ([]byte, *graphInfo, error) {
	n := len(data)
	if n < 16 || !bytes.Equal(data[n-8:], cacheMagic[:]) {
		return nil, nil, errors.New("no trailer")
	}
	tl := binary.LittleEndian.Uint64(data[n-16 : n-8])
	if tl == 0 || tl > uint64(n-16) {
		return nil, nil, errors.New("bad trailer length")
	}
	var t cacheTrailer
	if err := json.Unmarshal(data[n-16-int(tl):n-16], &t); err != nil {
		return nil, nil, fmt.Errorf("trailer: %v", err)
	}
	if t.Format != cacheFormat || t.Key != key {
		return nil, nil, fmt.Errorf("made for %s %s, want %s %s", t.Format, t.Key, cacheFormat, key)
	}
	if t.Size != int64(n-16-int(tl)) {
		return nil, nil, fmt.Errorf("graph is %d bytes, trailer says %d", n-16-int(tl), t.Size)
	}
	graph := data[:t.Size]
	if crc32.Checksum(graph, castagnoli()) != t.CRC32C {
		return nil, nil, errors.New("checksum mismatch")
	}
	if len(t.Graph.Inputs) == 0 || len(t.Graph.Outputs) == 0 {
		return nil, nil, errors.New("no graph facts")
	}
	return graph, &t.Graph, nil
}

// pendingCache is an entry being written: ONNX Runtime saves the optimised
// graph to tmp while it creates the session; commit then seals and
// publishes it.
type pendingCache struct {
	tmp, final, key string
}

// newPending prepares an entry for key in modelDir, or returns nil when the
// folder cannot hold one (read-only install, say).
func newPending(modelDir, key string) *pendingCache {
	dir := filepath.Join(modelDir, cacheDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	removeStale(dir)
	var r [6]byte
	rand.Read(r[:])
	return &pendingCache{
		tmp:   filepath.Join(dir, fmt.Sprintf(".model-%s-%d-%x.tmp", key, os.Getpid(), r)),
		final: cachePath(modelDir, key),
		key:   key,
	}
}

// commit appends the trailer to the graph ONNX Runtime wrote, syncs it and
// renames it into place, replacing the model's older entries. Failure
// leaves no entry, never a partial one.
func (p *pendingCache) commit(gi *graphInfo) error {
	err := p.seal(gi)
	if err == nil {
		err = os.Rename(p.tmp, p.final)
	}
	if err != nil {
		os.Remove(p.tmp)
		return fmt.Errorf("write optimized-model cache %s: %w", p.final, err)
	}
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(p.final), "model-*"))
	for _, o := range old {
		if o != p.final {
			os.Remove(o)
		}
	}
	return nil
}

func (p *pendingCache) seal(gi *graphInfo) error {
	f, err := os.OpenFile(p.tmp, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	h := crc32.New(castagnoli())
	size, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	if size == 0 {
		return errors.New("runtime wrote an empty graph")
	}
	t, err := json.Marshal(cacheTrailer{Format: cacheFormat, Key: p.key, Size: size, CRC32C: h.Sum32(), Graph: *gi})
	if err != nil {
		return err
	}
	t = binary.LittleEndian.AppendUint64(t, uint64(len(t)))
	t = append(t, cacheMagic[:]...)
	if _, err := f.Write(t); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// abandon removes a pending entry whose session failed.
func (p *pendingCache) abandon() { os.Remove(p.tmp) }

// removeStale deletes temporary files that killed processes left behind
// (older than an hour, so a load in progress elsewhere keeps its own).
func removeStale(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
