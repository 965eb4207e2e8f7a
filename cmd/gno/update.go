package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

type updateFlags struct {
	collection string
	gitPull    bool
	noCmd      bool
	rebuild    bool
	wait       time.Duration
}

func (f *updateFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.collection, "collection", "c", "", "only this collection")
	cmd.Flags().BoolVar(&f.gitPull, "git-pull", false, "run `git pull --ff-only` in each collection first")
	cmd.Flags().BoolVar(&f.noCmd, "no-update-cmd", false, "do not run the collections' update commands")
	cmd.Flags().DurationVar(&f.wait, "wait", 60*time.Second, "how long to wait for another writer")
	cmd.Flags().BoolVar(&f.rebuild, "rebuild", false, "rebuild the index from the files of every collection (for a damaged index; keeps user tags, the old database stays as index.sqlite.damaged)")
}

// runUpdate syncs and prints the summary.
func (a *app) runUpdate(ctx context.Context, f updateFlags) (*retrieval.UpdateResult, error) {
	e, err := a.engine(ctx)
	if err != nil {
		return nil, err
	}
	if len(e.Config().Collections) == 0 {
		return nil, fmt.Errorf("no collections: add one with `gno collection add PATH`")
	}
	var bar *progressbar.ProgressBar
	opt := retrieval.UpdateOptions{Collection: f.collection, GitPull: f.gitPull, RunUpdateCmd: !f.noCmd, LockWait: f.wait, Rebuild: f.rebuild}
	if a.stderrTTY() {
		opt.Progress = func(p ingest.Progress) {
			if bar == nil || p.Done < 64 && p.Done != p.Total {
				bar = progressbar.NewOptions(p.Total, progressbar.OptionSetWriter(a.stderr),
					progressbar.OptionSetDescription("indexing "+p.Collection), progressbar.OptionShowCount(),
					progressbar.OptionShowIts(), progressbar.OptionSetItsString("files"), progressbar.OptionClearOnFinish(),
					progressbar.OptionThrottle(100*time.Millisecond))
			}
			bar.Set(p.Done)
		}
	}
	res, err := e.Update(ctx, opt)
	if bar != nil {
		bar.Finish()
	}
	if res == nil {
		return nil, err
	}
	if a.json {
		if perr := a.printJSON(res); perr != nil {
			return res, perr
		}
		return res, err
	}
	for _, c := range res.Collections {
		fmt.Fprintf(a.stdout, "%s: %d added, %d updated, %d unchanged, %d removed", c.Collection, c.Added, c.Updated, c.Unchanged, c.Removed)
		if len(c.Skipped) > 0 {
			var parts []string
			for r, n := range c.Skipped {
				parts = append(parts, fmt.Sprintf("%d %s", n, r))
			}
			sort.Strings(parts)
			fmt.Fprintf(a.stdout, ", skipped %s", strings.Join(parts, ", "))
		}
		if c.InvalidBytes > 0 {
			fmt.Fprintf(a.stdout, " (%d invalid UTF-8 bytes replaced)", c.InvalidBytes)
		}
		fmt.Fprintln(a.stdout)
		for _, m := range c.Errors {
			fmt.Fprintf(a.stderr, "  warning: %s\n", m)
		}
	}
	fmt.Fprintf(a.stdout, "generation %d, %.0f ms\n", res.Generation, res.DurationMS)
	return res, err
}

func newUpdateCmd(a *app) *cobra.Command {
	var f updateFlags
	cmd := &cobra.Command{
		Use:   "update",
		Short: "Scan collections and update the BM25 index (incremental by content hash)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := a.runUpdate(cmd.Context(), f)
			return err
		},
	}
	f.register(cmd)
	return cmd
}

func newIndexCmd(a *app) *cobra.Command {
	var f updateFlags
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Update, then embed: the whole indexing job",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := a.runUpdate(cmd.Context(), f); err != nil {
				return err
			}
			return a.runEmbed(cmd.Context(), embedFlags{collection: f.collection})
		},
	}
	f.register(cmd)
	return cmd
}

func newWatchCmd(a *app) *cobra.Command {
	var debounce time.Duration
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Keep collections in sync while running (file-system events, debounced)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			e, err := a.engine(ctx)
			if err != nil {
				return err
			}
			w, err := fsnotify.NewWatcher()
			if err != nil {
				return fmt.Errorf("watch: %w", err)
			}
			defer w.Close()
			owner := map[string]string{} // watched dir -> collection
			for _, c := range e.Config().Collections {
				filepath.WalkDir(c.Path, func(p string, d fs.DirEntry, err error) error {
					if err == nil && d.IsDir() {
						if strings.HasPrefix(d.Name(), ".") && p != c.Path || d.Name() == "node_modules" {
							return fs.SkipDir
						}
						if w.Add(p) == nil {
							owner[p] = c.Name
						}
					}
					return nil
				})
			}
			if _, err := a.runUpdate(ctx, updateFlags{wait: time.Minute}); err != nil {
				fmt.Fprintf(a.stderr, "gno: %v\n", err)
			}
			fmt.Fprintf(a.stderr, "watching %d folders; Ctrl-C to stop\n", len(owner))
			go a.watchPackages(ctx, func(f string, args ...any) { fmt.Fprintf(a.stderr, f+"\n", args...) })
			pending := map[string]bool{}
			timer := time.NewTimer(time.Hour)
			timer.Stop()
			for {
				select {
				case <-ctx.Done():
					return nil
				case ev, ok := <-w.Events:
					if !ok {
						return nil
					}
					dir := filepath.Dir(ev.Name)
					if ev.Has(fsnotify.Create) {
						if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
							if w.Add(ev.Name) == nil {
								owner[ev.Name] = owner[dir]
							}
						}
					}
					if col := owner[dir]; col != "" {
						pending[col] = true
						timer.Reset(debounce)
					}
				case err := <-w.Errors:
					fmt.Fprintf(a.stderr, "watch: %v\n", err)
				case <-timer.C:
					for col := range pending {
						if _, err := a.runUpdate(ctx, updateFlags{collection: col, wait: time.Minute, noCmd: true}); err != nil {
							fmt.Fprintf(a.stderr, "gno: %v\n", err)
						}
					}
					pending = map[string]bool{}
				}
			}
		},
	}
	cmd.Flags().DurationVar(&debounce, "debounce", 500*time.Millisecond, "quiet time before a sync")
	return cmd
}

type embedFlags struct {
	collection string
	force      bool
}

func newEmbedCmd(a *app) *cobra.Command {
	var f embedFlags
	cmd := &cobra.Command{
		Use:   "embed",
		Short: "Embed chunks that have no vector yet (resumable)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runEmbed(cmd.Context(), f)
		},
	}
	cmd.Flags().StringVarP(&f.collection, "collection", "c", "", "only this collection")
	cmd.Flags().BoolVarP(&f.force, "force", "f", false, "re-embed every chunk")
	return cmd
}
