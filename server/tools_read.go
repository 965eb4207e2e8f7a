package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/display"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/mark3labs/mcp-go/mcp"
)

func readTools() []toolDef {
	return []toolDef{
		{name: "gno_search", title: "Keyword search", input: searchInputSchema, output: searchOutput,
			desc:     "BM25 keyword search over indexed documents. Best for exact words, names, identifiers and quoted phrases.",
			readOnly: true, idempotent: true, run: (*Server).search},
		{name: "gno_vsearch", title: "Semantic search", input: vsearchInputSchema, output: searchOutput,
			desc:     "Vector semantic search over indexed documents: finds passages with the same meaning in different words. Needs vectors (`gno index`).",
			readOnly: true, idempotent: true, run: (*Server).vsearch},
		{name: "gno_query", title: "Hybrid search", input: queryInputSchema, output: searchOutput,
			desc:     "Hybrid search (best quality): BM25 and vector retrieval fused, reranked by a cross-encoder, with optional query expansion. Use default mode first; if results are not relevant, rephrase, then try thorough: true. Degrades to BM25 when vectors or models are missing (see meta).",
			readOnly: true, idempotent: true, run: (*Server).query},
		{name: "gno_get", title: "Get document", input: getInputSchema, output: getOutput,
			desc:     "Retrieve a single document by reference (gno:// URI, collection/path, or #docid), optionally a line range, with line numbers.",
			readOnly: true, idempotent: true, run: (*Server).get},
		{name: "gno_multi_get", title: "Get documents", input: multiGetInputSchema, output: multiOutput,
			desc:     "Retrieve multiple documents by a list of references or a glob pattern over collection/path (e.g. work/**/*.md). Documents larger than maxBytes are skipped and listed.",
			readOnly: true, idempotent: true, run: (*Server).multiGet},
		{name: "gno_status", title: "Index status", input: emptyInputSchema, output: statusOutput,
			desc:     "Get index status and health: collections, document and chunk counts, embedding backlog, problems.",
			readOnly: true, idempotent: true, run: (*Server).status},
		{name: "gno_list_tags", title: "List tags", input: listTagsInputSchema, output: listTagsOutput,
			desc:     "List tags with document counts, optionally within a collection or under a prefix (e.g. project/). Tags come from front matter and gno_tag.",
			readOnly: true, idempotent: true, run: (*Server).listTags},
		{name: "gno_changes", title: "Changes since", input: changesInputSchema, output: changesOutput,
			desc:     "Documents added, modified and removed since generation `since`, and the current generation: re-read only what changed since you last looked.",
			readOnly: true, idempotent: true, run: (*Server).changes},
	}
}

// searchRequest builds a search from a tool's arguments and checks it as
// every front end does (SearchRequest.Validate), before the index opens.
func searchRequest(a args) (retrieval.SearchRequest, error) {
	req := retrieval.SearchRequest{
		Query:      a.str("query"),
		Collection: a.str("collection"),
		Limit:      a.int("limit", 5),
		MinScore:   a.num("minScore", 0),
		Lang:       a.str("lang"),
		TagsAny:    a.strs("tagsAny"),
		TagsAll:    a.strs("tagsAll"),
	}
	if err := req.Validate(); err != nil {
		return retrieval.SearchRequest{}, err
	}
	return req, nil
}

func (s *Server) search(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	return s.runSearch(ctx, a, retrieval.ModeSearch)
}

func (s *Server) vsearch(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	return s.runSearch(ctx, a, retrieval.ModeVSearch)
}

func (s *Server) query(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	return s.runSearch(ctx, a, retrieval.ModeQuery)
}

