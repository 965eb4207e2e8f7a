package reliability

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The daemon in the crash harness: `gno daemon` is SIGKILLed while it
// runs its first sync and embeds the backlog, and while it syncs a change
// its watcher saw. The index must be whole after every kill, the daemon's
// stale lock and files taken over by the next start, and that start must
// converge by itself.

// daemonDebounce is the watcher's quiet time in the harness.
const daemonDebounce = "30ms"

// startDaemon starts `gno daemon` in the foreground (no --detach: the
// harness kills the process it started).
func startDaemon(e *env) *exec.Cmd {
	return e.start("daemon", "--addr", "127.0.0.1:0", "--debounce", daemonDebounce)
}

// daemonReady waits until the daemon started serves (its endpoint file).
func daemonReady(t testing.TB, e *env, cmd *exec.Cmd) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(e.indexDir(), "daemon.endpoint")); err == nil {
			return
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("daemon not ready: %s", cmd.Stderr)
}

// killDaemon kills the daemon twice: at a random point of its start
// (first sync, embedding), and while it syncs a change of the notes.
func killDaemon(t *testing.T, e *env, rng *rand.Rand, round int, embed bool, k *killer, st *crashStats) {
	t.Helper()
	est := k.delay(rng, "update")
	if embed {
		est += k.delay(rng, "embed")
	}
	kill := func(kind string, cmd *exec.Cmd, d time.Duration) {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			t.Fatalf("the daemon exited by itself (%v): %s", err, cmd.Stderr)
		case <-time.After(d):
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		st.add(kind, true)
		checkWhole(t, e)
	}
	kill("daemon-start", startDaemon(e), est)

	cmd := startDaemon(e)
	daemonReady(t, e, cmd)
	mutate(t, rng, e.notes, 1000+round)
	kill("daemon-sync", cmd, time.Duration(rng.Int64N(int64(30*time.Millisecond+k.delay(rng, "update")))))
}

// daemonConverges starts the daemon over the stale files of a killed one,
// waits until it has synced and embedded everything, and stops it: the
// stop must remove its files.
func daemonConverges(t *testing.T, e *env, embed bool) {
	t.Helper()
	cmd := e.start("-v", "daemon", "--addr", "127.0.0.1:0", "--debounce", daemonDebounce)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		r := e.gno("daemon", "status", "--json")
		var s struct {
			State    string
			Backlog  int    `json:"embeddingBacklog"`
			EmbedOff string `json:"embedOff"`
			Queued   []string
		}
		if r.code == 0 && json.Unmarshal([]byte(r.stdout), &s) == nil && s.State == "idle" && len(s.Queued) == 0 && (!embed || s.Backlog == 0) {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Signal(syscall.SIGQUIT)
			<-done
			t.Fatalf("the daemon did not converge: %s\ndaemon's log:\n%s", r, cmd.Stderr)
		}
		select {
		case err := <-done:
			t.Fatalf("the daemon exited (%v): %s", err, cmd.Stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
	e.mustGno("daemon", "stop")
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the daemon did not exit after stop")
	}
	for _, f := range []string{"daemon.endpoint", "daemon.json"} {
		if _, err := os.Stat(filepath.Join(e.indexDir(), f)); !os.IsNotExist(err) {
			t.Errorf("%s left after a clean stop (%v)", f, err)
		}
	}
}
