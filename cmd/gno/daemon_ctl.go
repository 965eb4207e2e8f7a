package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server/daemon"
	"github.com/gnosearch/gno/server/daemon/wire"
	"github.com/spf13/cobra"
)

// The daemon's control commands: --detach, status, stop, log.

// indexDir is the data folder of the index a's flags name.
func (a *app) indexDir() (string, error) {
	p, err := config.Resolve(a.index, a.configPath)
	if err != nil {
		return "", gnoerr.Wrap(gnoerr.InvalidInput, err, "index")
	}
	return p.IndexDir, nil
}

// maxLogBytes is where --detach starts a new log (the old one becomes
// daemon.log.1).
const maxLogBytes = 8 << 20

// detachDaemon starts `gno daemon` again in a new session, without
// --detach, logging to the index folder, and waits until it serves (or
// says why it cannot).
func detachDaemon(ctx context.Context, a *app) error {
	dir, err := a.indexDir()
	if err != nil {
		return err
	}
	if daemon.Held(dir) {
		return alreadyRunning(dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(dir, wire.LogFile)
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > maxLogBytes {
		os.Rename(logPath, logPath+".1")
	}
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("daemon log: %w", err)
	}
	from, _ := lf.Seek(0, io.SeekEnd)
	exe, err := os.Executable()
	if err != nil {
		lf.Close()
		return err
	}
	var args []string
	for _, arg := range os.Args[1:] {
		if arg != "--detach" && arg != "--detach=true" {
			args = append(args, arg)
		}
	}
	cmd := exec.Command(exe, append(args, "--log-file", logPath)...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = detachedProcess()
	err = cmd.Start()
	lf.Close()
	if err != nil {
		return fmt.Errorf("start the daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case err := <-exited:
			tail := logSince(logPath, from)
			return fmt.Errorf("the daemon did not start (%v)%s", err, tail)
		case <-deadline:
			return fmt.Errorf("the daemon (pid %d) is not ready after 2 minutes; see gno daemon log", cmd.Process.Pid)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			in, err := daemon.ReadInfo(dir)
			if err != nil || in.PID != cmd.Process.Pid {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, wire.EndpointFile)); err != nil {
				continue
			}
			if a.json {
				return a.printJSON(in)
			}
			fmt.Fprintf(a.stdout, "gno daemon: started (pid %d), serving %s (MCP at %s/mcp); log %s\n",
				in.PID, in.URL(), strings.TrimSuffix(in.URL(), "/"), logPath)
			return nil
		}
	}
}

// logSince returns the log written from offset on, indented, for an
// error message.
func logSince(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	f.Seek(from, io.SeekStart)
	b, _ := io.ReadAll(io.LimitReader(f, 8<<10))
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	return ":\n  " + strings.ReplaceAll(string(b), "\n", "\n  ")
}

func alreadyRunning(dir string) error {
	msg := "a gno daemon already serves this index"
	if in, err := daemon.ReadInfo(dir); err == nil {
		msg += fmt.Sprintf(" (pid %d, %s)", in.PID, in.URL())
	}
	return gnoerr.Wrap(gnoerr.Locked, daemon.ErrRunning, "%s; stop it with `gno daemon stop`", msg)
}

// notRunning explains an index without a live daemon, naming a stale one.
func notRunning(dir string) error {
	if in, err := daemon.ReadInfo(dir); err == nil && !daemon.Held(dir) {
		return gnoerr.Wrap(gnoerr.NotFound, daemon.ErrNotRunning, "gno daemon status (pid %d stopped without cleaning up, killed?; the next start takes over)", in.PID)
	}
	return gnoerr.Wrap(gnoerr.NotFound, daemon.ErrNotRunning, "gno daemon status")
}

func newDaemonStatusCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show whether a daemon serves the index: pid, address, socket, uptime, queue and embedding state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := a.indexDir()
			if err != nil {
				return err
			}
			s, err := daemon.Ask(dir, wire.KindStatus)
			if err != nil {
				if daemon.Held(dir) {
					return fmt.Errorf("a gno daemon holds the index but does not answer on its socket: %w", err)
				}
				return notRunning(dir)
			}
			if a.json {
				return a.printJSON(s)
			}
			w := a.stdout
			up := time.Duration(s.UptimeSeconds * float64(time.Second)).Round(time.Second)
			fmt.Fprintf(w, "gno daemon: running (pid %d, up %s, gno %s)\n", s.PID, up, s.Version)
			fmt.Fprintf(w, "index:     %s (%s)\n", s.Index, s.IndexDir)
			if s.HTTP != "" {
				fmt.Fprintf(w, "web, MCP:  %s  %s/mcp\n", s.URL(), strings.TrimSuffix(s.URL(), "/"))
			}
			fmt.Fprintf(w, "socket:    %s\n", s.Socket)
			if s.LogFile != "" {
				fmt.Fprintf(w, "log:       %s\n", s.LogFile)
			}
			fmt.Fprintf(w, "watching:  %d folders", s.Watched)
			if s.Unwatchable > 0 {
				fmt.Fprintf(w, " (%d could not be watched)", s.Unwatchable)
			}
			fmt.Fprintln(w)
			state := s.State
			if len(s.Queued) > 0 {
				state += fmt.Sprintf("; queued: %s", strings.Join(s.Queued, ", "))
			}
			fmt.Fprintf(w, "doing:     %s\n", state)
			fmt.Fprintf(w, "documents: %d, embedding backlog %d chunks\n", s.Documents, s.Backlog)
			if s.EmbedOff != "" {
				fmt.Fprintf(w, "embedding: off (%s)\n", s.EmbedOff)
			}
			if !s.LastSync.IsZero() {
				fmt.Fprintf(w, "last sync: %s ago (%s)\n", time.Since(s.LastSync).Round(time.Second), s.LastWhat)
			}
			if s.LastError != "" {
				fmt.Fprintf(w, "last error: %s\n", s.LastError)
			}
			fmt.Fprintf(w, "answered:  %d CLI commands (%d running)\n", s.Requests, s.InFlight)
			return nil
		},
	}
}

