package web

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gnosearch/gno/answer"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/server/jobs"
)

func (a *App) parseTemplates() error {
	funcs := template.FuncMap{
		"docHref":    docHref,
		"cite":       citeHref,
		"browseHref": browseHref,
		"showURI":    showURI,
		"isPDF":      func(uri string) bool { return strings.EqualFold(path.Ext(uri), ".pdf") },
		"bytes":      humanBytes,
		"ms":         func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
		"score":      func(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) },
		"join":       strings.Join,
	}
	a.pages = map[string]*template.Template{}
	for _, name := range []string{"search", "doc", "ask", "status", "edit", "browse", "tags", "graph"} {
		t, err := template.New(name).Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return fmt.Errorf("web: template %s: %w", name, err)
		}
		a.pages[name] = t
	}
	return nil
}

// page is what every template gets.
type page struct {
	Title       string
	Nav         string
	NavItems    []navItem
	CSRF        string
	Write       bool
	Form        form
	Collections []string
	Err         string
	// Scripts are the page's own scripts under /assets/, after app.js;
	// Styles its own style sheets, after style.css; Modules its ES
	// modules, and Preload the modules they import (fetched at once
	// rather than one import after another).
	Scripts, Styles, Modules, Preload []string
	Data                              any
}

// navItem is an entry of the main navigation.
type navItem struct{ Key, Href, Label string }

// navItems is the main navigation. A page names its entry in page.Nav;
// a new page (the graph) adds one line here.
var navItems = []navItem{
	{"search", "/", "Search"},
	{"browse", "/browse", "Browse"},
	{"tags", "/tags", "Tags"},
	{"graph", "/graph", "Graph"},
	{"ask", "/ask", "Ask"},
	{"status", "/status", "Status"},
}

// form is the search box's state.
type form struct {
	Q, Mode, Collection, Tags string
	Explain                   bool
}

// modes are the search box's choices.
var modes = []struct{ Value, Label string }{{"search", "Keywords (BM25)"}, {"vsearch", "Meaning (vectors)"}, {"query", "Hybrid (best)"}}

func (a *App) render(w http.ResponseWriter, r *http.Request, name string, status int, p page) {
	p.CSRF, p.Write, p.NavItems = a.csrf, a.opts.EnableWrite, navItems
	if p.Nav == "" {
		p.Nav = name
	}
	if e, err := a.srv.Engine(r.Context()); err == nil {
		p.Collections = e.Config().CollectionNames()
	}
	var buf bytes.Buffer
	if err := a.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		a.log.Error("render page", "page", name, "err", err)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeCompressed(w, r, status, "text/html; charset=utf-8", buf.Bytes())
}

func (a *App) fail(w http.ResponseWriter, r *http.Request, name string, p page, err error) {
	p.Err = gnoerr.Public(err)
	if p.Err != err.Error() {
		a.log.Error("page failed", "page", name, "err", err)
	}
	a.render(w, r, name, statusOf(err), p)
}

// resultView is one search hit on the page.
type resultView struct {
	retrieval.Result
	Snippet template.HTML
	Href    string
	// PDFHref opens the original PDF at the hit's page.
	PDFHref string
}

// searchView is the search page's data.
type searchView struct {
	Modes   any
	Results []resultView
	Meta    *retrieval.Meta
	Stages  []stage
	Elapsed float64
	// Tagged lists the notes of TagList when there is no query.
	Tagged  []retrieval.Entry
	TagList []string
}

// stageOrder puts stages in pipeline order, total last.
func stageOrder(name string) int {
	for i, s := range []string{"expand", "bm25", "vector", "fusion", "rerank", "blend"} {
		if strings.HasPrefix(name, s) {
			return i
		}
	}
	if name == "total" {
		return 100
	}
	return 50
}

type stage struct {
	Name string
	MS   float64
}

