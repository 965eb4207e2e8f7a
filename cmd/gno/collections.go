package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/convert"
	"github.com/spf13/cobra"
)

func newInitCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the config and index of an index name",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			if err := e.Init(cmd.Context()); err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]string{"config": e.Paths.ConfigFile, "index": e.Paths.DBFile})
			}
			fmt.Fprintf(a.stdout, "Config: %s\nIndex:  %s\n", e.Paths.ConfigFile, e.Paths.DBFile)
			return nil
		},
	}
}

func newCollectionCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "collection", Short: "Manage collections (folders that are indexed)"}
	var col config.Collection
	add := &cobra.Command{
		Use:   "add PATH",
		Short: "Add a folder as a collection",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			c := col
			c.Path = args[0]
			if c.Code && !cmd.Flags().Changed("pattern") {
				c.Pattern = convert.DefaultCodePattern()
			}
			var added config.Collection
			err = e.UpdateConfig(cmd.Context(), func(cfg *config.Config) error {
				p, err := cfg.AddCollection(c)
				if err == nil {
					added = *p
				}
				return err
			})
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(added)
			}
			fmt.Fprintf(a.stdout, "Added collection %s → %s (patterns %s)\nRun `gno update` to index it.\n", added.Name, added.Path, strings.Join(added.Patterns(), ", "))
			return nil
		},
	}
	add.Flags().StringVar(&col.Name, "name", "", "collection name (default: folder name)")
	add.Flags().StringVar(&col.Pattern, "pattern", convert.DefaultPattern, "include glob (default: every document format gno converts)")
	add.Flags().StringArrayVar(&col.Include, "include", nil, "additional include glob (repeatable)")
	add.Flags().StringArrayVar(&col.Exclude, "exclude", nil, "exclude glob (repeatable)")
	add.Flags().StringVar(&col.UpdateCmd, "update-cmd", "", "command run in the folder before each update")
	add.Flags().StringVar(&col.Lang, "lang", "", "language of the documents (BCP-47)")
	add.Flags().BoolVar(&col.Code, "code", false, "also index source code (each file fenced with its language); with the default pattern, adds the code extensions to it")

	list := &cobra.Command{
		Use:   "list",
		Short: "List collections",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			cols := e.Config().Collections
			if a.json {
				if cols == nil {
					cols = []config.Collection{}
				}
				return a.printJSON(cols)
			}
			if len(cols) == 0 {
				fmt.Fprintln(a.stdout, "No collections. Add one with `gno collection add PATH`.")
			}
			for _, c := range cols {
				fmt.Fprintf(a.stdout, "%s\t%s\t%s\n", c.Name, c.Path, strings.Join(c.Patterns(), ","))
			}
			return nil
		},
	}
	remove := &cobra.Command{
		Use:     "remove NAME",
		Aliases: []string{"rm"},
		Short:   "Remove a collection from the config (run `gno cleanup` to drop its index data)",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			if err := e.UpdateConfig(cmd.Context(), func(cfg *config.Config) error { return cfg.RemoveCollection(args[0]) }); err != nil {
				return err
			}
			return a.done(map[string]string{"removed": strings.ToLower(args[0])}, "Removed collection %s", strings.ToLower(args[0]))
		},
	}
	rename := &cobra.Command{
		Use:   "rename OLD NEW",
		Short: "Rename a collection (re-run `gno update` to re-index under the new name)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			if err := e.UpdateConfig(cmd.Context(), func(cfg *config.Config) error { return cfg.RenameCollection(args[0], args[1]) }); err != nil {
				return err
			}
			return a.done(map[string]string{"from": strings.ToLower(args[0]), "to": strings.ToLower(args[1])}, "Renamed %s to %s", strings.ToLower(args[0]), strings.ToLower(args[1]))
		},
	}
	cmd.AddCommand(add, list, remove, rename)
	return cmd
}

// done prints a JSON object or a one-line message.
func (a *app) done(v any, format string, args ...any) error {
	if a.json {
		return a.printJSON(v)
	}
	fmt.Fprintf(a.stdout, format+"\n", args...)
	return nil
}

func newContextCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "context", Short: "Attach human-written context to a collection or path, returned with results"}
	add := &cobra.Command{
		Use:   "add TARGET TEXT",
		Short: "Attach TEXT to TARGET (\"/\", a collection, or collection/path)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			if err := e.UpdateConfig(cmd.Context(), func(cfg *config.Config) error { return cfg.AddContext(args[0], args[1]) }); err != nil {
				return err
			}
			t := config.NormalizeTarget(args[0])
			return a.done(config.Context{Target: t, Text: args[1]}, "Context set on %s", t)
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List contexts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			ctxs := e.Config().Contexts
			if a.json {
				if ctxs == nil {
					ctxs = []config.Context{}
				}
				return a.printJSON(ctxs)
			}
			for _, c := range ctxs {
				fmt.Fprintf(a.stdout, "%s\t%s\n", c.Target, c.Text)
			}
			return nil
		},
	}
	rm := &cobra.Command{
		Use:     "rm TARGET",
		Aliases: []string{"remove"},
		Short:   "Remove the context on TARGET",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			if err := e.UpdateConfig(cmd.Context(), func(cfg *config.Config) error { return cfg.RemoveContext(args[0]) }); err != nil {
				return err
			}
			t := config.NormalizeTarget(args[0])
			return a.done(map[string]string{"removed": t}, "Removed context on %s", t)
		},
	}
	cmd.AddCommand(add, list, rm)
	return cmd
}

// skipSummary formats skip counts by reason ("2 encrypted, 1 no
// extractable text"), sorted.
func skipSummary(m map[string]int) string {
	parts := make([]string, 0, len(m))
	for r, n := range m {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
