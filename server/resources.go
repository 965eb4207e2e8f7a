package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/display"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/mark3labs/mcp-go/mcp"
)

// documentTemplate names every indexed document. {+path} (reserved
// expansion) lets the path variable span "/" separators.
const documentTemplate = "gno://{collection}/{+path}"

func (s *Server) addResources() {
	t := mcp.NewResourceTemplate(documentTemplate, "document",
		mcp.WithTemplateDescription("An indexed document as Markdown (converted from its source), with a header comment and line numbers. List them with resources/list; find them with gno_query."),
		mcp.WithTemplateMIMEType("text/markdown"))
	s.mcp.AddResourceTemplate(t, s.readResource)
}

// renderedDoc is a document read by the resources/read hook.
type renderedDoc struct{ text string }

// beforeReadResource reads the document before mcp-go dispatches the
// request. mcp-go turns any template-handler error into -32603, while the
// spec wants the standard not-found error (-32002): when the document does
// not exist, the hook points the request at a URI no template matches, so
// mcp-go answers with its own resource-not-found code, naming the reason.
// A document it did read is handed to readResource through s.reads.
func (s *Server) beforeReadResource(ctx context.Context, _ any, req *mcp.ReadResourceRequest) {
	uri := req.Params.URI
	if !strings.HasPrefix(strings.ToLower(uri), ref.Scheme) {
		return // not ours; mcp-go reports it unknown
	}
	text, err := s.renderDocument(ctx, uri)
	if err != nil {
		switch gnoerr.CodeOf(err) {
		case gnoerr.NotFound, gnoerr.InvalidInput, gnoerr.InvalidPath:
			req.Params.URI = err.Error()
			if strings.HasPrefix(strings.ToLower(req.Params.URI), ref.Scheme) {
				req.Params.URI = "not found: " + req.Params.URI
			}
		}
		return // other failures surface from readResource as internal errors
	}
	s.reads.Store(uri, &renderedDoc{text: text})
}

// readResource answers resources/read for gno:// documents.
func (s *Server) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := req.Params.URI
	var text string
	if v, ok := s.reads.LoadAndDelete(uri); ok {
		text = v.(*renderedDoc).text
	} else {
		var err error
		if text, err = s.renderDocument(ctx, uri); err != nil {
			if pub := gnoerr.Public(err); pub != err.Error() {
				s.log.Info("resource read failed", "uri", uri, "err", err)
				return nil, errors.New(pub)
			}
			return nil, err
		}
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/markdown", Text: text}}, nil
}

// renderDocument is the resource form of a document: a header comment
// (display only, not indexed content) and the numbered Markdown mirror.
func (s *Server) renderDocument(ctx context.Context, uri string) (string, error) {
	var d *retrieval.Document
	var err error
	if ref.IsPackageURI(uri) {
		d, err = s.getPackageUnit(ctx, retrieval.GetRequest{Ref: uri})
	} else {
		var e *retrieval.Engine
		if e, err = s.engine(ctx); err == nil {
			d, err = e.Get(ctx, retrieval.GetRequest{Ref: uri})
		}
	}
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- %s\n     docid: %s\n     source: %s\n     mime: %s\n", d.URI, d.DocID, d.Source.AbsPath, d.Source.Mime)
	if d.Lang != "" {
		fmt.Fprintf(&b, "     language: %s\n", d.Lang)
	}
	b.WriteString("-->\n\n")
	b.WriteString(display.NumberLines(d.Content, 1))
	return b.String(), nil
}

// afterListResources fills resources/list with indexed documents, a page
// at a time. mcp-go lists only statically registered resources (gno has
// none) and has already checked that the cursor is base64; the cursor
// holds the offset of the next page.
func (s *Server) afterListResources(ctx context.Context, _ any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	offset, _ := parseCursor(req.Params.Cursor)
	e, err := s.engine(ctx)
	if err != nil {
		s.logToClient(ctx, mcp.LoggingLevelError, "resources/list: "+gnoerr.Public(err))
		return
	}
	entries, err := e.List(ctx, "", s.opts.PageSize+1, offset)
	if err != nil {
		s.logToClient(ctx, mcp.LoggingLevelError, "resources/list: "+gnoerr.Public(err))
		return
	}
	more := len(entries) > s.opts.PageSize
	if more {
		entries = entries[:s.opts.PageSize]
	}
	list := make([]mcp.Resource, 0, len(entries))
	cfg := e.Config()
	for _, en := range entries {
		if _, ok := cfg.Collection(en.Collection); !ok {
			continue // a removed collection's data, retained until cleanup
		}
		r := mcp.Resource{URI: en.URI, Name: en.Collection + "/" + en.RelPath, Title: en.Title, MIMEType: "text/markdown",
			Description: "Indexed document " + en.DocID}
		list = append(list, r)
	}
	res.Resources = append(res.Resources, list...)
	res.NextCursor = ""
	if more {
		res.NextCursor = mcp.Cursor(base64.StdEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset+len(entries)))))
	}
}

// parseCursor reads a resources/list cursor: "" is the first page.
func parseCursor(c mcp.Cursor) (int, bool) {
	if c == "" {
		return 0, true
	}
	raw, err := base64.StdEncoding.DecodeString(string(c))
	if err != nil || !strings.HasPrefix(string(raw), "offset:") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:"))
	return n, err == nil && n >= 0
}

// beforeListResources makes mcp-go reject a cursor gno did not issue with
// invalid params (-32602): mcp-go only checks that it is base64.
func (s *Server) beforeListResources(_ context.Context, _ any, req *mcp.ListResourcesRequest) {
	if _, ok := parseCursor(req.Params.Cursor); !ok {
		req.Params.Cursor = "!invalid cursor"
	}
}

// completer completes the resource template's variables: collection
// names, then paths within the chosen collection.
type completer struct{ s *Server }

// CompleteResourceArgument implements mcp-go's ResourceCompletionProvider.
func (c completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cctx mcp.CompleteContext) (*mcp.Completion, error) {
	out := &mcp.Completion{Values: []string{}}
	if uri != documentTemplate {
		return out, nil
	}
	e, err := c.s.engine(ctx)
	if err != nil {
		return out, nil
	}
	const max = 100
	switch arg.Name {
	case "collection":
		for _, col := range e.Config().Collections {
			if strings.HasPrefix(col.Name, strings.ToLower(arg.Value)) && len(out.Values) < max {
				out.Values = append(out.Values, col.Name)
			}
		}
	case "path":
		col := cctx.Arguments["collection"]
		if col == "" {
			return out, nil
		}
		entries, err := e.List(ctx, col+"/"+arg.Value, max+1, 0)
		if err != nil {
			return out, nil
		}
		for i, en := range entries {
			if i == max {
				out.HasMore = true
				break
			}
			out.Values = append(out.Values, en.RelPath)
		}
	}
	out.Total = len(out.Values)
	return out, nil
}
