package main

import (
	"fmt"

	"github.com/gnosearch/gno/pkgdocs"
	"github.com/spf13/cobra"
)

func newPackagesDiffCmd(a *app) *cobra.Command {
	var req pkgdocs.DiffRequest
	var project string
	cmd := &cobra.Command{
		Use:   "diff NAME",
		Short: "What changed in a dependency between two versions: API items removed, changed, newly deprecated and added, and its changelog entries",
		Long: `gno packages diff compares the version of NAME the project uses with another: by default the newest
other version stored; --to VERSION (an upgrade) or --from VERSION names it, both name the two.
A version not stored is found in the package caches or fetched through the ecosystem's client
(go, npm, pip, cargo), then stored like any version (gno cleanup drops it when no project uses it).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Package, req.Projects, req.Auto = args[0], []string{a.abs(project)}, true
			return a.printPackageRead(cmd, func(x *pkgdocs.Index) (texter, error) { return x.Diff(cmd.Context(), req) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&project, "project", ".", "project folder")
	f.StringVar(&req.Ecosystem, "ecosystem", "", "the package's ecosystem, when a name is in several")
	f.StringVar(&req.From, "from", "", "the older version (default: the installed one, or the other one stored)")
	f.StringVar(&req.To, "to", "", "the newer version, or latest (default: the installed one, or the other one stored)")
	f.BoolVar(&req.NoFetch, "no-fetch", false, "never run the ecosystem's client: only versions stored or in the package caches")
	f.BoolVar(&req.Offline, "offline", false, "run the client offline (its local cache only)")
	f.IntVar(&req.MaxTokens, "max-tokens", 0, "bound the answer to about this many tokens (0: all)")
	return cmd
}

// texter is an answer with a human form.
type texter interface{ Text() string }

// printPackageRead runs one read of the package index and prints its
// answer, as JSON with --json.
func (a *app) printPackageRead(cmd *cobra.Command, read func(*pkgdocs.Index) (texter, error)) error {
	x, err := a.packageIndex(cmd.Context())
	if err != nil {
		return err
	}
	ans, err := read(x)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(ans)
	}
	fmt.Fprintln(a.stdout, ans.Text())
	return nil
}
