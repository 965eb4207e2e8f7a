package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/watch"
	"github.com/gnosearch/gno/server/daemon"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

type updateFlags struct {
	collection string
	gitPull    bool
	noCmd      bool
	rebuild    bool
	wait       time.Duration
	only       []string // the watcher's changed files (no flag)
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
	opt := retrieval.UpdateOptions{Collection: f.collection, GitPull: f.gitPull, RunUpdateCmd: !f.noCmd, LockWait: f.wait, Rebuild: f.rebuild, Only: f.only}
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
	if f.rebuild && a.daemonUpdate == nil && daemon.Held(e.Paths.IndexDir) {
		// The daemon keeps the database open: it would go on reading
		// and writing the file moved aside.
		return nil, gnoerr.New(gnoerr.Locked, "a daemon is running on this index and keeps its database open; stop it with `gno daemon stop`, rebuild, then start it again")
	}
	var res *retrieval.UpdateResult
	if a.daemonUpdate != nil && !f.rebuild && !f.gitPull && f.only == nil {
		// Run by a daemon: its watcher knows what changed.
		res, err = a.daemonUpdate(ctx, opt)
	} else {
		res, err = e.Update(ctx, opt)
		if err == nil {
			if bar != nil {
				bar.Finish()
				bar = nil
			}
			a.buildPostings(ctx, e)
		}
	}
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
		Long: `Keep collections in sync while running: file-system events, debounced,
re-index the files that changed (a new or removed folder, its whole
collection). A config change (a collection added) is followed.

gno daemon does this too, and also embeds, keeps the models warm and
answers the CLI, MCP and the web app.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			e, err := a.engine(ctx)
			if err != nil {
				return err
			}
			first := true
			var w *watch.Watcher
			w, err = watch.New(watch.Options{
				Collections: func() []config.Collection { return e.Config().Collections },
				Debounce:    debounce,
				Sync: func(ctx context.Context, changes []watch.Change) {
					if first {
						// Everything, as gno update would (update commands too).
						first = false
						if _, err := a.runUpdate(ctx, updateFlags{wait: time.Minute}); err != nil {
							fmt.Fprintf(a.stderr, "gno: %v\n", err)
						}
						n, failed := w.Folders()
						fmt.Fprintf(a.stderr, "watching %d folders; Ctrl-C to stop\n", n)
						if failed > 0 {
							fmt.Fprintf(a.stderr, "gno: %d folders cannot be watched (the OS limit on watches?); they sync only when their collection syncs whole\n", failed)
						}
						return
					}
					for _, c := range changes {
						if _, err := a.runUpdate(ctx, updateFlags{collection: c.Collection, wait: time.Minute, noCmd: true, only: c.Paths}); err != nil {
							fmt.Fprintf(a.stderr, "gno: %v\n", err)
						}
					}
				},
				Hooks: []watch.Hook{{
					Name:  "config",
					Paths: func() []string { return []string{e.Paths.ConfigFile} },
					Changed: func(ctx context.Context, _ []string) {
						if err := reloadConfig(ctx, e); err != nil {
							fmt.Fprintf(a.stderr, "gno: %v\n", err)
							return
						}
						w.Rescan()
					},
				}},
			})
			if err != nil {
				return fmt.Errorf("watch: %w", err)
			}
			// Dependencies' docs: a project whose lockfile changed is re-indexed.
			go a.watchPackages(ctx, func(f string, args ...any) { fmt.Fprintf(a.stderr, f+"\n", args...) })
			return w.Run(ctx)
		},
	}
	cmd.Flags().DurationVar(&debounce, "debounce", 500*time.Millisecond, "quiet time before a sync")
	return cmd
}

// reloadConfig re-reads the config another process changed, under the
// writer lock (waiting up to a minute for it).
func reloadConfig(ctx context.Context, e *retrieval.Engine) error {
	w, err := e.Writer(ctx, time.Minute)
	if err != nil {
		return err
	}
	defer w.Close()
	return w.ReloadConfig()
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

// buildPostings builds the word index's search postings after an update
// that left them missing (the first update of an index; a daemon keeps
// them current in its idle time), with a progress bar on a terminal and
// quietly otherwise. The update has succeeded: a failure here is a
// warning (searches run on FTS5 as before).
func (a *app) buildPostings(ctx context.Context, e *retrieval.Engine) {
	// Asked first: an update that left the postings in place starts no
	// build (a build first merges the word index, which costs even when
	// nothing is then installed).
	if need, err := retrieval.PostingsNeeded(ctx, e, false); err == nil && !need {
		return
	}
	var bar *progressbar.ProgressBar
	var progress func(done, total int)
	if a.stderrTTY() {
		progress = func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(a.stderr),
					progressbar.OptionSetDescription("building search postings"), progressbar.OptionClearOnFinish(),
					progressbar.OptionThrottle(100*time.Millisecond))
			}
			bar.Set(done)
		}
	}
	_, err := retrieval.BuildPostings(ctx, e, false, progress)
	if bar != nil {
		bar.Finish()
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(a.stderr, "gno: search postings not built: %s\n", gnoerr.Public(err))
	}
}