func (a *App) searchPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := form{Q: strings.TrimSpace(q.Get("q")), Mode: q.Get("mode"), Collection: q.Get("collection"), Tags: q.Get("tags"), Explain: q.Get("explain") != ""}
	if f.Mode == "" {
		f.Mode = "search"
	}
	view := &searchView{Modes: modes}
	p := page{Title: "Search", Form: f, Data: view}
	// fragment=1 asks for the results alone: the page's search as you type.
	show := func(status int) {
		if q.Get("fragment") == "" {
			a.render(w, r, "search", status, p)
			return
		}
		p.CSRF, p.Write = a.csrf, a.opts.EnableWrite
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		if p.Err != "" {
			fmt.Fprintf(w, "<p class=\"error\" role=\"alert\">%s</p>", template.HTMLEscapeString(p.Err))
		}
		if err := a.pages["search"].ExecuteTemplate(w, "results", p); err != nil {
			a.log.Error("render results", "err", err)
		}
	}
	if f.Q == "" {
		if f.Tags != "" {
			if err := a.tagged(r.Context(), f, view); err != nil {
				p.Err = gnoerr.Public(err)
				show(statusOf(err))
				return
			}
			p.Title = "#" + strings.Join(view.TagList, " #")
		}
		show(http.StatusOK)
		return
	}
	p.Title = f.Q
	start := time.Now()
	res, err := a.search(r.Context(), f)
	if err != nil {
		p.Err = gnoerr.Public(err)
		show(statusOf(err))
		return
	}
	view.Elapsed = float64(time.Since(start).Microseconds()) / 1000
	view.Meta = &res.Meta
	for _, hit := range res.Results {
		href := docHref(hit.DocID)
		if hit.Lines.Start > 0 {
			href = fmt.Sprintf("%s&from=%d&to=%d#L%d", href, hit.Lines.Start, hit.Lines.End, hit.Lines.Start)
		}
		if hit.Title == "" {
			hit.Title = hit.Source.RelPath
		}
		rv := resultView{Result: hit, Snippet: highlight(hit.Snippet), Href: href}
		if hit.Page > 0 {
			rv.PDFHref = fileHref(hit.DocID, hit.Page)
		}
		view.Results = append(view.Results, rv)
	}
	for k, v := range res.Meta.Timings {
		view.Stages = append(view.Stages, stage{k, v})
	}
	sort.Slice(view.Stages, func(i, j int) bool {
		oi, oj := stageOrder(view.Stages[i].Name), stageOrder(view.Stages[j].Name)
		if oi != oj {
			return oi < oj
		}
		return view.Stages[i].Name < view.Stages[j].Name
	})
	show(http.StatusOK)
}

// tags splits the search box's tag list.
func tagList(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "#")); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// tagged lists the notes carrying the form's tags (a search with tags
// and no words: what the tag browser links to).
func (a *App) tagged(ctx context.Context, f form, view *searchView) error {
	e, err := a.srv.Engine(ctx)
	if err != nil {
		return err
	}
	view.TagList = tagList(f.Tags)
	view.Tagged, err = e.Notes().Tagged(ctx, retrieval.TaggedRequest{Tags: view.TagList, Collection: f.Collection})
	return err
}

// search runs the page's search on the engine directly (the page wants
// snippet marks and explain data, which the API strips or omits).
func (a *App) search(ctx context.Context, f form) (*retrieval.SearchResults, error) {
	e, err := a.srv.Engine(ctx)
	if err != nil {
		return nil, err
	}
	req := retrieval.SearchRequest{Query: f.Q, Collection: f.Collection, Limit: 20, Explain: f.Explain, TagsAny: tagList(f.Tags)}
	mode, err := retrieval.ParseMode(f.Mode)
	if err != nil {
		return nil, err
	}
	return e.Run(ctx, mode, retrieval.QueryRequest{SearchRequest: req})
}

// docView is the document page's data.
type docView struct {
	Doc      *retrieval.Document
	Body     template.HTML
	Source   []srcLine
	View     string
	From, To int
	Links    []docLink
	Outgoing []Link
	Incoming []Link
	Graph    bool
	GraphErr string
	// Editable: a note the editor may open (not a converted file).
	Editable bool
	// FileHref opens the original of a converted document (a PDF at
	// Page, the page of the cited lines); FileKind names its format.
	FileHref, FileKind string
	Page               int
}

type srcLine struct {
	N    int
	Text string
	Hit  bool
}

func (a *App) docPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ref := q.Get("ref")
	view := &docView{View: q.Get("view")}
	p := page{Title: "Document", Nav: "browse", Data: view}
	if ref == "" {
		a.fail(w, r, "doc", p, gnoerr.New(gnoerr.InvalidInput, "no document: give ?ref=#docid or collection/path"))
		return
	}
	view.From, _ = strconv.Atoi(q.Get("from"))
	view.To, _ = strconv.Atoi(q.Get("to"))
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		a.fail(w, r, "doc", p, err)
		return
	}
	// Documents come from the index by reference only: Get resolves a
	// docid, URI or collection/path against indexed documents and never
	// opens a file by the given path.
	d, err := e.Get(r.Context(), retrieval.GetRequest{Ref: ref})
	if err != nil {
		a.fail(w, r, "doc", p, err)
		return
	}
	view.Doc = d
	p.Title = d.Title
	if p.Title == "" {
		p.Title = d.Source.RelPath
	}
	view.Editable = links.IsNoteExt(d.Source.Ext)
	if !view.Editable {
		view.FileKind = strings.ToUpper(strings.TrimPrefix(d.Source.Ext, "."))
		if strings.EqualFold(d.Source.Ext, ".pdf") {
			view.Page = pageAt(d.Content, view.From)
		}
		view.FileHref = fileHref(d.DocID, view.Page)
	}
	if view.View == "" && !isMarkdown(d.Source.Ext) {
		view.View = "source" // plain text reads best as numbered lines
	}
	if view.View == "source" {
		for i, l := range strings.Split(strings.TrimSuffix(d.Content, "\n"), "\n") {
			n := i + 1
			view.Source = append(view.Source, srcLine{N: n, Text: l, Hit: view.From > 0 && n >= view.From && n <= max(view.To, view.From)})
		}
	} else {
		view.View = "rendered"
		out, err := renderMarkdown(d.Content, d.Collection, d.Source.RelPath, view.From, view.To)
		if err != nil {
			a.fail(w, r, "doc", p, err)
			return
		}
		view.Body, view.Links = out.HTML, out.Links
	}
	if a.opts.Links != nil {
		view.Graph = true
		out, in, err := a.opts.Links.Links(r.Context(), d.DocID)
		if err != nil {
			view.GraphErr = gnoerr.Public(err)
		}
		view.Outgoing, view.Incoming = out, in
	}
	a.render(w, r, "doc", http.StatusOK, p)
}

