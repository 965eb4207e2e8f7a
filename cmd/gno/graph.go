package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/spf13/cobra"
)

// The links graph and note commands: gno links, path, hubs, related,
// orphans, resolve and note update|rm|mv.
func init() {
	extraCommands = append(extraCommands, newLinksCmd, newPathCmd, newHubsCmd, newRelatedCmd, newOrphansCmd, newResolveCmd, newNoteCmd)
}

func newLinksCmd(a *app) *cobra.Command {
	var dir, col string
	var unresolved bool
	var limit int
	cmd := &cobra.Command{
		Use:   "links [REF]",
		Short: "Show a document's links and backlinks; with --unresolved and no REF, every broken link",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			if len(args) == 0 {
				if !unresolved {
					return fmt.Errorf("give a REF, or --unresolved to list broken links")
				}
				un, err := e.Graph().Unresolved(cmd.Context(), retrieval.UnresolvedRequest{Collection: col, Limit: limit})
				if err != nil {
					return err
				}
				if a.json {
					return a.printJSON(map[string]any{"unresolved": un})
				}
				for _, u := range un {
					fmt.Fprintf(a.stdout, "%s:%d\t%s\n", u.Source.URI, u.Line, linkText(u.Target, u.Fragment))
				}
				return nil
			}
			res, err := e.Graph().Links(cmd.Context(), retrieval.LinksRequest{Ref: args[0], Direction: dir, Limit: limit, Unresolved: unresolved})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			fmt.Fprintf(a.stdout, "%s  %s\n", res.URI, res.Title)
			if dir != "in" {
				fmt.Fprintf(a.stdout, "Outgoing (%d):\n", res.OutgoingCount)
				for _, l := range res.Outgoing {
					to := l.URI
					switch {
					case l.Attachment:
						to = "(attachment)"
					case !l.Resolved:
						to = "(unresolved)"
					}
					fmt.Fprintf(a.stdout, "  line %-5d %-40s -> %s\n", l.Line, linkText(l.Target, l.Fragment), to)
				}
			}
			if dir != "out" && !unresolved {
				fmt.Fprintf(a.stdout, "Incoming (%d):\n", res.IncomingCount)
				for _, l := range res.Incoming {
					fmt.Fprintf(a.stdout, "  %s:%d  %s\n", l.URI, l.Line, l.Title)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "direction", "both", "in, out or both")
	cmd.Flags().BoolVar(&unresolved, "unresolved", false, "only links that name no document")
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "at most this many links per list (0: all)")
	cmd.Flags().StringVarP(&col, "collection", "c", "", "with --unresolved and no REF: one collection")
	return cmd
}

func linkText(target, frag string) string {
	if frag != "" {
		return target + "#" + frag
	}
	return target
}

func newPathCmd(a *app) *cobra.Command {
	var undirected bool
	var depth int
	cmd := &cobra.Command{
		Use:   "path REF REF",
		Short: "Shortest chain of links from one document to another",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			p, err := e.Graph().Path(cmd.Context(), retrieval.PathRequest{Source: args[0], Target: args[1], Undirected: undirected, MaxDepth: depth})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(p) // null when there is no path
			}
			if p == nil {
				fmt.Fprintln(a.stdout, "No path.")
				return nil
			}
			for i, n := range p.Path {
				fmt.Fprintf(a.stdout, "%s%s  %s\n", strings.Repeat("  ", i), n.URI, n.Title)
			}
			fmt.Fprintf(a.stdout, "%d link(s)\n", p.Length)
			return nil
		},
	}
	cmd.Flags().BoolVar(&undirected, "undirected", false, "follow links both ways")
	cmd.Flags().IntVar(&depth, "max-depth", retrieval.DefaultMaxPathDepth, "longest path searched, in links")
	return cmd
}

func newHubsCmd(a *app) *cobra.Command {
	var metric string
	var limit int
	cmd := &cobra.Command{
		Use:   "hubs",
		Short: "Most central documents by in_degree, out_degree or pagerank",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			hubs, err := e.Graph().Hubs(cmd.Context(), retrieval.HubsRequest{Metric: metric, Limit: limit})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{"metric": metric, "hubs": hubs})
			}
			for _, h := range hubs {
				fmt.Fprintf(a.stdout, "%10.4g  %s  %s\n", h.Score, h.URI, h.Title)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&metric, "metric", retrieval.MetricInDegree, "in_degree, out_degree or pagerank")
	cmd.Flags().IntVarP(&limit, "limit", "n", 10, "number of hubs")
	return cmd
}

