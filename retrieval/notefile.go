package retrieval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/note"
	"github.com/gnosearch/gno/retrieval/ref"
)

// MaxEditBytes is the largest note an editor may change: a bigger one
// opens read-only (a browser text box slows to a crawl on megabytes, and
// such a file is rarely a hand-written note).
const MaxEditBytes = 1 << 20

// NoteFile is a note's file as an editor opens it: the bytes on disk (not
// the index's normalised copy), split into front matter and body, and the
// hash a save must name to prove it edits this version.
type NoteFile struct {
	DocID      string `json:"docid"`
	URI        string `json:"uri"`
	Collection string `json:"collection"`
	RelPath    string `json:"relPath"`
	Title      string `json:"title"`
	Mime       string `json:"mime"`
	SizeBytes  int    `json:"sizeBytes"`
	// Hash is the SHA-256 of the file's bytes ("sha256:hex").
	Hash string `json:"hash"`
	// FrontMatter is the YAML block with its delimiters ("" without one)
	// and Body the text after it, both with LF line ends.
	FrontMatter string      `json:"frontMatter"`
	Body        string      `json:"body"`
	Props       []note.Prop `json:"props"`
	// PropsError says why the front matter cannot be shown as properties.
	PropsError string `json:"propsError,omitempty"`
	// Editable is false for converted files (PDF, Office ...), which gno
	// never writes, and for notes over MaxEditBytes; ReadOnly says why.
	Editable bool   `json:"editable"`
	ReadOnly string `json:"readOnly,omitempty"`
}

// OpenNoteRequest names the note to open.
type OpenNoteRequest struct {
	Ref string
}

// hashOf is the version name of a file's bytes.
func hashOf(raw []byte) string {
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Open reads a note's file for editing. A converted document (PDF,
// Office ...) is opened read-only with its indexed text, since its file
// is not text.
func (n *Notes) Open(ctx context.Context, req OpenNoteRequest) (*NoteFile, error) {
	return readAs(ctx, n.e, func(ctx context.Context) (*NoteFile, error) { return n.open(ctx, req) })
}

func (n *Notes) open(ctx context.Context, req OpenNoteRequest) (*NoteFile, error) {
	m, col, abs, err := n.noteTarget(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	f := &NoteFile{DocID: docID(m.Hash), URI: ref.URI(col.Name, m.RelPath), Collection: col.Name, RelPath: m.RelPath,
		Title: m.Title, Mime: m.Mime, Props: []note.Prop{}}
	if !editableNote(m.RelPath) {
		st, _ := n.e.store(ctx)
		content, err := st.Content(ctx, m.ID)
		if err != nil {
			return nil, gone(err, req.Ref)
		}
		f.Body, f.SizeBytes = content, int(m.Size)
		f.ReadOnly = "converted from " + path.Ext(m.RelPath) + "; gno edits Markdown and text notes only"
		return f, nil
	}
	raw, err := os.ReadFile(abs)
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.Runtime, err, "read %s", m.RelPath)
	}
	fillNoteFile(f, raw)
	return f, nil
}

// fillNoteFile sets what f says about the bytes of its file.
func fillNoteFile(f *NoteFile, raw []byte) {
	f.SizeBytes, f.Hash = len(raw), hashOf(raw)
	f.FrontMatter, f.Body = note.Split(raw)
	props, err := note.Props(raw)
	if err != nil {
		f.PropsError = err.Error()
	}
	if props != nil {
		f.Props = props
	}
	f.Editable, f.ReadOnly = true, ""
	if len(raw) > MaxEditBytes {
		f.Editable = false
		f.ReadOnly = "the note is over 1 MB; gno's editor opens it read-only"
	}
}

// editableNote reports whether gno may write a file: a note (Markdown or
// text), never a converted document.
func editableNote(rel string) bool { return links.IsNoteExt(path.Ext(rel)) }

