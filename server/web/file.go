package web

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/note"
)

// fileCSP lets the browser's own PDF viewer show an original file and
// nothing else run in it.
const fileCSP = "default-src 'none'; object-src 'self'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'none'"

// fileHref opens the original of a converted document, a PDF at page.
func fileHref(docid string, page int) string {
	h := "/file?ref=" + url.QueryEscape(docid)
	if page > 0 {
		h += "#page=" + strconv.Itoa(page)
	}
	return h
}

// pageAt is the PDF page a line of a PDF's Markdown mirror is on: the
// mirror has a "## Page N" heading per page (retrieval/convert).
func pageAt(content string, line int) int {
	if line <= 0 {
		return 0
	}
	page := 0
	for i, l := range strings.SplitN(content, "\n", line+1) {
		if i >= line {
			break
		}
		if n, ok := strings.CutPrefix(strings.TrimSpace(l), "## Page "); ok {
			if p, err := strconv.Atoi(strings.TrimSpace(n)); err == nil && p > 0 {
				page = p
			}
		}
	}
	return page
}

// filePage serves GET /file?ref=: the original file of a converted
// document (a PDF, an Office file ...), found by reference in the index
// only, never by a path the request names, and inside its collection by
// note.Path, the one path rule. With &line=N it redirects to the PDF page
// of that line (#page=N), so a citation opens at its page.
func (a *App) filePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	d, err := e.Get(r.Context(), retrieval.GetRequest{Ref: q.Get("ref")})
	if err != nil {
		writeError(w, err)
		return
	}
	if links.IsNoteExt(d.Source.Ext) {
		writeError(w, gnoerr.New(gnoerr.InvalidInput, "%s is a note; open it with /doc", d.URI))
		return
	}
	if l, _ := strconv.Atoi(q.Get("line")); l > 0 {
		http.Redirect(w, r, fileHref(d.DocID, pageAt(d.Content, l)), http.StatusFound)
		return
	}
	col, ok := e.Config().Collection(d.Collection)
	if !ok {
		writeError(w, gnoerr.New(gnoerr.NotFound, "collection %q not found", d.Collection))
		return
	}
	abs, err := note.Path(col.Path, d.Source.RelPath, note.Existing)
	if err != nil {
		writeError(w, err)
		return
	}
	f, err := os.Open(abs)
	if err != nil {
		writeError(w, gnoerr.Wrap(gnoerr.NotFound, err, "open %s", d.URI))
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		writeError(w, err)
		return
	}
	ct := d.Source.Mime
	if t := mime.TypeByExtension(strings.ToLower(d.Source.Ext)); t != "" && ct == "" {
		ct = t
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Security-Policy", fileCSP)
	h.Set("Content-Disposition", fmt.Sprintf("inline; filename*=UTF-8''%s", url.PathEscape(path.Base(d.Source.RelPath))))
	h.Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "", st.ModTime(), f)
}

// followPage serves GET /go?from=&to=: a [[wikilink]] of a rendered note,
// resolved now the way the index resolves links, redirects to the note it
// names.
func (a *App) followPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := page{Title: "Link", Nav: "browse", Data: &docView{}}
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		a.fail(w, r, "doc", p, err)
		return
	}
	n, err := e.Graph().Follow(r.Context(), retrieval.FollowRequest{From: q.Get("from"), Target: q.Get("to")})
	if err != nil {
		a.fail(w, r, "doc", p, err)
		return
	}
	http.Redirect(w, r, docHref(n.URI), http.StatusFound)
}
