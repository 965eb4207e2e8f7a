// Package wordtok cuts text into the words of gno's word indexes exactly
// as SQLite's FTS5 tokenizers of those indexes do: unicode61 with
// remove_diacritics 2 (and, for the segmented index, the categories that
// keep combining marks), then FTS5's porter stemmer. The Postgres store
// keeps the same words as the SQLite store, and asking an in-memory FTS5
// table for them cost half of a sync's CPU.
//
// Its character tables are SQLite's (tables.go, written by gentables from
// the SQLite gno links, not from Go's newer unicode package); the
// tokenizer and stemmer follow fts5_tokenize.c step by step, down to how
// it reads malformed UTF-8. The tests compare it with FTS5 itself.
package wordtok

//go:generate go run ./gentables -o tables.go

import (
	"sort"
	"sync"
)

// Tokenizer is one FTS5 tokenizer setting.
type Tokenizer struct {
	spec  string
	shift uint // of its two property bits in propRuns
}

// The tokenizers of gno's two word indexes.
var (
	// Words is the word index's (store.WordTokenizer).
	Words = &Tokenizer{spec: "porter unicode61 remove_diacritics 2", shift: 0}
	// Segmented is the segmented index's (segment.Tokenizer).
	Segmented = &Tokenizer{spec: `porter unicode61 remove_diacritics 2 categories 'L* N* Co Mn Mc'`, shift: 2}
)

// Spec is the tokenizer's FTS5 setting (the tokenize= argument).
func (t *Tokenizer) Spec() string { return t.spec }

// maxTokenSize is FTS5_MAX_TOKEN_SIZE: FTS5 keeps a token's first 32,768
// bytes.
const maxTokenSize = 32768

// Append appends the tokens of s to dst, in order: the token appended
// i-th has FTS5's offset i within s. A token may be empty (a run of
// combining marks, which fold to nothing), as in FTS5.
func (t *Tokenizer) Append(dst []string, s string) []string {
	tables()
	var fold [64]byte
	out := fold[:0]
	n := len(s)
	i := 0
	for {
		// Skip separators, up to the first token character.
		var c uint32
		is, nonASCII := 0, false
		for {
			if i >= n {
				return dst
			}
			if b := s[i]; b >= 0x80 {
				is = i
				c, i = readUTF8(s, i)
				if t.starts(c) {
					nonASCII = true
					break
				}
			} else if t.starts(uint32(b)) {
				is = i
				break
			} else {
				i++
			}
		}
		out = out[:0]
		if nonASCII {
			out = appendFolded(out, c)
		} else {
			out = append(out, lower(s[i]))
			i++
		}
		for i < n {
			if b := s[i]; b >= 0x80 {
				c, i = readUTF8(s, i)
				if !t.continues(c) {
					break
				}
				out = appendFolded(out, c)
			} else if !t.starts(uint32(b)) {
				break
			} else {
				out = append(out, lower(b))
				i++
			}
		}
		tok := porter(out)
		if len(tok) > maxTokenSize {
			tok = tok[:maxTokenSize]
		}
		// A token that is its own text (lower-case ASCII the stemmer left
		// alone) shares the input's bytes.
		if len(tok) <= i-is && string(tok) == s[is:is+len(tok)] {
			dst = append(dst, s[is:is+len(tok)])
		} else {
			dst = append(dst, string(tok))
		}
	}
}

// Tokens returns the tokens of s (Append to nothing).
func (t *Tokenizer) Tokens(s string) []string { return t.Append(nil, s) }

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 32
	}
	return b
}

// utf8Trans1 is SQLite's sqlite3Utf8Trans1: the payload bits of a lead
// byte 0xC0 and up.
var utf8Trans1 = [64]byte{
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x00, 0x01, 0x02, 0x03, 0x00, 0x01, 0x00, 0x00,
}

