// Command gentables writes wordtok's character tables (tables.go) by
// asking SQLite's own FTS5 unicode61 tokenizer, in the SQLite gno links
// (modernc.org/sqlite), about every code point: whether it starts a
// token, whether it continues one, and what it folds to. The tables are
// SQLite's (its Unicode version, its diacritic rules), not Go's unicode
// package's, because the Go tokenizer must cut words exactly as FTS5 does.
//
// Run by go generate in retrieval/store/wordtok.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"strings"

	_ "modernc.org/sqlite"
)

// The FTS5 tokenizers probed: the word index's and the segmented index's
// unicode61 settings without porter (stemming is code, not tables). They
// must be the settings of wordtok.Words and wordtok.Segmented, less
// "porter "; wordtok's tests check that.
var configs = []string{
	`unicode61 remove_diacritics 2`,
	`unicode61 remove_diacritics 2 categories 'L* N* Co Mn Mc'`,
}

// maxProbe is the last code point probed: above it SQLite's category
// lookup returns its "none" category for everything (it stops at 1<<20),
// and folding is the identity.
const maxProbe = 0x10FFFF

func main() {
	out := flag.String("o", "tables.go", "output file")
	flag.Parse()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	// props[cp] holds two bits per config: start (bit 0) and continue (bit 1).
	props := make([]uint8, maxProbe+1)
	fold := make([]int32, maxProbe+1)
	for i := range fold {
		fold[i] = -1
	}
	for ci, cfg := range configs {
		t := fmt.Sprintf("p%d", ci)
		for _, q := range []string{
			"CREATE VIRTUAL TABLE " + t + " USING fts5(b, tokenize=\"" + cfg + "\")",
			"CREATE VIRTUAL TABLE " + t + "v USING fts5vocab(" + t + ", 'instance')",
		} {
			if _, err := db.Exec(q); err != nil {
				log.Fatal(err)
			}
		}
		const step = 1 << 16
		for lo := 0; lo <= maxProbe; lo += step {
			probe(ctx, db, t, lo, min(lo+step, maxProbe+1), uint(ci), props, fold)
		}
	}
	var version string
	if err := db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&version); err != nil {
		log.Fatal(err)
	}
	var b bytes.Buffer
	writeTables(&b, version, props, fold)
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// encode writes c as SQLite's WRITE_UTF8 does (it encodes surrogates too).
func encode(c int) []byte {
	switch {
	case c < 0x80:
		return []byte{byte(c)}
	case c < 0x800:
		return []byte{0xC0 | byte(c>>6), 0x80 | byte(c&0x3F)}
	case c < 0x10000:
		return []byte{0xE0 | byte(c>>12), 0x80 | byte(c>>6&0x3F), 0x80 | byte(c&0x3F)}
	}
	return []byte{0xF0 | byte(c>>18&7), 0x80 | byte(c>>12&0x3F), 0x80 | byte(c>>6&0x3F), 0x80 | byte(c&0x3F)}
}

// probe tokenizes, for each code point c in [lo, hi), "x" c "x " c ".x":
// the first part is one token "x"+fold(c)+"x" when c continues a token
// (else "x", "x"); the second is fold(c) (maybe empty), "x" when c
// starts one (else just "x").
func probe(ctx context.Context, db *sql.DB, t string, lo, hi int, ci uint, props []uint8, fold []int32) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	ins, err := tx.Prepare("INSERT INTO " + t + "(rowid, b) VALUES(?, ?)")
	if err != nil {
		log.Fatal(err)
	}
	for c := lo; c < hi; c++ {
		e := encode(c)
		text := "x" + string(e) + "x " + string(e) + ".x"
		if _, err := ins.Exec(c+1, text); err != nil {
			log.Fatal(err)
		}
	}
	ins.Close()
	toks := map[int][]string{}
	rows, err := tx.Query("SELECT doc, offset, coalesce(term, '') FROM " + t + "v ORDER BY doc, offset")
	if err != nil {
		log.Fatal(err)
	}
	for rows.Next() {
		var doc, off int
		var term string
		if err := rows.Scan(&doc, &off, &term); err != nil {
			log.Fatal(err)
		}
		if off != len(toks[doc-1]) {
			log.Fatalf("code point %#x: offset %d after %d tokens", doc-1, off, len(toks[doc-1]))
		}
		toks[doc-1] = append(toks[doc-1], term)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	rows.Close()
	if _, err := tx.Exec("DELETE FROM " + t); err != nil {
		log.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		log.Fatal(err)
	}
	for c := lo; c < hi; c++ {
		ts := toks[c]
		var start, cont bool
		var f string
		switch {
		case len(ts) == 3 && ts[0] == "x" && ts[1] == "x" && ts[2] == "x":
		case len(ts) == 2 && len(ts[0]) >= 2 && ts[1] == "x":
			cont, f = true, ts[0][1:len(ts[0])-1]
		case len(ts) == 3 && len(ts[0]) >= 2 && ts[0][1:len(ts[0])-1] == ts[1] && ts[2] == "x":
			start, cont, f = true, true, ts[1]
		default:
			log.Fatalf("code point %#x: unexpected tokens %q", c, ts)
		}
		if start {
			props[c] |= 1 << (2 * ci)
		}
		if cont {
			props[c] |= 2 << (2 * ci)
			fc := int32(-2) // folds to nothing
			if f != "" {
				r, n := decode(f)
				if n != len(f) {
					log.Fatalf("code point %#x folds to %q, not one character", c, f)
				}
				fc = r
			}
			if fold[c] != -1 && fold[c] != fc {
				log.Fatalf("code point %#x folds differently by config", c)
			}
			fold[c] = fc
		}
	}
}

