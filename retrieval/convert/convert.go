// Package convert turns the files gno indexes into Markdown mirrors: one
// converter per format (HTML, DOCX, PPTX, XLSX, PDF, EML/MBOX, EPUB,
// source code), chosen by file extension and reported by MIME type.
//
// Converters read untrusted bytes, so each is bounded: a context deadline
// per file, caps on decompressed zip entries, pages and cells. A file that
// cannot be converted gives an *Error whose Reason is a short, countable
// phrase ("encrypted", "no text", ...) that a sync reports as a skip.
//
// It owns bytes → Markdown; it must not touch the index or the file
// system beyond the bytes it is given.
package convert

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
)

// Doc is the Markdown mirror of one file.
type Doc struct {
	// Markdown is the mirror text. Converters may return any text; the
	// caller normalises it (UTF-8, LF).
	Markdown string
	// Title is a title the document declares (HTML <title>, DOCX core
	// properties, mail subject, PDF metadata), or "".
	Title string
	// Pages is the page count of a PDF (its mirror has a "## Page N"
	// heading per page), 0 for other formats.
	Pages int
	// Truncated says that a cap cut the mirror short (rows of a sheet).
	Truncated bool
}

// Skip reasons: the Reason of an *Error, counted per reason by a sync.
const (
	ReasonEncrypted = "encrypted"
	ReasonCorrupt   = "corrupt or unreadable"
	ReasonNoText    = "no extractable text"
	ReasonTooBig    = "over conversion limits"
	ReasonTimeout   = "conversion timed out"
	// ReasonEngine is a converter that could not start: not the file's
	// fault, so the file is tried again next sync.
	ReasonEngine = "converter unavailable"
)

// Error is a file that could not be converted.
type Error struct {
	// Reason is one of the Reason constants.
	Reason string
	Err    error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return e.Reason + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

func fail(reason string, format string, args ...any) *Error {
	return &Error{Reason: reason, Err: fmt.Errorf(format, args...)}
}

// Limits bound the work and memory of one conversion. Zero fields take
// the defaults of DefaultLimits.
type Limits struct {
	// Timeout is the deadline of one file.
	Timeout time.Duration
	// MaxPages caps the pages of a PDF; a longer one is skipped.
	MaxPages int
	// MaxCells caps the cells of a workbook; a larger one is skipped.
	MaxCells int
	// MaxRows caps the rows written per sheet; the rest is cut with a note.
	MaxRows int
	// MaxEntryBytes caps one decompressed zip entry.
	MaxEntryBytes int64
	// MaxTotalBytes caps all decompressed entries of one archive and the
	// mirror's size.
	MaxTotalBytes int64
}

// DefaultLimits are the limits used where a field is zero.
var DefaultLimits = Limits{
	Timeout:       30 * time.Second,
	MaxPages:      1000,
	MaxCells:      500_000,
	MaxRows:       2000,
	MaxEntryBytes: 64 << 20,
	MaxTotalBytes: 256 << 20,
}

func (l Limits) norm() Limits {
	d := DefaultLimits
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxPages <= 0 {
		l.MaxPages = d.MaxPages
	}
	if l.MaxCells <= 0 {
		l.MaxCells = d.MaxCells
	}
	if l.MaxRows <= 0 {
		l.MaxRows = d.MaxRows
	}
	if l.MaxEntryBytes <= 0 {
		l.MaxEntryBytes = d.MaxEntryBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = d.MaxTotalBytes
	}
	return l
}

// Func converts the bytes of one file.
type Func func(ctx context.Context, data []byte, lim Limits) (*Doc, error)

// Format is one supported file type.
type Format struct {
	// Mime is reported as the document's source.mime.
	Mime string
	// Kind is "markdown", "text" (chunked as plain text, no conversion),
	// "code" (only for collections that opt in) or "document".
	Kind string
	// Lang is the fence language of source code.
	Lang string
	// Convert makes the mirror; nil for markdown and text, which are
	// indexed as they are.
	Convert Func
	// Sections is the heading level of the mirror's units (2 for a PDF's
	// "## Page N" and a deck's "## Slide N"); chunks never span two.
	Sections int
}

// Kinds of Format.
const (
	KindMarkdown = "markdown"
	KindText     = "text"
	KindCode     = "code"
	KindDocument = "document"
)

var formats = map[string]Format{
	".md":       {Mime: "text/markdown", Kind: KindMarkdown},
	".markdown": {Mime: "text/markdown", Kind: KindMarkdown},
	".mdx":      {Mime: "text/markdown", Kind: KindMarkdown},
	".txt":      {Mime: "text/plain", Kind: KindText},
	".text":     {Mime: "text/plain", Kind: KindText},
	".html":     {Mime: "text/html", Kind: KindDocument, Convert: HTML},
	".htm":      {Mime: "text/html", Kind: KindDocument, Convert: HTML},
	".xhtml":    {Mime: "application/xhtml+xml", Kind: KindDocument, Convert: HTML},
	".docx":     {Mime: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", Kind: KindDocument, Convert: DOCX},
	".pptx":     {Mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation", Kind: KindDocument, Convert: PPTX, Sections: 2},
	".xlsx":     {Mime: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Kind: KindDocument, Convert: XLSX},
	".pdf":      {Mime: "application/pdf", Kind: KindDocument, Convert: PDF, Sections: 2},
	".eml":      {Mime: "message/rfc822", Kind: KindDocument, Convert: EML},
	".mbox":     {Mime: "application/mbox", Kind: KindDocument, Convert: MBOX},
	".epub":     {Mime: "application/epub+zip", Kind: KindDocument, Convert: EPUB},
}

// ForExt returns the format of a file extension (with its dot, any case).
// code says whether the collection takes source code.
func ForExt(ext string, code bool) (Format, bool) {
	ext = strings.ToLower(ext)
	if f, ok := formats[ext]; ok {
		return f, true
	}
	if code {
		if lang, ok := codeLangs[ext]; ok {
			return Format{Mime: "text/x-" + lang, Kind: KindCode, Lang: lang, Convert: codeConverter(lang)}, true
		}
	}
	return Format{}, false
}

// ForPath returns the format of a file by its name.
func ForPath(name string, code bool) (Format, bool) { return ForExt(path.Ext(name), code) }

// DefaultExtensions are the extensions a new collection takes: every
// document format, no source code.
var DefaultExtensions = []string{"md", "markdown", "mdx", "txt", "html", "htm", "pdf", "docx", "pptx", "xlsx", "eml", "mbox", "epub"}

// DefaultPattern is the include glob of a new collection: every
// document format gno converts.
var DefaultPattern = "**/*.{" + strings.Join(DefaultExtensions, ",") + "}"

// Run converts data with f under lim: it sets the deadline, turns panics
// of a parser into ReasonCorrupt, and checks that the mirror has text.
func Run(ctx context.Context, f Format, data []byte, lim Limits) (doc *Doc, err error) {
	if f.Convert == nil {
		return &Doc{Markdown: string(data)}, nil
	}
	lim = lim.norm()
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fail(ReasonCorrupt, "parser panic: %v", r)
		}
	}()
	doc, err = f.Convert(ctx, data, lim)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, &Error{Reason: ReasonTimeout, Err: err}
		}
		return nil, &Error{Reason: ReasonCorrupt, Err: err}
	}
	if ctx.Err() != nil {
		return nil, &Error{Reason: ReasonTimeout, Err: ctx.Err()}
	}
	if int64(len(doc.Markdown)) > lim.MaxTotalBytes {
		return nil, fail(ReasonTooBig, "mirror of %d bytes", len(doc.Markdown))
	}
	return doc, nil
}