func newRelatedCmd(a *app) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "related REF",
		Short: "Notes near a note, by its links and (when indexed) its vectors",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			res, err := e.Graph().Related(cmd.Context(), retrieval.RelatedRequest{Ref: args[0], Limit: limit})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			for _, r := range res.Related {
				mark := " "
				if r.Linked {
					mark = "*"
				}
				fmt.Fprintf(a.stdout, "%.3f %s %s  %s\n", r.Score, mark, r.URI, r.Title)
			}
			if !res.VectorsUsed {
				fmt.Fprintln(a.stderr, "(links only: run `gno index` to add vectors)")
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 10, "number of notes")
	return cmd
}

func newOrphansCmd(a *app) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "orphans",
		Short: "Documents with no links in or out",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			res, err := e.Graph().Orphans(cmd.Context(), retrieval.OrphansRequest{Limit: limit})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{"orphans": res})
			}
			for _, o := range res {
				fmt.Fprintf(a.stdout, "%s  %s\n", o.URI, o.Title)
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "at most this many (0: all)")
	return cmd
}

func newResolveCmd(a *app) *cobra.Command {
	var strategy string
	var threshold float64
	cmd := &cobra.Command{
		Use:   "resolve NAME...",
		Short: "Which note each name means (exact, fuzzy or semantic)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			res, err := e.Graph().Resolve(cmd.Context(), retrieval.ResolveRequest{Names: args, Strategy: strategy, Threshold: threshold})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{"results": res})
			}
			for _, r := range res {
				m := r.URI
				if m == "" {
					m = "(no match)"
				}
				fmt.Fprintf(a.stdout, "%s\t%.2f\t%s\n", r.Query, r.Score, m)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&strategy, "strategy", retrieval.ResolveFuzzy, "exact, fuzzy or semantic")
	cmd.Flags().Float64Var(&threshold, "threshold", 0.7, "least similarity for fuzzy and semantic")
	return cmd
}

func newNoteCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "note", Short: "Edit notes safely: update, rm, mv (atomic, links kept whole)"}
	var contentFile string
	var tags []string
	update := &cobra.Command{
		Use:   "update REF",
		Short: "Replace a note's body (--content-file, - for stdin) and/or its tags (--tags)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			e, err := a.engine(c.Context())
			if err != nil {
				return err
			}
			var content *string
			if contentFile != "" {
				var b []byte
				if contentFile == "-" {
					b, err = io.ReadAll(os.Stdin)
				} else {
					b, err = os.ReadFile(contentFile)
				}
				if err != nil {
					return err
				}
				s := string(b)
				content = &s
			}
			var t []string
			if c.Flags().Changed("tags") {
				t = append([]string{}, tags...)
			}
			res, err := e.Notes().Update(c.Context(), retrieval.UpdateNoteRequest{Ref: args[0], Content: content, Tags: t})
			if err != nil {
				return err
			}
			return a.noteDone(res, "Updated "+res.URI)
		},
	}
	update.Flags().StringVar(&contentFile, "content-file", "", "file holding the new body (- for stdin)")
	update.Flags().StringSliceVar(&tags, "tags", nil, "new front-matter tags (comma-separated; empty to clear)")
	rm := &cobra.Command{
		Use:   "rm REF",
		Short: "Delete a note's file (its incoming links become unresolved)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			e, err := a.engine(c.Context())
			if err != nil {
				return err
			}
			res, err := e.Notes().Delete(c.Context(), retrieval.DeleteNoteRequest{Ref: args[0]})
			if err != nil {
				return err
			}
			if res.Deleted == nil || !*res.Deleted {
				return a.noteDone(res, "No such note: "+args[0])
			}
			return a.noteDone(res, fmt.Sprintf("Deleted %s (%d incoming link(s) now unresolved)", res.URI, res.BrokenLinks))
		},
	}
	var updateLinks bool
	mv := &cobra.Command{
		Use:   "mv REF NEW_PATH",
		Short: "Rename or move a note within its collection; --update-links rewrites links to it",
		Args:  cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			e, err := a.engine(c.Context())
			if err != nil {
				return err
			}
			res, err := e.Notes().Rename(c.Context(), retrieval.RenameNoteRequest{Ref: args[0], NewPath: args[1], UpdateLinks: updateLinks})
			if err != nil {
				return err
			}
			return a.noteDone(res, fmt.Sprintf("Moved %s to %s (%d link(s) rewritten in %d note(s))", res.From, res.URI, res.LinksUpdated, len(res.FilesUpdated)))
		},
	}
	mv.Flags().BoolVar(&updateLinks, "update-links", false, "rewrite links in other notes that would break")
	cmd.AddCommand(update, rm, mv)
	return cmd
}

func (a *app) noteDone(res *retrieval.NoteResult, text string) error {
	if a.json {
		return a.printJSON(res)
	}
	fmt.Fprintln(a.stdout, text)
	return nil
}
