package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/spf13/cobra"
)

// The reconcile loop's commands: affected, diff, reconcile mark|clear.
func init() {
	extraCommands = append(extraCommands, newAffectedCmd, newDiffCmd, newReconcileCmd)
}

// sinceFlag returns the --since value when it was given.
func sinceFlag(cmd *cobra.Command, v int64) *int64 {
	if !cmd.Flags().Changed("since") {
		return nil
	}
	return &v
}

func newAffectedCmd(a *app) *cobra.Command {
	var req retrieval.AffectedRequest
	var since int64
	cmd := &cobra.Command{
		Use:   "affected",
		Short: "List the files changed (against a git base branch or since a generation) and the notes that govern or link to them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			req.Since = sinceFlag(cmd, since)
			res, err := e.Notes().Affected(cmd.Context(), req)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			for _, f := range res.Changed {
				fmt.Fprintf(a.stdout, "%s %s\n", strings.ToUpper(f.Status[:1]), f.URI)
			}
			if res.ChangedOmitted > 0 {
				fmt.Fprintf(a.stdout, "… and %d more (over the budget: --max-tokens, -c)\n", res.ChangedOmitted)
			}
			for _, n := range res.Notes {
				fmt.Fprintf(a.stdout, "\n%s %s  %s\n", n.DocID, n.URI, n.Title)
				for _, w := range n.Why {
					if w.Glob != "" {
						fmt.Fprintf(a.stdout, "  %s %s (%s)\n", w.By, w.File, w.Glob)
					} else {
						fmt.Fprintf(a.stdout, "  %s %s\n", w.By, w.File)
					}
				}
				if n.WhyOmitted > 0 {
					fmt.Fprintf(a.stdout, "  … and %d more\n", n.WhyOmitted)
				}
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(a.stderr, "warning: %s\n", w)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Base, "base", "", "git base branch: the work tree (committed or not) against where the current branch left it")
	f.Int64Var(&since, "since", 0, "generation: changes the index saw after it")
	f.StringVarP(&req.Collection, "collection", "c", "", "only files changed in this collection")
	f.IntVar(&req.MaxTokens, "max-tokens", 0, "token budget of the answer (notes' contents, the changed list)")
	return cmd
}

func newDiffCmd(a *app) *cobra.Command {
	var req retrieval.DiffRequest
	var since int64
	cmd := &cobra.Command{
		Use:   "diff REF",
		Short: "Show the diff of the files a governing note governs (or of a document itself), leaving out what was reconciled",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			req.Ref, req.Since = args[0], sinceFlag(cmd, since)
			res, err := e.Notes().Diff(cmd.Context(), req)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			fmt.Fprint(a.stdout, res.Diff)
			note := func(format string, args ...any) { fmt.Fprintf(a.stderr, "# "+format+"\n", args...) }
			for _, s := range res.Skipped {
				note("skipped (reconciled) %s", s)
			}
			for _, s := range res.Excluded {
				note("excluded %s", s)
			}
			for _, s := range res.Omitted {
				note("omitted (over the budget) %s", s)
			}
			for _, n := range res.NotDiffed {
				note("not diffed %s: %s", n.URI, n.Reason)
			}
			for _, w := range res.Whole {
				note("whole text of %s:", w.URI)
				fmt.Fprintln(a.stdout, w.Content)
			}
			for _, s := range res.SpecChanges {
				note("changed governing note %s:", s.URI)
				fmt.Fprintln(a.stdout, s.Content)
			}
			if res.System != nil && res.System.Content != "" {
				note("parent note %s:", res.System.URI)
				fmt.Fprintln(a.stdout, res.System.Content)
			}
			if res.Message != "" {
				note("%s", res.Message)
			}
			for _, w := range res.Warnings {
				note("warning: %s", w)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Base, "base", "", "git base branch: git diff --merge-base BASE (the work tree, committed or not)")
	f.Int64Var(&since, "since", 0, "generation: diff against the text each file had then (with neither --base nor --since: the governed files that differ from the cache, without diffs)")
	f.StringArrayVar(&req.Exclude, "exclude", nil, "leave out governed files matching this glob (repeatable)")
	f.BoolVar(&req.BypassCache, "bypass-cache", false, "diff every governed file, whatever the reconcile cache holds")
	f.StringVar(&req.Cursor, "cursor", "", "reconcile cache cursor (default \"default\")")
	f.IntVar(&req.MaxTokens, "max-tokens", 0, "token budget of the answer")
	return cmd
}

func newReconcileCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "reconcile", Short: "The reconcile cache: what an agent has already checked, per cursor"}
	var cursor string
	mark := &cobra.Command{
		Use:   "mark (REF|PATH)...",
		Short: "Record files as reconciled (their content hashes), so gno diff skips them until they change",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			files := make([]string, len(args))
			for i, f := range args {
				// A file on disk is named by its path; anything else is a REF.
				files[i] = f
				if _, err := os.Stat(f); err == nil {
					if abs, err := filepath.Abs(f); err == nil {
						files[i] = abs
					}
				}
			}
			res, err := e.Notes().MarkReconciled(cmd.Context(), retrieval.MarkRequest{Files: files, Cursor: cursor})
			if err != nil {
				return err
			}
			return a.done(res, "marked %d files reconciled (cursor %s), %d missing", res.Updated, res.Cursor, len(res.Missing))
		},
	}
	clear := &cobra.Command{
		Use:   "clear",
		Short: "Forget the reconcile cache of a cursor",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			res, err := e.Notes().ClearReconciled(cmd.Context(), retrieval.ClearRequest{Cursor: cursor})
			if err != nil {
				return err
			}
			return a.done(res, "cleared cursor %s (%d files)", res.Cursor, res.Files)
		},
	}
	for _, c := range []*cobra.Command{mark, clear} {
		c.Flags().StringVar(&cursor, "cursor", "", "reconcile cache cursor (default \"default\")")
		cmd.AddCommand(c)
	}
	return cmd
}
