package web

import (
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// completeAPI serves GET /api/complete?text=&from=&collection=&limit=:
// the notes, aliases or headings a [[link being typed could name.
func (a *App) completeAPI(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	out, err := e.Graph().Complete(r.Context(), retrieval.CompleteRequest{Text: q.Get("text"), From: q.Get("from"), Collection: q.Get("collection"), Limit: limit})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"completions": out})
}

// segment is a piece of a snippet, marked when it matched the query: the
// page builds text nodes and <mark>s from these, never HTML.
type segment struct {
	Text string `json:"t"`
	Mark bool   `json:"m,omitempty"`
}

// segments splits a snippet on the engine's \x01…\x02 match marks.
func segments(s string) []segment {
	var out []segment
	for s != "" {
		i := strings.IndexByte(s, '\x01')
		if i < 0 {
			out = append(out, segment{Text: strings.ReplaceAll(s, "\x02", "")})
			break
		}
		if i > 0 {
			out = append(out, segment{Text: strings.ReplaceAll(s[:i], "\x02", "")})
		}
		s = s[i+1:]
		j := strings.IndexByte(s, '\x02')
		if j < 0 {
			j = len(s)
		}
		out = append(out, segment{Text: s[:j], Mark: true})
		s = s[min(j+1, len(s)):]
	}
	return out
}

// paletteHit is a content hit of the palette.
type paletteHit struct {
	Title   string    `json:"title"`
	URI     string    `json:"uri"`
	DocID   string    `json:"docid"`
	Href    string    `json:"href"`
	Snippet []segment `json:"snippet"`
}

// paletteResult is the answer of GET /api/palette.
type paletteResult struct {
	Notes []retrieval.Completion `json:"notes"`
	Hits  []paletteHit           `json:"hits"`
	// Took is the server's time in milliseconds.
	Took float64 `json:"took"`
}

// paletteWords is how many words of a palette query BM25 searches;
// paletteHits how many content hits it shows.
const (
	paletteWords = 8
	paletteHits  = 6
)

// paletteAPI serves GET /api/palette?q=: notes whose title, file name or
// alias matches (as you type, part of a word is enough) and the best
// keyword hits in their text, for the command palette. It runs BM25 only,
// so a keystroke costs milliseconds.
func (a *App) paletteAPI(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if len(q) > retrieval.MaxQueryBytes {
		writeError(w, gnoerr.New(gnoerr.InvalidInput, "query is too long"))
		return
	}
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	res := paletteResult{Notes: []retrieval.Completion{}, Hits: []paletteHit{}}
	if q == "" {
		writeJSON(w, http.StatusOK, res)
		return
	}
	if res.Notes, err = e.Graph().Complete(r.Context(), retrieval.CompleteRequest{Text: strings.ReplaceAll(q, "#", " "), Limit: 6}); err != nil {
		writeError(w, err)
		return
	}
	seen := map[string]bool{}
	for _, n := range res.Notes {
		seen[n.DocID] = true
	}
	// A palette jumps to notes: its first words say which. Longer text
	// is the search page's job, and would cost BM25 a term per word.
	// As you type, every word is required and the last one is a prefix
	// (SearchRequest.AsYouType): BM25 then scores the few documents
	// with them all, not every document with any. A request superseded
	// by the next keystroke is cancelled by the page, and its context
	// stops the query.
	bm := r.URL.Query().Get("q")
	if f := strings.Fields(q); len(f) > paletteWords {
		bm = strings.Join(f[:paletteWords], " ")
	}
	hits, err := e.Search(r.Context(), retrieval.SearchRequest{Query: bm, Limit: paletteHits + 2, AsYouType: true})
	if err != nil && !gnoerr.Is(err, gnoerr.InvalidInput) {
		writeError(w, err)
		return
	}
	if hits != nil {
		for _, h := range hits.Results {
			if seen[h.DocID] || len(res.Hits) == paletteHits {
				continue
			}
			title := h.Title
			if title == "" {
				title = h.Source.RelPath
			}
			href := docHref(h.DocID)
			if h.Lines.Start > 0 {
				href += "&from=" + strconv.Itoa(h.Lines.Start) + "&to=" + strconv.Itoa(h.Lines.End) + "#L" + strconv.Itoa(h.Lines.Start)
			}
			res.Hits = append(res.Hits, paletteHit{Title: title, URI: h.URI, DocID: h.DocID, Href: href, Snippet: segments(h.Snippet)})
		}
	}
	res.Took = float64(time.Since(start).Microseconds()) / 1000
	writeJSON(w, http.StatusOK, res)
}

