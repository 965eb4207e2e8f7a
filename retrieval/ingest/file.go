package ingest

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"unicode"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/convert"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/store"
	"lukechampine.com/blake3"
)

// converted is the outcome of reading one file.
type converted struct {
	c      candidate
	doc    *store.Document
	same   bool   // content hash unchanged
	skip   string // skip reason
	errMsg string
	// failed is set when conversion failed: the skip is recorded so the
	// same bytes are not converted again.
	failed *store.SkipState
}

func convertFile(ctx context.Context, col config.Collection, c candidate, states map[string]store.DocState, skips map[string]store.SkipState, opt Options) converted {
	f, ok := convert.ForPath(c.rel, col.Code)
	if !ok {
		return converted{c: c, skip: SkipUnsupported}
	}
	data, err := os.ReadFile(c.path(col))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return converted{c: c, skip: SkipVanished}
		}
		return converted{c: c, skip: SkipUnreadable, errMsg: fmt.Sprintf("%s: %v", c.rel, err)}
	}
	if int64(len(data)) > opt.maxBytes(f) {
		return converted{c: c, skip: SkipTooLarge}
	}
	if f.Convert == nil && isBinary(data) {
		return converted{c: c, skip: SkipBinary}
	}
	sum := blake3.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if s, ok := states[c.rel]; ok && s.Hash == hash {
		return converted{c: c, same: true}
	}
	failed := func(reason, detail string) converted {
		return converted{c: c, skip: reason, errMsg: c.rel + ": " + detail,
			failed: &store.SkipState{Hash: hash, Size: c.size, MtimeNS: c.mtimeNS, Reason: reason, Detail: detail}}
	}
	if s, ok := skips[c.rel]; ok && s.Hash == hash {
		// Touched but not changed: the old verdict stands.
		return failed(s.Reason, s.Detail)
	}
	var doc *store.Document
	if f.Convert == nil {
		doc = Convert(col, c.rel, data, opt.Chunk)
	} else {
		mirror, err := convert.Run(ctx, f, data, opt.Limits)
		if err != nil {
			var ce *convert.Error
			if !errors.As(err, &ce) || ce.Reason == convert.ReasonEngine {
				// Not the file's fault: try again next sync.
				return converted{c: c, skip: convert.ReasonEngine, errMsg: fmt.Sprintf("%s: %v", c.rel, err)}
			}
			if ce.Reason == convert.ReasonTimeout {
				if ctx.Err() != nil {
					// The sync was cancelled, not the file slow.
					return converted{c: c, skip: SkipVanished}
				}
				// A busy machine may be to blame: tried again next
				// sync rather than remembered.
				return converted{c: c, skip: ce.Reason, errMsg: fmt.Sprintf("%s: %v", c.rel, err)}
			}
			return failed(ce.Reason, err.Error())
		}
		doc = Mirror(col, c.rel, f, mirror, opt.Chunk)
		if len(doc.Chunks) > store.MaxChunks {
			return failed(convert.ReasonTooBig, fmt.Sprintf("%d chunks, more than %d", len(doc.Chunks), store.MaxChunks))
		}
	}
	if opt.SkipLinks {
		doc.Links, doc.Aliases, doc.NoLinks = nil, nil, true
	}
	doc.Hash = hash
	doc.Size = c.size
	doc.MtimeNS = c.mtimeNS
	return converted{c: c, doc: doc}
}

// Convert normalises the bytes of a Markdown or plain-text file and chunks
// it into a Document (without hash or stat fields).
func Convert(col config.Collection, rel string, data []byte, copt chunk.Options) *store.Document {
	text, invalid := Normalize(data)
	return build(col, rel, text, invalid, Mime(path.Ext(rel)), copt)
}

// Mirror chunks the Markdown mirror of a converted file into a Document
// that reports the original's MIME type. A title the file declares wins
// over the mirror's first heading.
func Mirror(col config.Collection, rel string, f convert.Format, m *convert.Doc, copt chunk.Options) *store.Document {
	text, invalid := Normalize([]byte(m.Markdown))
	copt.BreakLevel = f.Sections
	doc := build(col, rel, text, invalid, "text/markdown", copt)
	doc.Mime = f.Mime
	// A converter's title comes from the file's own metadata: cleaned like
	// the text, so no store is handed bytes it cannot hold.
	title, _ := Normalize([]byte(m.Title))
	if t := strings.Join(strings.Fields(title), " "); t != "" {
		doc.Title = t
	}
	return doc
}

func build(col config.Collection, rel, text string, invalid int, mime string, copt chunk.Options) *store.Document {
	doc := &store.Document{Collection: col.Name, RelPath: rel, Content: text, InvalidBytes: invalid, Mime: mime}
	doc.LineCount = strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") && text != "" {
		doc.LineCount++
	}
	var chunks []chunk.Chunk
	if doc.Mime == "text/markdown" {
		fm, off := SplitFrontMatter(text)
		body := text[off:]
		doc.Title = Title(fm, body, rel)
		doc.Tags = fm.Tags
		doc.Lang = fm.Lang
		doc.Links = links.Extract(text)
		doc.Aliases = fm.Aliases
		doc.Declares = fm.Declares
		lineOff := strings.Count(text[:off], "\n")
		chunks = chunk.Markdown(body, copt)
		for i := range chunks {
			chunks[i].StartByte += off
			chunks[i].EndByte += off
			chunks[i].StartLine += lineOff
			chunks[i].EndLine += lineOff
		}
	} else {
		doc.Title = Title(FrontMatter{}, "", rel)
		chunks = chunk.Text(text, copt)
	}
	if doc.Lang == "" {
		doc.Lang = col.Lang
	}
	if doc.Lang == "" {
		doc.Lang = DetectLang(text)
	}
	doc.Chunks = chunks
	return doc
}

// DetectLang guesses a language only where the script decides it: kana
// means Japanese, Hangul Korean, Han alone Chinese, Thai script Thai. Latin text stays
// unknown rather than guessed.
func DetectLang(s string) string {
	var han, kana, hangul, thai, letters int
	for i, r := range s {
		if i > 4096 {
			break
		}
		switch {
		case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
			kana++
		case unicode.Is(unicode.Hangul, r):
			hangul++
		case unicode.Is(unicode.Han, r):
			han++
		case unicode.Is(unicode.Thai, r):
			thai++
		case unicode.IsLetter(r):
			letters++
		}
	}
	total := han + kana + hangul + thai + letters
	if total == 0 || (han+kana+hangul+thai)*3 < total {
		return ""
	}
	switch {
	case thai > han+kana+hangul:
		return "th"
	case kana > 0:
		return "ja"
	case hangul > han:
		return "ko"
	default:
		return "zh"
	}
}
