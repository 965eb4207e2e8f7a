package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/display"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/spf13/cobra"
)

func newGetCmd(a *app) *cobra.Command {
	var from, lines int
	var numbers bool
	cmd := &cobra.Command{
		Use:   "get REF",
		Short: "Print a document (REF: gno://collection/path, collection/path, #docid, or a package unit gno://pkg/...)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := a.get(cmd.Context(), retrieval.GetRequest{Ref: args[0], FromLine: from, LineCount: lines})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(d)
			}
			content := d.Content
			if numbers {
				content = display.NumberLines(content, d.ReturnedLines.Start)
			}
			fmt.Fprint(a.stdout, content)
			if !strings.HasSuffix(content, "\n") {
				fmt.Fprintln(a.stdout)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&from, "from", 0, "first line (1-based)")
	cmd.Flags().IntVarP(&lines, "lines", "l", 0, "number of lines")
	cmd.Flags().BoolVar(&numbers, "line-numbers", false, "prefix lines with their numbers")
	return cmd
}

func newMultiGetCmd(a *app) *cobra.Command {
	var maxBytes int
	var numbers bool
	cmd := &cobra.Command{
		Use:   "multi-get PATTERN|REF,REF...",
		Short: "Print several documents, by glob over collection/path or a comma-separated REF list",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			req := retrieval.MultiGetRequest{MaxBytes: maxBytes}
			if strings.ContainsAny(args[0], "*?[") {
				req.Pattern = args[0]
			} else {
				for _, r := range strings.Split(args[0], ",") {
					if r = strings.TrimSpace(r); r != "" {
						req.Refs = append(req.Refs, r)
					}
				}
			}
			res, err := e.MultiGet(cmd.Context(), req)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			for _, d := range res.Documents {
				content := d.Content
				if numbers {
					content = display.NumberLines(content, 1)
				}
				fmt.Fprintf(a.stdout, "==> %s (%s) <==\n%s\n", d.URI, d.DocID, strings.TrimRight(content, "\n"))
			}
			for _, s := range res.Skipped {
				fmt.Fprintf(a.stderr, "skipped %s: %s\n", s.Ref, s.Reason)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&maxBytes, "max-bytes", retrieval.DefaultMaxBytes, "skip documents larger than this")
	cmd.Flags().BoolVar(&numbers, "line-numbers", false, "prefix lines with their numbers")
	return cmd
}

func newLsCmd(a *app) *cobra.Command {
	var limit, offset int
	cmd := &cobra.Command{
		Use:   "ls [COLLECTION[/PATH]]",
		Short: "List indexed documents",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			target := ""
			if len(args) == 1 {
				target = args[0]
			}
			if limit < 0 || offset < 0 {
				return fmt.Errorf("--limit and --offset must be 0 or more")
			}
			entries, err := e.List(cmd.Context(), target, limit, offset)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(entries)
			}
			for _, en := range entries {
				fmt.Fprintf(a.stdout, "%s  %s  %s\n", en.DocID, en.URI, en.Title)
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "at most this many (0: all)")
	cmd.Flags().IntVar(&offset, "offset", 0, "skip this many first (pages of a large index: --limit 1000 --offset 2000)")
	return cmd
}

func newStatusCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show index status and health",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			s, err := e.Status(cmd.Context())
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(s)
			}
			fmt.Fprintf(a.stdout, "Index: %s (%s)\nConfig: %s\nGeneration: %d\n", s.IndexName, s.DBPath, s.ConfigPath, s.Generation)
			fmt.Fprintf(a.stdout, "Collections: %d\nDocuments: %d\nChunks: %d\n", len(s.Collections), s.TotalDocuments, s.TotalChunks)
			fmt.Fprintf(a.stdout, "Links: %d (%d unresolved: gno links --unresolved)\n", s.Links, s.UnresolvedLinks)
			if srv := s.Server; srv != nil {
				fmt.Fprintf(a.stdout, "Server: PostgreSQL %s, pgvector %s, %s\n", srv.Version, srv.Vector, tlsWords(srv.TLS))
				fmt.Fprintf(a.stdout, "Schema: version %s\n", srv.Schema) // as doctor's: an upgrade and its fill
				if r := srv.Replica; r != nil {
					fmt.Fprintf(a.stdout, "Read replica: %s\n", replicaLine(r))
				}
			}
			if s.EmbedModel != "" {
				embedded := s.TotalChunks - s.EmbeddingBacklog
				fmt.Fprintf(a.stdout, "Embedding model: %s (%d of %d chunks embedded, %s; backlog %d)\n", s.EmbedModel, embedded, s.TotalChunks,
					percent(embedded, s.TotalChunks), s.EmbeddingBacklog)
				if r := s.Embedding; r != nil {
					fmt.Fprintf(a.stdout, "Embedding now: %s (pid %d)\n", embedLine(r.EmbedProgress, time.Duration(r.ETASec*float64(time.Second))), r.PID)
				}
			} else {
				fmt.Fprintln(a.stdout, "Embedding model: none (BM25 only)")
			}
			if s.RerankModel != "" {
				fmt.Fprintf(a.stdout, "Reranker: %s\n", s.RerankModel)
			}
			for _, c := range s.Collections {
				fmt.Fprintf(a.stdout, "  %-16s %6d docs %7d chunks %7d embedded  %s\n", c.Name, c.DocumentCount, c.ChunkCount, c.EmbeddedCount, c.Path)
				if sk := skipSummary(c.Skipped); sk != "" {
					fmt.Fprintf(a.stdout, "  %-16s not converted: %s\n", "", sk)
				}
			}
			for _, is := range s.Issues {
				fmt.Fprintf(a.stdout, "! %s\n", is)
			}
			return nil
		},
	}
}

func newCleanupCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "cleanup",
		Short: "Drop data of removed collections, optimise the index, vacuum",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			n, err := e.Cleanup(cmd.Context())
			if err != nil {
				return err
			}
			x, err := a.packageIndex(cmd.Context())
			if err != nil {
				return err
			}
			v, err := x.Cleanup(cmd.Context())
			if err != nil {
				return err
			}
			return a.done(map[string]int{"removedDocuments": n, "removedPackageVersions": v},
				"Removed %d orphaned documents and %d package versions no project uses; index optimised", n, v)
		},
	}
}

func newTagsCmd(a *app) *cobra.Command {
	var prefix, collection string
	cmd := &cobra.Command{
		Use:   "tags",
		Short: "List tags with document counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			tags, err := e.Notes().Tags(cmd.Context(), retrieval.TagsRequest{Collection: collection, Prefix: prefix})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{"tags": tags})
			}
			for _, t := range tags {
				fmt.Fprintf(a.stdout, "%5d  %s\n", t.Count, t.Tag)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&prefix, "prefix", "", "only tags starting with this")
	cmd.Flags().StringVarP(&collection, "collection", "c", "", "only this collection")
	return cmd
}

func newTagCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "tag", Short: "Add or remove a user tag on a document"}
	for _, add := range []bool{true, false} {
		use, short := "add REF TAG", "Add TAG to a document"
		if !add {
			use, short = "rm REF TAG", "Remove TAG from a document"
		}
		cmd.AddCommand(&cobra.Command{
			Use:   use,
			Short: short,
			Args:  cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				e, err := a.engine(cmd.Context())
				if err != nil {
					return err
				}
				res, err := e.Notes().Tag(cmd.Context(), retrieval.TagRequest{Ref: args[0], Tag: args[1], Remove: !add})
				if err != nil {
					return err
				}
				return a.done(res, "%s: %s", res.URI, strings.Join(res.Tags, ", "))
			},
		})
	}
	return cmd
}

func newChangesCmd(a *app) *cobra.Command {
	var since int64
	var collection string
	var diff bool
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "List documents added, modified or removed since a sync generation",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			ch, err := e.Notes().Changes(cmd.Context(), retrieval.ChangesRequest{Collection: collection, Since: since, Diff: diff})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(ch)
			}
			for _, c := range ch.Added {
				fmt.Fprintf(a.stdout, "A %s %s\n", c.DocID, c.URI)
				printChangeDiff(a, c)
			}
			for _, c := range ch.Modified {
				fmt.Fprintf(a.stdout, "M %s %s\n", c.DocID, c.URI)
				printChangeDiff(a, c)
			}
			for _, c := range ch.Removed {
				fmt.Fprintf(a.stdout, "D %s %s\n", c.DocID, c.URI)
			}
			fmt.Fprintf(a.stdout, "generation %d\n", ch.Generation)
			return nil
		},
	}
	cmd.Flags().Int64Var(&since, "since", 0, "generation to compare with")
	cmd.Flags().BoolVar(&diff, "diff", false, "add each added or modified document's diff since that generation")
	cmd.Flags().StringVarP(&collection, "collection", "c", "", "only this collection")
	return cmd
}

// printChangeDiff prints a change's diff, or why it has none.
func printChangeDiff(a *app, c retrieval.Change) {
	if c.Diff != "" {
		fmt.Fprint(a.stdout, c.Diff)
	}
	if c.DiffNote != "" {
		fmt.Fprintf(a.stdout, "# %s\n", c.DiffNote)
	}
}

// replicaLine says where the reads go and how far behind that replica is.
func replicaLine(r *store.ReplicaInfo) string {
	switch {
	case r.Problem != "":
		return r.Server + ": " + r.Problem
	case !r.Standby:
		return r.Server + " (promoted: a primary now, not following the store)"
	case r.LagBytes == 0:
		return r.Server + " (caught up)"
	case r.LagSeconds > 0:
		return fmt.Sprintf("%s (%d bytes of WAL behind, last replayed change %s old)", r.Server, r.LagBytes, r.Lag().Round(time.Millisecond))
	}
	return fmt.Sprintf("%s (%d bytes of WAL behind)", r.Server, r.LagBytes)
}

// tlsWords says whether a connection is encrypted.
func tlsWords(tls string) string {
	if tls == "" {
		return "not encrypted (sslmode in the URL asks for TLS)"
	}
	return "TLS " + tls
}