// template is a note a capture may start from.
type noteTemplate struct {
	Name string `json:"name"`
	URI  string `json:"uri"`
}

// templatesFolder is the folder of a collection whose notes are capture
// templates (any case).
const templatesFolder = "templates"

// templatesAPI serves GET /api/templates?collection=: the notes in the
// collection's templates/ folder.
func (a *App) templatesAPI(w http.ResponseWriter, r *http.Request) {
	col := r.URL.Query().Get("collection")
	if col == "" {
		writeError(w, gnoerr.New(gnoerr.InvalidInput, "give a collection"))
		return
	}
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	list, err := e.List(r.Context(), col, 0, 0)
	if err != nil {
		writeError(w, err)
		return
	}
	out := []noteTemplate{}
	for _, d := range list {
		dir, name, ok := strings.Cut(d.RelPath, "/")
		if ok && strings.EqualFold(dir, templatesFolder) && !strings.Contains(name, "/") && isMarkdown(path.Ext(name)) {
			out = append(out, noteTemplate{Name: strings.TrimSuffix(name, path.Ext(name)), URI: d.URI})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"templates": out})
}

// captureRequest is the body of POST /api/capture.
type captureRequest struct {
	Collection string `json:"collection"`
	Title      string `json:"title"`
	Content    string `json:"content"`
	// Template is the URI of a note in the collection's templates/
	// folder; its {{title}}, {{date}} and {{time}} are filled in.
	Template string `json:"template"`
}

// capture serves POST /api/capture: a new note through gno_capture (the
// same path rule, index rule and lock as MCP), from a template or a
// title alone.
func (a *App) capture(w http.ResponseWriter, r *http.Request) {
	var req captureRequest
	if err := readJSON(r, maxBody, &req); err != nil {
		writeError(w, err)
		return
	}
	title := strings.TrimSpace(req.Title)
	content := req.Content
	if req.Template != "" {
		e, err := a.srv.Engine(r.Context())
		if err != nil {
			writeError(w, err)
			return
		}
		d, err := e.Get(r.Context(), retrieval.GetRequest{Ref: req.Template})
		if err != nil {
			writeError(w, err)
			return
		}
		dir, _, _ := strings.Cut(d.Source.RelPath, "/")
		if d.Collection != strings.ToLower(req.Collection) || !strings.EqualFold(dir, templatesFolder) {
			writeError(w, gnoerr.New(gnoerr.InvalidInput, "a template must be a note in the collection's %s/ folder", templatesFolder))
			return
		}
		now := time.Now()
		content = strings.NewReplacer("{{title}}", title, "{{date}}", now.Format("2006-01-02"), "{{time}}", now.Format("15:04")).Replace(d.Content) + content
	}
	if strings.TrimSpace(content) == "" {
		if title == "" {
			writeError(w, gnoerr.New(gnoerr.InvalidInput, "give a title or some text"))
			return
		}
		content = "# " + title + "\n\n"
	}
	args := map[string]any{"collection": req.Collection, "content": content}
	if title != "" {
		args["title"] = title
	}
	a.callTool(w, r, "gno_capture", args)
}

// addCollection serves POST /api/collections: gno_add_collection, whose
// indexing job the status page follows.
func (a *App) addCollection(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Path string `json:"path"`
		Name string `json:"name"`
	}
	if err := readJSON(r, maxBody, &req); err != nil {
		writeError(w, err)
		return
	}
	args := map[string]any{"path": strings.TrimSpace(req.Path)}
	if n := strings.TrimSpace(req.Name); n != "" {
		args["name"] = n
	}
	a.callTool(w, r, "gno_add_collection", args)
}

// removeCollection serves POST /api/collections/remove:
// gno_remove_collection (the files stay; the index forgets them).
func (a *App) removeCollection(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Collection string `json:"collection"`
	}
	if err := readJSON(r, maxBody, &req); err != nil {
		writeError(w, err)
		return
	}
	a.callTool(w, r, "gno_remove_collection", map[string]any{"collection": req.Collection})
}