func newDaemonStopCmd(a *app) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the daemon: a write in progress is finished or rolled back, the socket and pid files removed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := a.indexDir()
			if err != nil {
				return err
			}
			in, _ := daemon.ReadInfo(dir)
			if !daemon.Held(dir) {
				fmt.Fprintln(a.stdout, "gno daemon: not running")
				return nil
			}
			if _, err := daemon.Ask(dir, wire.KindStop); err != nil {
				// Not answering: ask the OS.
				if in == nil || in.PID <= 0 {
					return fmt.Errorf("the daemon does not answer (%v) and its pid is unknown", err)
				}
				if err := terminate(in.PID); err != nil {
					return fmt.Errorf("the daemon (pid %d) does not answer and could not be signalled: %w", in.PID, err)
				}
			}
			deadline := time.Now().Add(timeout)
			for daemon.Held(dir) {
				if time.Now().After(deadline) {
					return fmt.Errorf("the daemon is still running after %s; kill it if you must (kill -9 leaves the index consistent)", timeout)
				}
				select {
				case <-cmd.Context().Done():
					return cmd.Context().Err()
				case <-time.After(25 * time.Millisecond):
				}
			}
			if in != nil {
				fmt.Fprintf(a.stdout, "gno daemon: stopped (pid %d)\n", in.PID)
			} else {
				fmt.Fprintln(a.stdout, "gno daemon: stopped")
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait for it")
	return cmd
}

func newDaemonLogCmd(a *app) *cobra.Command {
	var follow bool
	var lines int
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Print the log of the daemon started with --detach (-f: follow it)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := a.indexDir()
			if err != nil {
				return err
			}
			path := filepath.Join(dir, wire.LogFile)
			if in, err := daemon.ReadInfo(dir); err == nil && in.LogFile != "" {
				path = in.LogFile
			}
			b, err := os.ReadFile(path)
			if errors.Is(err, os.ErrNotExist) {
				return gnoerr.New(gnoerr.NotFound, "no daemon log at %s (gno daemon --detach writes it)", path)
			}
			if err != nil {
				return err
			}
			a.stdout.Write(lastLines(b, lines))
			if !follow {
				return nil
			}
			return followFile(cmd.Context(), path, int64(len(b)), a.stdout)
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing what is appended")
	cmd.Flags().IntVarP(&lines, "lines", "n", 50, "print the last `N` lines (0: all)")
	return cmd
}

// lastLines is the end of b holding n lines (all of it for n <= 0).
func lastLines(b []byte, n int) []byte {
	if n <= 0 {
		return b
	}
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if b[i] == '\n' {
			if n--; n == 0 {
				return b[i+1:]
			}
		}
	}
	return b
}

// followFile prints what is appended to path after offset until ctx
// ends; a file that shrank (a new log) is read from its start.
func followFile(ctx context.Context, path string, offset int64, w io.Writer) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		if fi, err := f.Stat(); err == nil && fi.Size() < offset {
			offset = 0
		}
		f.Seek(offset, io.SeekStart)
		n, _ := io.Copy(w, f)
		offset += n
		f.Close()
	}
}
