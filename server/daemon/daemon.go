// Package daemon is `gno daemon`: one long-running process per index that
// keeps the index in sync with its folders (retrieval/watch), embeds the
// backlog, keeps the models and the vector graph warm, serves MCP and the
// web app over HTTP, and answers the CLI's fast path over a local socket
// (daemon/wire) by running the CLI's own command code.
//
// It owns the daemon's lock, info and endpoint files in the index
// directory, its socket, and its background writes, each through a
// retrieval.Writer, so a kill -9 at any moment leaves the index as a
// killed `gno update` would: consistent, the next start recovers. It must
// not import the MCP server or the web app (the caller hands it an HTTP
// function) nor print a command's output (the caller's CLI function does).
package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/watch"
	"github.com/gnosearch/gno/server/daemon/wire"
)

// Options configure Run.
type Options struct {
	// Engine is the open index; Run does not close it.
	Engine *retrieval.Engine
	// Version is gno's version, reported by status.
	Version string
	// Debounce is the watcher's quiet time (default 500 ms).
	Debounce time.Duration
	// NoEmbed leaves the embedding backlog alone.
	NoEmbed bool
	// Hooks are extra paths to watch beside the collections, the config
	// file and the model cache (which the daemon follows itself): the
	// place for a project's lockfiles whose package docs need re-indexing.
	Hooks []watch.Hook
	// HTTP serves MCP and the web app until ctx ends, calling ready with
	// the bound address once it listens; nil serves no HTTP.
	HTTP func(ctx context.Context, ready func(addr string)) error
	// Scheme is HTTP's scheme ("http", or "https" when sharing).
	Scheme string
	// CLI runs one command line of a fast-path client.
	CLI CLIFunc
	// Log receives the daemon's log; LogFile names where it goes (for
	// status).
	Log     *slog.Logger
	LogFile string
	// Ready is called once the daemon serves, with what it published.
	Ready func(Info)
}

// CLIFunc runs a command line (req.Args) as the client would have run it
// in-process, writing to out, and returns the exit code. Before writing it
// may still call out.Refuse, and the client runs the command itself.
type CLIFunc func(ctx context.Context, req *wire.Request, out *Output) int

// daemon is one running daemon.
type daemon struct {
	// afterFlush, when set (tests), runs in an update between the
	// watcher's flush and the update joining the worker's queue.
	afterFlush func()

	opt     Options
	e       *retrieval.Engine
	log     *slog.Logger
	build   string
	envSig  string
	started time.Time
	info    Info
	cancel  context.CancelFunc

	watcher *watch.Watcher
	work    *worker

	stopping atomic.Bool
	inflight atomic.Int32
	served   atomic.Int64

	cfgMu    sync.Mutex
	cfgStamp os.FileInfo
}

// maxInflight bounds the command lines run at once; a client past it
// runs its command itself (the daemon is busy).
var maxInflight = int32(max(4, 2*runtime.NumCPU()))

