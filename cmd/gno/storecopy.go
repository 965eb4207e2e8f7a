package main

import (
	"fmt"
	"path/filepath"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newStoreCmd) }

// newStoreCmd is `gno store`: the index's store as a whole.
func newStoreCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Move an index between its SQLite file and a PostgreSQL server",
	}
	cmd.AddCommand(newStoreCopyCmd(a))
	return cmd
}

func newStoreCopyCmd(a *app) *cobra.Command {
	var from, to string
	c := &cobra.Command{
		Use:   "copy --from SRC --to DST",
		Short: "Copy an index with its vectors into another store (resumable, checked)",
		Long: `Copies an index, with its vectors, from one store to another. SRC and DST
are each "sqlite" (this index's own SQLite file), the path of an index.sqlite,
or a postgres:// URL (credentials from the URL, PGPASSFILE or the PG*
environment; never printed).

The destination must be empty, or an earlier copy of the same source that
was interrupted: running the command again resumes it (documents already
copied with the same content and vectors already stored are not written
again). At the end the copy is checked: equal document, chunk and vector
counts, and the same top results for a sample of searches on both sides.

Not copied (no store reads them yet): kept earlier texts, the change feed's
removals, the reconcile cache, package docs, which tags a user added.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return gnoerr.New(gnoerr.InvalidInput, "name both stores: --from SRC --to DST (each sqlite, an index.sqlite path or a postgres:// URL)")
			}
			src, err := a.storeLocation(from)
			if err != nil {
				return err
			}
			dst, err := a.storeLocation(to)
			if err != nil {
				return err
			}
			var progress func(retrieval.CopyProgress)
			if a.stderrTTY() {
				progress = func(p retrieval.CopyProgress) {
					fmt.Fprintf(a.stderr, "\r\033[Kgno: copying %s %d/%d", p.Stage, p.Done, p.Total)
				}
			}
			res, err := retrieval.CopyStore(cmd.Context(), src, dst, progress)
			if progress != nil {
				fmt.Fprint(a.stderr, "\r\033[K")
			}
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			fmt.Fprintf(a.stdout, "Copied %s to %s: %d documents (%d written, %d already there), %d chunks, %d vectors", res.From, res.To, res.Documents, res.Written, res.Resumed, res.Chunks, res.Vectors)
			if res.Model != "" {
				fmt.Fprintf(a.stdout, " of %s", res.Model)
			}
			fmt.Fprintf(a.stdout, ", %d skipped files, generation %d, in %.1fs.\n", res.Skipped, res.Generation, res.Seconds)
			fmt.Fprintf(a.stdout, "Checked: counts equal, %d searches give the same results on both sides.\n", res.Searches)
			return nil
		},
	}
	c.Flags().StringVar(&from, "from", "", "the store to copy: sqlite, an index.sqlite path, or a postgres:// URL")
	c.Flags().StringVar(&to, "to", "", "the store to copy into (empty, or an interrupted copy of --from)")
	return c
}

// storeLocation resolves a --from/--to: "sqlite" is this index's own
// SQLite file, a URL stays as it is, a path is taken from the caller's
// folder.
func (a *app) storeLocation(s string) (string, error) {
	switch {
	case s == "sqlite":
		p, err := config.Resolve(a.index, a.configPath)
		if err != nil {
			return "", gnoerr.Wrap(gnoerr.InvalidInput, err, "index")
		}
		return p.DBFile, nil
	case store.IsURL(s):
		return s, nil
	case filepath.IsAbs(s) || a.cwd == "":
		return s, nil
	default:
		return filepath.Join(a.cwd, s), nil
	}
}