func (s *Server) runSearch(ctx context.Context, a args, mode retrieval.Mode) (any, string, error) {
	req, err := searchRequest(a)
	if err != nil {
		return nil, "", err
	}
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	q := retrieval.QueryRequest{SearchRequest: req}
	if mode == retrieval.ModeQuery {
		q.Fast, q.Thorough, q.Expand = a.bool("fast", false), a.bool("thorough", false), a.bool("expand", false)
		if a.has("rerank") {
			rr := a.bool("rerank", true)
			q.Rerank = &rr
		}
	}
	res, err := e.Run(ctx, mode, q)
	if err != nil {
		return nil, "", err
	}
	if res.Results == nil {
		res.Results = []retrieval.Result{}
	}
	for i := range res.Results {
		res.Results[i].Snippet = display.StripMarks(res.Results[i].Snippet)
	}
	return res, formatResults(res), nil
}

// formatResults is the human text of a search: one numbered entry per
// hit with its reference, score, title and snippet.
func formatResults(res *retrieval.SearchResults) string {
	var b strings.Builder
	if len(res.Results) == 0 {
		fmt.Fprintf(&b, "No results for %q (mode %s). Try other words, fewer words, or gno_query with thorough: true.", res.Meta.Query, res.Meta.Mode)
	} else {
		fmt.Fprintf(&b, "Found %s for %q (mode %s)\n", plural(len(res.Results), "result", "results"), res.Meta.Query, res.Meta.Mode)
	}
	for i, r := range res.Results {
		fmt.Fprintf(&b, "\n%d. %s - %s (%.2f)", i+1, r.DocID, r.URI, r.Score)
		if r.Lines.Start > 0 {
			fmt.Fprintf(&b, " lines %d-%d", r.Lines.Start, r.Lines.End)
		}
		if r.Page > 0 {
			fmt.Fprintf(&b, " page %d", r.Page)
		}
		b.WriteByte('\n')
		if r.Title != "" {
			fmt.Fprintf(&b, "   %s\n", oneLine(r.Title, 120))
		}
		if snip := oneLine(r.Snippet, 300); snip != "" {
			fmt.Fprintf(&b, "   %s\n", snip)
		}
	}
	for _, n := range res.Meta.Notes {
		fmt.Fprintf(&b, "\nNote: %s", n)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (s *Server) get(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	if ref.IsPackageURI(a.str("ref")) {
		return s.getPackage(ctx, a) // a unit of a dependency's docs
	}
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	d, err := e.Get(ctx, retrieval.GetRequest{Ref: a.str("ref"), FromLine: a.int("fromLine", 0), LineCount: a.int("lineCount", 0)})
	if err != nil {
		return nil, "", err
	}
	text := d.Content
	if a.bool("lineNumbers", true) {
		text = strings.TrimSuffix(display.NumberLines(d.Content, d.ReturnedLines.Start), "\n")
	}
	if a.int("depth", 0) == 1 {
		return s.withNeighbours(ctx, e, d, text)
	}
	return d, text, nil
}

func (s *Server) multiGet(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	if a.has("refs") && a.has("pattern") {
		return nil, "", gnoerr.New(gnoerr.InvalidInput, "give either refs or pattern, not both")
	}
	refs := a.strs("refs")
	if !a.has("pattern") && len(refs) == 0 {
		return nil, "", gnoerr.New(gnoerr.InvalidInput, "give refs (a non-empty list) or a pattern")
	}
	maxBytes := a.int("maxBytes", retrieval.DefaultMaxBytes)
	if maxBytes < 1 {
		return nil, "", gnoerr.New(gnoerr.InvalidInput, "maxBytes must be at least 1, not %d", maxBytes)
	}
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := e.MultiGet(ctx, retrieval.MultiGetRequest{Refs: refs, Pattern: a.str("pattern"), MaxBytes: maxBytes})
	if err != nil {
		return nil, "", err
	}
	numbers := a.bool("lineNumbers", true)
	var b strings.Builder
	fmt.Fprintf(&b, "Retrieved %s", plural(len(res.Documents), "document", "documents"))
	if len(res.Skipped) > 0 {
		fmt.Fprintf(&b, " (%d skipped)", len(res.Skipped))
	}
	b.WriteByte('\n')
	for _, sk := range res.Skipped {
		fmt.Fprintf(&b, "Skipped %s: %s\n", sk.Ref, sk.Reason)
	}
	for _, d := range res.Documents {
		fmt.Fprintf(&b, "\n=== %s (%s) ===\n", d.URI, d.DocID)
		if numbers {
			b.WriteString(display.NumberLines(d.Content, 1))
		} else {
			b.WriteString(strings.TrimSuffix(d.Content, "\n") + "\n")
		}
	}
	return res, strings.TrimRight(b.String(), "\n"), nil
}

func (s *Server) status(ctx context.Context, _ args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	st, err := e.Status(ctx)
	if err != nil {
		return nil, "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Index: %s\nCollections: %d\nDocuments: %d\nChunks: %d\nEmbedding backlog: %d\nLinks: %d (%d unresolved)\nHealthy: %v\n",
		st.IndexName, len(st.Collections), st.TotalDocuments, st.TotalChunks, st.EmbeddingBacklog, st.Links, st.UnresolvedLinks, st.Healthy)
	if r := st.Embedding; r != nil {
		fmt.Fprintf(&b, "Embedding now: %d of %d chunks, %.0f chunks/s", r.Done, r.Total, r.ChunksPerSec)
		if r.ETASec > 0 {
			fmt.Fprintf(&b, ", about %.0f min left", r.ETASec/60)
		}
		b.WriteString(" (searches meanwhile use the vectors stored so far)\n")
	}
	for _, c := range st.Collections {
		fmt.Fprintf(&b, "- %s: %d documents, %d chunks, %d embedded (%s)\n", c.Name, c.DocumentCount, c.ChunkCount, c.EmbeddedCount, c.Path)
		for r, n := range c.Skipped {
			fmt.Fprintf(&b, "  not converted (%s): %d\n", r, n)
		}
	}
	for _, is := range st.Issues {
		fmt.Fprintf(&b, "Issue: %s\n", is)
	}
	return st, strings.TrimRight(b.String(), "\n"), nil
}

// tagList is the structuredContent of gno_list_tags.
type tagList struct {
	Tags []retrieval.TagCount `json:"tags"`
}

func (s *Server) listTags(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	tags, err := e.Notes().Tags(ctx, retrieval.TagsRequest{Collection: a.str("collection"), Prefix: a.str("prefix")})
	if err != nil {
		return nil, "", err
	}
	if tags == nil {
		tags = []retrieval.TagCount{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s", plural(len(tags), "tag", "tags"))
	for _, t := range tags {
		fmt.Fprintf(&b, "\n- %s (%d)", t.Tag, t.Count)
	}
	return tagList{Tags: tags}, b.String(), nil
}

func (s *Server) changes(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	col := a.str("collection")
	if col != "" {
		if _, ok := e.Config().Collection(col); !ok {
			return nil, "", gnoerr.New(gnoerr.NotFound, "collection %q not found", col)
		}
	}
	ch, err := e.Notes().Changes(ctx, retrieval.ChangesRequest{Collection: col, Since: int64(a.int("since", 0)), Diff: a.bool("diff", false), MaxTokens: a.int("maxTokens", 0)})
	if err != nil {
		return nil, "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Generation %d (since %d): %d added, %d modified, %d removed", ch.Generation, ch.Since, len(ch.Added), len(ch.Modified), len(ch.Removed))
	for _, g := range []struct {
		name string
		list []retrieval.Change
	}{{"added", ch.Added}, {"modified", ch.Modified}, {"removed", ch.Removed}} {
		for _, c := range g.list {
			fmt.Fprintf(&b, "\n%s %s %s", g.name, c.DocID, c.URI)
			if c.Diff != "" || c.DiffNote != "" {
				fmt.Fprintf(&b, "\n%s%s", c.Diff, c.DiffNote)
			}
		}
	}
	return ch, b.String(), nil
}