// Run runs the daemon until ctx ends or a client asks it to stop.
func Run(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	e := o.Engine
	dir := e.Paths.IndexDir
	l, stale, err := acquire(dir)
	if err != nil {
		return err
	}
	defer l.release()
	log := o.Log
	if stale != nil {
		log.Warn("a previous daemon did not stop cleanly (killed?); taking over", "pid", stale.PID)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d := &daemon{opt: o, e: e, log: log, build: wire.Build(), envSig: wire.EnvSig(os.Environ()), started: time.Now(), cancel: cancel}
	d.stampConfig()

	sockDir := wire.SocketDir()
	if err := makeSocketDir(sockDir); err != nil {
		return fmt.Errorf("socket folder: %w", err)
	}
	sock := filepath.Join(sockDir, wire.SocketName(dir))
	ln, err := listenSocket(sock)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", sock, err)
	}
	defer ln.Close()

	httpDone := make(chan error, 1)
	var addr string
	if o.HTTP != nil {
		addrc := make(chan string, 1)
		go func() { httpDone <- o.HTTP(ctx, func(a string) { addrc <- a }) }()
		select {
		case addr = <-addrc:
		case err := <-httpDone:
			if err == nil {
				err = fmt.Errorf("the HTTP server stopped at start")
			}
			return err
		}
	}

	d.work = newWorker(d)
	d.watcher, err = watch.New(watch.Options{
		Collections: func() []config.Collection { return e.Config().Collections },
		Sync:        d.work.enqueue,
		Debounce:    o.Debounce,
		Hooks:       append(d.ownHooks(), o.Hooks...),
		Log:         log,
	})
	if err != nil {
		cancel()
		return fmt.Errorf("watch: %w", err)
	}
	d.info = Info{PID: os.Getpid(), Version: o.Version, Build: d.build, Index: e.Paths.Index, IndexDir: dir,
		ConfigFile: e.Paths.ConfigFile, Socket: sock, HTTP: addr, Scheme: o.Scheme, LogFile: o.LogFile, Started: d.started}
	if err := l.publish(d.info); err != nil {
		cancel()
		return fmt.Errorf("write %s: %w", wire.InfoFile, err)
	}
	watched, failed := d.watcher.Folders()
	log.Info("daemon ready", "pid", d.info.PID, "index", d.info.Index, "http", addr, "socket", sock, "folders", watched, "unwatchable", failed)
	if o.Ready != nil {
		o.Ready(d.info)
	}

	var bg, reqs sync.WaitGroup
	bg.Go(func() { d.watcher.Run(ctx) })
	bg.Go(func() { d.work.run(ctx) })
	go d.accept(ctx, ln, &reqs)

	select {
	case <-ctx.Done():
	case err := <-httpDone:
		if err != nil {
			log.Error("HTTP server failed; stopping", "err", err)
		}
		httpDone <- nil
	}
	d.stopping.Store(true)
	cancel()
	log.Info("daemon stopping")
	// New clients go in-process from here; running commands get a few
	// seconds (they see ctx cancelled); a write in progress is aborted
	// (its open transaction rolls back, finished batches stay).
	l.removeFiles()
	ln.Close()
	waitFor(&reqs, 5*time.Second)
	bg.Wait()
	if o.HTTP != nil {
		select {
		case <-httpDone:
		case <-time.After(6 * time.Second):
		}
	}
	log.Info("daemon stopped")
	return nil
}

// waitFor waits for wg at most d.
func waitFor(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// ownHooks follow the config file (a collection added from the CLI) and
// the model cache (a model pulled): both reload the config and forget the
// opened models, then the daemon warms up again.
func (d *daemon) ownHooks() []watch.Hook {
	p := d.e.Paths
	return []watch.Hook{
		{Name: "config", Paths: func() []string { return []string{p.ConfigFile} }, Changed: d.configChanged},
		{Name: "models", Paths: func() []string { return []string{p.ModelsDir} }, Changed: d.configChanged},
	}
}

func (d *daemon) configChanged(ctx context.Context, _ []string) {
	if err := d.reloadConfig(ctx, time.Minute); err != nil {
		d.log.Warn("config not reloaded", "err", err)
		return
	}
	d.watcher.Rescan()
	d.work.rewarm()
}

// stampConfig remembers the config file's state as loaded.
func (d *daemon) stampConfig() {
	fi, _ := os.Stat(d.e.Paths.ConfigFile)
	d.cfgMu.Lock()
	d.cfgStamp = fi
	d.cfgMu.Unlock()
}

// configFresh reports whether the loaded config is the file's.
func (d *daemon) configFresh() bool {
	fi, err := os.Stat(d.e.Paths.ConfigFile)
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	old := d.cfgStamp
	if err != nil || old == nil {
		return err != nil && old == nil
	}
	return os.SameFile(fi, old) && fi.Size() == old.Size() && fi.ModTime().Equal(old.ModTime())
}

// reloadConfig re-reads the config under the writer lock (waiting up to
// wait for it).
func (d *daemon) reloadConfig(ctx context.Context, wait time.Duration) error {
	w, err := d.e.Writer(ctx, wait)
	if err != nil {
		return err
	}
	defer w.Close()
	fi, _ := os.Stat(d.e.Paths.ConfigFile)
	if err := w.ReloadConfig(); err != nil {
		return err
	}
	d.cfgMu.Lock()
	d.cfgStamp = fi
	d.cfgMu.Unlock()
	d.log.Info("config reloaded", "file", d.e.Paths.ConfigFile)
	return nil
}