// readUTF8 is FTS5's READ_UTF8: it reads the character at s[i] (a byte
// 0x80 and up) and returns it with the index after it. Like SQLite it
// takes every continuation byte that follows a lead byte (the value may
// pass 0x10FFFF or wrap), reads a lone continuation byte as its own
// value, and turns an overlong form, a surrogate or U+FFFE/U+FFFF into
// U+FFFD.
func readUTF8(s string, i int) (uint32, int) {
	c := uint32(s[i])
	i++
	if c >= 0xC0 {
		c = uint32(utf8Trans1[c-0xC0])
		for i < len(s) && s[i]&0xC0 == 0x80 {
			c = c<<6 + uint32(s[i]&0x3F)
			i++
		}
		if c < 0x80 || c&0xFFFFF800 == 0xD800 || c&0xFFFFFFFE == 0xFFFE {
			c = 0xFFFD
		}
	}
	return c, i
}

// appendFolded appends fold(c) as WRITE_UTF8 writes it (nothing for a
// character that folds to nothing).
func appendFolded(out []byte, c uint32) []byte {
	var f uint32
	if c < 0x10000 {
		if bmpProps[c]&foldsAway != 0 {
			return out
		}
		f = uint32(bmpFold[c])
	} else {
		var ok bool
		if f, ok = foldRest(c); !ok {
			return out
		}
	}
	switch {
	case f < 0x80:
		return append(out, byte(f))
	case f < 0x800:
		return append(out, 0xC0+byte(f>>6&0x1F), 0x80+byte(f&0x3F))
	case f < 0x10000:
		return append(out, 0xE0+byte(f>>12&0x0F), 0x80+byte(f>>6&0x3F), 0x80+byte(f&0x3F))
	}
	return append(out, 0xF0+byte(f>>18&0x07), 0x80+byte(f>>12&0x3F), 0x80+byte(f>>6&0x3F), 0x80+byte(f&0x3F))
}

// propRun and foldRun are the shapes of the generated tables.
type propRun struct {
	from uint32
	p    uint8
}

type foldRun struct {
	first, last, step uint32
	delta             int32
}

// foldsAway marks, in bmpProps, a character that folds to nothing.
const foldsAway = 0x10

// foldNothing is a foldRun's delta for characters that fold to nothing.
const foldNothing = -1 << 30

// The tables of the Basic Multilingual Plane, unpacked from the runs on
// first use; characters above it are looked up in the runs.
var (
	unpack   sync.Once
	bmpProps [0x10000]uint8
	bmpFold  [0x10000]uint16
)

func tables() {
	unpack.Do(func() {
		for i, r := range propRuns {
			end := uint32(0x10000)
			if i+1 < len(propRuns) {
				end = min(end, propRuns[i+1].from)
			}
			for c := r.from; c < end; c++ {
				bmpProps[c] = r.p
			}
		}
		for c := range bmpFold {
			bmpFold[c] = uint16(c)
		}
		for _, r := range foldRuns {
			for c := r.first; c <= r.last && c < 0x10000; c += r.step {
				if r.delta == foldNothing {
					bmpProps[c] |= foldsAway
				} else {
					bmpFold[c] = uint16(int32(c) + r.delta)
				}
			}
		}
	})
}

// props returns c's property bits (all tokenizers').
func props(c uint32) uint8 {
	if c < 0x10000 {
		return bmpProps[c]
	}
	// Past the last run (past 0x10FFFF too) SQLite's category is its
	// "none" one, as for the last run.
	i := sort.Search(len(propRuns), func(i int) bool { return propRuns[i].from > c })
	return propRuns[i-1].p
}

// foldRest folds a character above the BMP (past 0x10FFFF: itself);
// false when it folds to nothing.
func foldRest(c uint32) (uint32, bool) {
	i := sort.Search(len(foldRuns), func(i int) bool { return foldRuns[i].last >= c })
	if i < len(foldRuns) {
		r := foldRuns[i]
		if c >= r.first && (c-r.first)%r.step == 0 {
			if r.delta == foldNothing {
				return 0, false
			}
			return uint32(int32(c) + r.delta), true
		}
	}
	return c, true
}

// starts reports whether c begins a token (and, for ASCII, continues one).
func (t *Tokenizer) starts(c uint32) bool { return props(c)>>t.shift&1 != 0 }

// continues reports whether c, not ASCII, continues a token (a token
// character or a diacritic).
func (t *Tokenizer) continues(c uint32) bool { return props(c)>>t.shift&2 != 0 }
