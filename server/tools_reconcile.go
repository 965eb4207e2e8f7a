package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/mark3labs/mcp-go/mcp"
)

// reconcileTools keep notes true to what they describe. The two reads are
// read-only; marking and clearing write only gno's own reconcile cache
// (never a user file), so they need no --enable-write, but a read-only
// share token does not see them. They fail with JSON-RPC errors, as
// reconcile-cache-mcp.md says (rpcerror.go).
func reconcileTools() []toolDef {
	return []toolDef{
		{name: "gno_affected", title: "Affected notes", input: affectedInputSchema, output: affectedOutput,
			desc:     "Files changed (against a git base branch, or since a generation) and the notes they affect: notes whose front-matter `governs` globs match a changed file, and notes linking to one; with why and their content within the budget.",
			readOnly: true, idempotent: true, rpcErrors: true, run: (*Server).affected},
		{name: "gno_diff", title: "Diff for a note", input: diffInputSchema, output: diffOutput,
			desc:     "For a governing note: the unified diff of the files it governs that changed (git's own diff with base), skipping files the reconcile cache (cursor) already holds as they are and those matching exclude; changed governing notes and the parent note in full. For any other document: its own diff since a generation.",
			readOnly: true, idempotent: true, rpcErrors: true, run: (*Server).diff},
		{name: "gno_mark_reconciled", title: "Mark reconciled", input: markInputSchema, output: markOutput,
			desc:       "Record files as reconciled: their BLAKE3 content hashes go to the reconcile cache of cursor, so gno_diff skips them until they change. Files that no longer exist are skipped (and listed in missing).",
			idempotent: true, rpcErrors: true, run: (*Server).markReconciled},
		{name: "gno_clear_reconciled", title: "Clear reconcile cache", input: clearInputSchema, output: clearOutput,
			desc:       "Forget the reconcile cache of cursor: the next gno_diff shows every governed change again.",
			idempotent: true, rpcErrors: true, run: (*Server).clearReconciled},
	}
}

// since reads the optional generation argument.
func (a args) since() *int64 {
	if !a.has("since") {
		return nil
	}
	g := int64(a.int("since", 0))
	return &g
}

func (s *Server) affected(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := e.Notes().Affected(ctx, retrieval.AffectedRequest{Base: a.str("base"), Since: a.since(), Collection: a.str("collection"), MaxTokens: a.int("maxTokens", 0)})
	if err != nil {
		return nil, "", err
	}
	return res, affectedText(res), nil
}

// AffectedText is the human text of an Affected answer (CLI and MCP).
func affectedText(res *retrieval.Affected) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s changed, %s affected", plural(len(res.Changed), "file", "files"), plural(len(res.Notes), "note", "notes"))
	for _, f := range res.Changed {
		fmt.Fprintf(&b, "\n  %s %s", f.Status, f.URI)
	}
	if res.ChangedOmitted > 0 {
		fmt.Fprintf(&b, "\n  … and %d more (over the budget)", res.ChangedOmitted)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "\n\n%s %s — %s", n.DocID, n.URI, n.Title)
		for _, w := range n.Why {
			if w.Glob != "" {
				fmt.Fprintf(&b, "\n  %s %s (%s)", w.By, w.File, w.Glob)
			} else {
				fmt.Fprintf(&b, "\n  %s %s", w.By, w.File)
			}
		}
		if n.ContentOmitted {
			b.WriteString("\n  (content over the budget: read it with gno_get)")
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "\nwarning: %s", w)
	}
	return b.String()
}

func (s *Server) diff(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := e.Notes().Diff(ctx, retrieval.DiffRequest{Ref: a.str("ref"), Base: a.str("base"), Since: a.since(), Exclude: a.strs("exclude"),
		BypassCache: a.bool("bypassCache", false), Cursor: a.str("cursor"), MaxTokens: a.int("maxTokens", 0)})
	if err != nil {
		return nil, "", err
	}
	return res, diffText(res), nil
}

// DiffText is the human text of a Diff answer (CLI and MCP): the diff,
// then what was left out and why.
func diffText(res *retrieval.DiffResult) string {
	var b strings.Builder
	b.WriteString(res.Diff)
	list := func(name string, items []string) {
		for _, it := range items {
			fmt.Fprintf(&b, "# %s %s\n", name, it)
		}
	}
	list("skipped (reconciled)", res.Skipped)
	list("excluded", res.Excluded)
	list("omitted (over the budget)", res.Omitted)
	for _, n := range res.NotDiffed {
		fmt.Fprintf(&b, "# not diffed %s: %s\n", n.URI, n.Reason)
	}
	for _, w := range res.Whole {
		fmt.Fprintf(&b, "# whole text of %s\n%s\n", w.URI, w.Content)
	}
	for _, sc := range res.SpecChanges {
		fmt.Fprintf(&b, "# changed governing note %s\n%s\n", sc.URI, sc.Content)
	}
	if res.System != nil {
		if res.System.Content != "" {
			fmt.Fprintf(&b, "# parent note %s\n%s\n", res.System.URI, res.System.Content)
		} else {
			fmt.Fprintf(&b, "# parent note %s (above)\n", res.System.URI)
		}
	}
	if res.Message != "" {
		fmt.Fprintf(&b, "# %s\n", res.Message)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "# warning: %s\n", w)
	}
	if b.Len() == 0 {
		return "No changes to reconcile for " + res.URI + "."
	}
	return b.String()
}

func (s *Server) markReconciled(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := e.Notes().MarkReconciled(ctx, retrieval.MarkRequest{Files: a.strs("files"), Cursor: a.str("cursor")})
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("Marked %s reconciled (cursor %s); %d missing", plural(res.Updated, "file", "files"), res.Cursor, len(res.Missing)), nil
}

func (s *Server) clearReconciled(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := e.Notes().ClearReconciled(ctx, retrieval.ClearRequest{Cursor: a.str("cursor")})
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("Cleared cursor %s (%s)", res.Cursor, plural(res.Files, "file", "files")), nil
}