// askView is the ask page's data.
type askView struct {
	Q, Mode string
	Answer  *answerData
}

// answerData is an answer ready for the page.
type answerData struct {
	*answer.Answer
	Text template.HTML
}

// citation matches a checked citation in an answer.
var citation = lazyRegexp(`\[(#[0-9A-Za-z]+):(\d+)-(\d+)\]`)

// answerView escapes the answer and links its citations to the lines.
func answerView(ans *answer.Answer) *answerData {
	num := map[string]int{}
	for _, c := range ans.Citations {
		num[c.DocID] = c.Passage
	}
	var b strings.Builder
	for _, para := range strings.Split(ans.Answer, "\n\n") {
		esc := template.HTMLEscapeString(para)
		esc = citation().ReplaceAllStringFunc(esc, func(m string) string {
			s := citation().FindStringSubmatch(m)
			from, _ := strconv.Atoi(s[2])
			to, _ := strconv.Atoi(s[3])
			return fmt.Sprintf(`<a class="cite" href="%s">%s:%s-%s</a>`, template.HTMLEscapeString(citeHref(s[1], from, to)), s[1], s[2], s[3])
		})
		b.WriteString("<p>" + strings.ReplaceAll(esc, "\n", "<br>") + "</p>")
	}
	return &answerData{Answer: ans, Text: template.HTML(b.String())}
}

func (a *App) askPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	view := &askView{Q: strings.TrimSpace(q.Get("q")), Mode: q.Get("mode")}
	p := page{Title: "Ask", Data: view, Form: form{Collection: q.Get("collection")}}
	if view.Q == "" {
		a.render(w, r, "ask", http.StatusOK, p)
		return
	}
	raw := map[string]any{"question": view.Q}
	if view.Mode != "" {
		raw["mode"] = view.Mode
	}
	if p.Form.Collection != "" {
		raw["collection"] = p.Form.Collection
	}
	ans, err := a.srv.Ask(r.Context(), raw, nil)
	if err != nil {
		a.fail(w, r, "ask", p, err)
		return
	}
	view.Answer = answerView(ans)
	a.render(w, r, "ask", http.StatusOK, p)
}

// statusView is the status page's data.
type statusView struct {
	Status *retrieval.Status
	Active []jobs.Job
	Recent []jobs.Job
}

func (a *App) statusPage(w http.ResponseWriter, r *http.Request) {
	view := &statusView{}
	p := page{Title: "Status", Data: view}
	e, err := a.srv.Engine(r.Context())
	if err == nil {
		view.Status, err = e.Status(r.Context())
	}
	if err != nil {
		a.fail(w, r, "status", p, err)
		return
	}
	if view.Active, view.Recent, err = a.srv.Jobs(r.Context(), 10); err != nil {
		a.fail(w, r, "status", p, err)
		return
	}
	a.render(w, r, "status", http.StatusOK, p)
}

func isMarkdown(ext string) bool {
	switch strings.ToLower(strings.TrimPrefix(ext, ".")) {
	case "md", "markdown", "mdx", "mkd":
		return true
	}
	return false
}

// showURI is a gno:// URI for reading: its escapes (%20) decoded.
func showURI(u string) string {
	if s, err := url.PathUnescape(u); err == nil {
		return s
	}
	return u
}

// docHref is the document view of a reference.
func docHref(ref string) string { return "/doc?ref=" + url.QueryEscape(ref) }

// citeHref is the source view of a document's lines.
func citeHref(docid string, from, to int) string {
	return fmt.Sprintf("%s&view=source&from=%d&to=%d#L%d", docHref(docid), from, to, from)
}
