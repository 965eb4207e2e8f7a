package web

import (
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/note"
)

// maxNoteBody bounds a note endpoint's JSON body: a note the editor saves
// is at most retrieval.MaxEditBytes, and JSON escaping may double it.
const maxNoteBody = 4 << 20

// editView is the editor page's data.
type editView struct {
	File    *retrieval.NoteFile
	Preview template.HTML
	// Fields are the editable properties: title, tags and aliases always,
	// then the file's other text and list keys; Others the rest, shown.
	Fields    []propField
	Others    []note.Prop
	Backlinks []Link
	// Shown is how much of a read-only note's text the page holds
	// (0: all of it).
	Shown int
}

// maxShown is how much of a note too large to edit the page shows: a
// browser lays out a multi-megabyte text box slowly, and it cannot be
// saved anyway.
const maxShown = 256 << 10

// propField is one property's input.
type propField struct{ Key, Kind, Value string }

// alwaysProps are offered even when a note lacks them.
var alwaysProps = []propField{{"title", "text", ""}, {"tags", "list", ""}, {"aliases", "list", ""}}

func (a *App) editPage(w http.ResponseWriter, r *http.Request) {
	view := &editView{}
	p := page{Title: "Edit", Nav: "browse", Data: view, Scripts: []string{"editor.js"}}
	if !a.opts.EnableWrite {
		a.fail(w, r, "edit", p, gnoerr.New(gnoerr.InvalidInput, "editing is off; start gno serve with --enable-write"))
		return
	}
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		a.fail(w, r, "edit", p, err)
		return
	}
	f, err := e.Notes().Open(r.Context(), retrieval.OpenNoteRequest{Ref: r.URL.Query().Get("ref")})
	if err != nil {
		a.fail(w, r, "edit", p, err)
		return
	}
	view.File = f
	p.Title = f.Title
	if p.Title == "" {
		p.Title = f.RelPath
	}
	view.Fields, view.Others = editFields(f.Props)
	if !f.Editable && len(f.Body) > maxShown {
		cut := strings.LastIndexByte(f.Body[:maxShown], '\n') + 1
		f.Body, view.Shown = f.Body[:cut], cut
	}
	if len(f.Body) <= retrieval.MaxEditBytes && view.Shown == 0 {
		out, err := renderMarkdown(f.Body, f.Collection, f.RelPath, 0, 0)
		if err == nil {
			view.Preview = out.HTML
		}
	} else {
		view.Preview = template.HTML(`<p class="note">No preview for notes this large.</p>`)
	}
	if a.opts.Links != nil {
		if _, in, err := a.opts.Links.Links(r.Context(), f.DocID); err == nil {
			view.Backlinks = in
		}
	}
	a.render(w, r, "edit", http.StatusOK, p)
}

// editFields splits properties into inputs and YAML shown as it is.
func editFields(props []note.Prop) ([]propField, []note.Prop) {
	fields := append([]propField(nil), alwaysProps...)
	var others []note.Prop
	for _, p := range props {
		v := p.Value
		if p.Kind == "list" {
			v = strings.Join(p.List, ", ")
		}
		known := false
		for i := range fields {
			if fields[i].Key == p.Key {
				known = true
				if p.Kind == "yaml" || (p.Kind != fields[i].Kind && !(p.Kind == "text" && fields[i].Kind == "list")) {
					fields = append(fields[:i], fields[i+1:]...)
					others = append(others, p)
				} else {
					fields[i].Value = v
				}
				break
			}
		}
		switch {
		case known:
		case p.Kind == "yaml":
			others = append(others, p)
		default:
			fields = append(fields, propField{p.Key, p.Kind, v})
		}
	}
	return fields, others
}

// readJSON decodes a JSON request body of at most limit bytes into v.
func readJSON(r *http.Request, limit int64, v any) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return gnoerr.New(gnoerr.InvalidInput, "POST bodies must be application/json")
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return gnoerr.Wrap(gnoerr.InvalidInput, err, "read request body")
	}
	if int64(len(data)) > limit {
		return gnoerr.New(gnoerr.InvalidInput, "request body over %d bytes", limit)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return gnoerr.Wrap(gnoerr.InvalidInput, err, "request body is not the JSON object expected")
	}
	return nil
}

// noteOpen serves GET /api/note?ref=: the note's file as the editor
// opens it.
func (a *App) noteOpen(w http.ResponseWriter, r *http.Request) {
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	f, err := e.Notes().Open(r.Context(), retrieval.OpenNoteRequest{Ref: r.URL.Query().Get("ref")})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, f)
}

// saveRequest is the body of POST /api/note/save.
type saveRequest struct {
	Ref      string          `json:"ref"`
	BaseHash string          `json:"baseHash"`
	Body     *string         `json:"body"`
	Props    []note.PropEdit `json:"props"`
	Force    bool            `json:"force"`
}