// SaveNoteRequest saves an edited note.
type SaveNoteRequest struct {
	Ref string
	// BaseHash is the Hash the editor opened; when the file on disk has
	// another, the save is refused with a *SaveConflict. Required unless
	// Force.
	BaseHash string
	// Body, when not nil, replaces the text after the front matter.
	Body *string
	// Props set or remove front-matter keys; keys not named keep their
	// lines byte for byte.
	Props []note.PropEdit
	// Force writes whatever is on disk now: the user chose to overwrite.
	Force bool
}

// SaveResult is a saved note.
type SaveResult struct {
	NoteResult
	// Hash is the new version, for the editor's next save.
	Hash string `json:"hash"`
	// Changed is false when the save wrote nothing (same bytes).
	Changed bool `json:"changed"`
}

// SaveConflict refuses a save because the file changed on disk since the
// editor opened it. Current is the file as it is now. Its code is
// gnoerr.Conflict.
type SaveConflict struct {
	Err     *gnoerr.Error
	Current *NoteFile
}

// Error says which note changed on disk.
func (c *SaveConflict) Error() string { return c.Err.Error() }

// Unwrap gives the *gnoerr.Error, so gnoerr.CodeOf reads Conflict.
func (c *SaveConflict) Unwrap() error { return c.Err }

// Save writes an edited note, unless the file changed on disk since the
// editor opened it (BaseHash): never a silent overwrite. It runs under
// the writer lock, writes atomically, and re-indexes the note at once so
// search finds the new text.
func (n *Notes) Save(ctx context.Context, req SaveNoteRequest) (*SaveResult, error) {
	if req.BaseHash == "" && !req.Force {
		return nil, gnoerr.New(gnoerr.InvalidInput, "give the hash of the version you edited (baseHash), or force")
	}
	w, release, err := n.writer(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	m, col, abs, err := n.noteTarget(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	if !editableNote(m.RelPath) {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s is converted from %s; gno edits Markdown and text notes only", m.RelPath, path.Ext(m.RelPath))
	}
	raw, err := os.ReadFile(abs)
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.Runtime, err, "read %s", m.RelPath)
	}
	if cur := hashOf(raw); cur != req.BaseHash && !req.Force {
		f := &NoteFile{DocID: docID(m.Hash), URI: ref.URI(col.Name, m.RelPath), Collection: col.Name, RelPath: m.RelPath, Title: m.Title, Mime: m.Mime}
		fillNoteFile(f, raw)
		return nil, &SaveConflict{Err: gnoerr.New(gnoerr.Conflict, "%s changed on disk since you opened it", m.RelPath), Current: f}
	}
	if len(raw) > MaxEditBytes {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s is over 1 MB; gno's editor does not save it", m.RelPath)
	}
	out := raw
	if req.Body != nil {
		out = note.Join(out, *req.Body)
	}
	if len(req.Props) > 0 {
		if m.Mime != "text/markdown" {
			return nil, gnoerr.New(gnoerr.InvalidInput, "%s is not Markdown: it has no front matter", m.RelPath)
		}
		if out, err = note.SetProps(out, req.Props); err != nil {
			return nil, err
		}
	}
	maxBytes := n.e.Config().Index.MaxFileBytes
	if maxBytes > 0 && int64(len(out)) > maxBytes {
		return nil, gnoerr.New(gnoerr.InvalidInput, "the note would be %d bytes; the index takes files up to %d", len(out), maxBytes)
	}
	res := &SaveResult{NoteResult: NoteResult{URI: ref.URI(col.Name, m.RelPath), AbsPath: abs, DocID: docID(m.Hash), Indexed: true}, Hash: hashOf(out)}
	if bytes.Equal(out, raw) {
		return res, nil
	}
	if err := note.Write(abs, out); err != nil {
		return nil, err
	}
	res.Changed = true
	res.DocID, res.Indexed = n.resync(ctx, w, col.Name, m.RelPath)
	return res, nil
}