// decode reads one character as SQLite wrote it (no validity checks: a
// folded surrogate would be one).
func decode(s string) (int32, int) {
	b := s[0]
	switch {
	case b < 0x80:
		return int32(b), 1
	case b < 0xE0 && len(s) >= 2:
		return int32(b&0x1F)<<6 | int32(s[1]&0x3F), 2
	case b < 0xF0 && len(s) >= 3:
		return int32(b&0x0F)<<12 | int32(s[1]&0x3F)<<6 | int32(s[2]&0x3F), 3
	case len(s) >= 4:
		return int32(b&0x07)<<18 | int32(s[1]&0x3F)<<12 | int32(s[2]&0x3F)<<6 | int32(s[3]&0x3F), 4
	}
	return -1, 0
}

// writeTables writes the properties as runs of equal values and the folds
// that change a character as runs of one offset (step 1 or 2).
func writeTables(b *bytes.Buffer, version string, props []uint8, fold []int32) {
	fmt.Fprintf(b, `// Code generated by gentables from SQLite's FTS5 unicode61 tokenizer; DO NOT EDIT.

// Size: generated tables, one entry per run of code points.

package wordtok

// SQLiteVersion is the version of the SQLite whose FTS5 these tables were
// read from; a test fails when the linked SQLite differs, because a new
// SQLite may bring new Unicode tables and the two tokenizers would part.
const SQLiteVersion = %q

// propRuns are the runs of code points with equal properties (from, the
// first code point of the run; p, two bits per tokenizer: starts a token,
// continues one), up to 0x%X.
var propRuns = []propRun{
`, version, maxProbe)
	n := 0
	for c := 0; c <= maxProbe; c++ {
		if c == 0 || props[c] != props[c-1] {
			fmt.Fprintf(b, "{0x%X, %d},", c, props[c])
			n++
			if n%6 == 0 {
				b.WriteString("\n")
			}
		}
	}
	b.WriteString("}\n\n")
	b.WriteString(`// foldRuns are the runs of code points that fold to another (to, its
// offset; -1 << 30: to nothing), every step-th code point from first to
// last; the rest fold to themselves.
var foldRuns = []foldRun{
`)
	type run struct {
		first, last, step int
		delta             int32
	}
	var runs []run
	deltaOf := func(c int) (int32, bool) {
		switch {
		case fold[c] == -1 || int(fold[c]) == c:
			return 0, false
		case fold[c] == -2:
			return -1 << 30, true
		}
		return fold[c] - int32(c), true
	}
	for c := 0; c <= maxProbe; c++ {
		d, ok := deltaOf(c)
		if !ok {
			continue
		}
		if len(runs) > 0 {
			r := &runs[len(runs)-1]
			if r.delta == d && ((r.first == r.last && (c-r.last == 1 || c-r.last == 2)) || (r.first != r.last && c-r.last == r.step)) {
				if r.first == r.last {
					r.step = c - r.last
				}
				r.last = c
				continue
			}
		}
		runs = append(runs, run{c, c, 1, d})
	}
	for i, r := range runs {
		fmt.Fprintf(b, "{0x%X, 0x%X, %d, %d},", r.first, r.last, r.step, r.delta)
		if i%4 == 3 {
			b.WriteString("\n")
		}
	}
	b.WriteString("}\n")
	_ = strings.TrimSpace
}