// diffLine is one line of a conflict's diff: "-" on disk now, "+" the
// editor's, " " both, "@" a hunk header.
type diffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// conflictBody is a refused save: the error, the file as it is now, and
// what overwriting it with the editor's text would change.
type conflictBody struct {
	gnoerr.Body
	Current *retrieval.NoteFile `json:"current"`
	Diff    []diffLine          `json:"diff"`
}

// noteSave serves POST /api/note/save: a hash-checked save. A file that
// changed on disk since the editor opened it gives 409 with the diff
// between the disk and what the save would write.
func (a *App) noteSave(w http.ResponseWriter, r *http.Request) {
	var req saveRequest
	if err := readJSON(r, maxNoteBody, &req); err != nil {
		writeError(w, err)
		return
	}
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	res, err := e.Notes().Save(r.Context(), retrieval.SaveNoteRequest{Ref: req.Ref, BaseHash: req.BaseHash, Body: req.Body, Props: req.Props, Force: req.Force})
	var c *retrieval.SaveConflict
	if errors.As(err, &c) {
		writeJSON(w, http.StatusConflict, conflictBody{Body: gnoerr.BodyOf(err), Current: c.Current, Diff: conflictDiff(c.Current, req)})
		return
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// conflictDiff is the line diff from the file on disk to the file a
// forced save of req would write.
func conflictDiff(cur *retrieval.NoteFile, req saveRequest) []diffLine {
	disk := cur.FrontMatter + cur.Body
	mine := []byte(disk)
	if req.Body != nil {
		mine = note.Join(mine, strings.ReplaceAll(*req.Body, "\r\n", "\n"))
	}
	if len(req.Props) > 0 {
		if out, err := note.SetProps(mine, req.Props); err == nil {
			mine = out
		}
	}
	u, err := udiff.ToUnifiedDiff("disk", "mine", disk, udiff.Lines(disk, string(mine)), 2)
	if err != nil {
		return []diffLine{{Op: "@", Text: "the difference could not be shown: " + err.Error()}}
	}
	out := []diffLine{}
	for _, h := range u.Hunks {
		out = append(out, diffLine{Op: "@", Text: "line " + strconv.Itoa(h.FromLine)})
		for _, l := range h.Lines {
			op := " "
			switch l.Kind {
			case udiff.Delete:
				op = "-"
			case udiff.Insert:
				op = "+"
			}
			out = append(out, diffLine{Op: op, Text: strings.TrimSuffix(l.Content, "\n")})
		}
	}
	return out
}

// previewRequest is the body of POST /api/note/preview.
type previewRequest struct {
	Ref  string `json:"ref"`
	Body string `json:"body"`
}

// notePreview serves POST /api/note/preview: the body rendered by the
// document view's renderer (links resolved from the note's folder).
func (a *App) notePreview(w http.ResponseWriter, r *http.Request) {
	var req previewRequest
	if err := readJSON(r, maxNoteBody, &req); err != nil {
		writeError(w, err)
		return
	}
	col, rel := "", "note.md"
	if req.Ref != "" {
		if c, p, ok := strings.Cut(strings.TrimPrefix(req.Ref, "gno://"), "/"); ok {
			col, rel = c, p
		}
	}
	out, err := renderMarkdown(req.Body, col, rel, 0, 0)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"html": string(out.HTML)})
}

// renameRequest is the body of POST /api/note/rename and the query of
// GET /api/note/rename-plan.
type renameRequest struct {
	Ref     string `json:"ref"`
	NewPath string `json:"newPath"`
}

// renamePlan serves GET /api/note/rename-plan?ref=&newPath=: which links
// in which notes a rename would rewrite, changing nothing.
func (a *App) renamePlan(w http.ResponseWriter, r *http.Request) {
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	q := r.URL.Query()
	plan, err := e.Notes().RenamePlan(r.Context(), retrieval.RenameNoteRequest{Ref: q.Get("ref"), NewPath: q.Get("newPath")})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, plan)
}

// rename serves POST /api/note/rename: gno_rename with its links
// rewritten, the plan the dialog showed.
func (a *App) rename(w http.ResponseWriter, r *http.Request) {
	var req renameRequest
	if err := readJSON(r, maxBody, &req); err != nil {
		writeError(w, err)
		return
	}
	a.callTool(w, r, "gno_rename", map[string]any{"ref": req.Ref, "newPath": req.NewPath, "updateLinks": true})
}

// deleteNote serves POST /api/note/delete: gno_delete.
func (a *App) deleteNote(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Ref string `json:"ref"`
	}
	if err := readJSON(r, maxBody, &req); err != nil {
		writeError(w, err)
		return
	}
	a.callTool(w, r, "gno_delete", map[string]any{"ref": req.Ref})
}

// callTool runs an MCP tool (the same handler, checks and lock as MCP)
// and answers with its structuredContent.
func (a *App) callTool(w http.ResponseWriter, r *http.Request, tool string, args map[string]any) {
	out, _, err := a.srv.Call(r.Context(), tool, args)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
