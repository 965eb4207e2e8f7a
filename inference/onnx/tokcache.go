package onnx

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
)

// The parsed-vocabulary cache.
//
// Decoding a BERT tokenizer.json (700 KB, 30,000 vocabulary entries) is
// most of a tokenizer's load even done once and typed, and it is the same
// work every time a process starts. The first load of a WordPiece tokenizer
// therefore writes what it parsed in a compact binary form next to the
// optimized model (tokenizer-<sha>.bin, the SHA-256 of the tokenizer.json
// in the name and inside), and later loads read that instead: the
// vocabulary as (id, token) pairs, the rest of the file (normaliser,
// pre-tokenizer, post-processor, decoder, added tokens) as the JSON it was.
// The tokenizer is then built by the same code from the same values, so
// ids are identical (TestTokenizerCacheSameIDs). An entry ends with a
// CRC-32C of everything before it; one that does not check out is deleted
// and rebuilt, and entries are written to a temporary file and renamed.

var tokCacheMagic = [8]byte{'g', 'n', 'o', 't', 'o', 'k', '0', '1'}

// tokCacheMeta is the part of an entry kept as JSON.
type tokCacheMeta struct {
	Config               json.RawMessage `json:"config"`
	UnkToken             any             `json:"unk_token"`
	MaxInputCharsPerWord any             `json:"max_input_chars_per_word"`
}

func tokCachePath(dir string, sum [32]byte) string {
	return filepath.Join(dir, "tokenizer-"+hex.EncodeToString(sum[:12])+".bin")
}

// readTokenizerCache returns the parsed tokenizer.json raw from the cache
// in dir, when a valid entry for exactly these bytes is there.
func readTokenizerCache(dir string, raw []byte) (*tokenizerFile, bool) {
	if dir == "" {
		return nil, false
	}
	sum := sha256.Sum256(raw)
	path := tokCachePath(dir, sum)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	tf, err := decodeTokCache(data, sum)
	if err != nil {
		os.Remove(path) // damaged: rebuilt by this load
		return nil, false
	}
	return tf, true
}

func decodeTokCache(data []byte, sum [32]byte) (*tokenizerFile, error) {
	n := len(data)
	if n < 8+32+4 || !bytes.Equal(data[:8], tokCacheMagic[:]) {
		return nil, errors.New("not a tokenizer cache entry")
	}
	if crc32.Checksum(data[:n-4], castagnoli()) != binary.LittleEndian.Uint32(data[n-4:]) {
		return nil, errors.New("checksum mismatch")
	}
	if !bytes.Equal(data[8:40], sum[:]) {
		return nil, errors.New("made from another tokenizer.json")
	}
	r := bytes.NewReader(data[40 : n-4])
	ml, err := binary.ReadUvarint(r)
	if err != nil || ml > uint64(r.Len()) {
		return nil, errors.New("bad metadata length")
	}
	mb := make([]byte, ml)
	r.Read(mb)
	var meta tokCacheMeta
	if err := json.Unmarshal(mb, &meta); err != nil {
		return nil, err
	}
	tf := &tokenizerFile{WordPiece: &wordPieceModel{UnkToken: meta.UnkToken, MaxInputCharsPerWord: meta.MaxInputCharsPerWord}}
	if err := json.Unmarshal(meta.Config, &tf.Config); err != nil {
		return nil, err
	}
	count, err := binary.ReadUvarint(r)
	if err != nil || count > uint64(r.Len()) {
		return nil, errors.New("bad vocabulary size")
	}
	// Every token is a substring of one string: one allocation, not 30,000.
	rest := data[len(data)-4-r.Len() : n-4]
	all := string(rest)
	vocab := make(map[string]int, count)
	off := 0
	for range count {
		id, k := binary.Uvarint(rest[off:])
		if k <= 0 {
			return nil, errors.New("bad token id")
		}
		off += k
		l, k := binary.Uvarint(rest[off:])
		if k <= 0 || l > uint64(len(rest)-off-k) {
			return nil, errors.New("bad token length")
		}
		off += k
		vocab[all[off:off+int(l)]] = int(id)
		off += int(l)
	}
	if off != len(rest) || len(vocab) != int(count) {
		return nil, errors.New("vocabulary does not add up")
	}
	tf.WordPiece.Vocab = vocab
	return tf, nil
}

// writeTokenizerCache stores a parsed WordPiece tokenizer.json in dir.
// Failure only costs the next load a parse.
func writeTokenizerCache(dir string, raw []byte, tf *tokenizerFile) error {
	if tf.WordPiece == nil {
		return nil
	}
	data, err := encodeTokCache(sha256.Sum256(raw), tf)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tokenizer-*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644) // like the model's other files (CreateTemp makes 0600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	final := tokCachePath(dir, sha256.Sum256(raw))
	if err == nil {
		err = os.Rename(f.Name(), final)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write tokenizer cache %s: %w", final, err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "tokenizer-*.bin"))
	for _, o := range old {
		if o != final {
			os.Remove(o) // made from an earlier tokenizer.json
		}
	}
	return nil
}

func encodeTokCache(sum [32]byte, tf *tokenizerFile) ([]byte, error) {
	cfg, err := json.Marshal(tf.Config)
	if err != nil {
		return nil, err
	}
	meta, err := json.Marshal(tokCacheMeta{Config: cfg, UnkToken: tf.WordPiece.UnkToken, MaxInputCharsPerWord: tf.WordPiece.MaxInputCharsPerWord})
	if err != nil {
		return nil, err
	}
	type entry struct {
		tok string
		id  int
	}
	vocab := make([]entry, 0, len(tf.WordPiece.Vocab))
	size := 0
	for tok, id := range tf.WordPiece.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("negative token id %d", id)
		}
		vocab = append(vocab, entry{tok, id})
		size += len(tok) + 8
	}
	sort.Slice(vocab, func(i, j int) bool {
		return vocab[i].id < vocab[j].id || vocab[i].id == vocab[j].id && vocab[i].tok < vocab[j].tok
	})
	out := make([]byte, 0, 8+32+len(meta)+size+16)
	out = append(out, tokCacheMagic[:]...)
	out = append(out, sum[:]...)
	out = binary.AppendUvarint(out, uint64(len(meta)))
	out = append(out, meta...)
	out = binary.AppendUvarint(out, uint64(len(vocab)))
	for _, e := range vocab {
		out = binary.AppendUvarint(out, uint64(e.id))
		out = binary.AppendUvarint(out, uint64(len(e.tok)))
		out = append(out, e.tok...)
	}
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli())), nil
}
