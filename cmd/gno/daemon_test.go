//go:build !windows

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gnosearch/gno/models"
	"github.com/gnosearch/gno/pkgdocs/pkgtest"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/server/daemon/wire"
)

// dcli runs gno against one GNO_HOME, with the socket folder in a
// short temporary folder of its own.
type dcli struct {
	t      *testing.T
	home   string
	bin    string
	models string
	env    []string // extra KEY=VALUE
}

func newDCLI(t *testing.T) *dcli {
	t.Helper()
	run, err := os.MkdirTemp("", "gnorun")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	c := &dcli{t: t, home: t.TempDir(), bin: gnoBin}
	c.models = filepath.Join(c.home, "no-models")
	if dir, err := models.DefaultDir(); err == nil {
		if _, err := (models.Cache{Dir: dir}).Installed(models.DefaultEmbedder); err == nil {
			c.models = dir
		}
	}
	c.env = append(pgtest.Env(c.home, pgtest.Store(t)), "GNO_MODELS_DIR="+c.models, "XDG_RUNTIME_DIR="+run)
	return c
}

type result struct {
	stdout, stderr string
	code           int
}

func (c *dcli) run(args ...string) result {
	c.t.Helper()
	return c.runIn("", args...)
}

// runIn runs gno in folder dir ("" for this process's).
func (c *dcli) runIn(dir string, args ...string) result {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), c.env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	r := result{stdout: o.String(), stderr: e.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return r
}

func (c *dcli) ok(args ...string) string {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("gno %s: exit %d: %s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// status is the daemon's state (nil when none runs).
func (c *dcli) status() map[string]any {
	c.t.Helper()
	r := c.run("daemon", "status", "--json")
	if r.code != 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		c.t.Fatalf("status --json: %v: %s", err, r.stdout)
	}
	return m
}

func (c *dcli) served() int {
	s := c.status()
	if s == nil {
		c.t.Fatal("no daemon")
	}
	return int(s["cliRequests"].(float64))
}

// start starts a detached daemon and stops it at the end of the test.
func (c *dcli) start(flags ...string) int {
	c.t.Helper()
	out := c.ok(append([]string{"daemon", "--detach", "--addr", "127.0.0.1:0", "--debounce", "150ms"}, flags...)...)
	var pid int
	if _, err := fmt.Sscanf(out, "gno daemon: started (pid %d)", &pid); err != nil {
		c.t.Fatalf("detach said %q", out)
	}
	c.t.Cleanup(func() { c.run("daemon", "stop") })
	return pid
}

// waitIdle waits until the daemon has synced and embedded what it knows.
func (c *dcli) waitIdle() {
	c.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		s := c.status()
		if s != nil && s["state"] == "idle" && (s["embeddingBacklog"].(float64) == 0 || s["embedOff"] != nil) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("daemon not idle: %v", c.status())
}

// vault is a small set of notes with links, tags and front matter.
func vault(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"alpha.md":     "---\ntitle: Alpha\ntags: [animals, eggs]\n---\n# Alpha\n\nThe platypus lays eggs and hunts under water. See [[Beta]] and [[Missing note]].\n",
		"beta.md":      "# Beta\n\nWombats dig burrows with strong claws. Back to [[alpha]]; on to [[sub/gamma]].\n",
		"sub/gamma.md": "---\ntags: [animals]\n---\n# Gamma\n\nEchidnas also lay eggs; they eat ants.\n",
		"delta.txt":    "Plain text about sourdough bread and its starter.\n",
		"zh.md":        "# 数据库\n\n全文检索使用倒排索引。\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestDaemonSameOutput: every read command prints the same bytes on
// stdout and stderr, with the same exit code, whether the daemon answers
// it or the command runs in-process (--no-daemon); and the daemon did
// answer it.
func TestDaemonSameOutput(t *testing.T) {
	c := newDCLI(t)
	root := vault(t)
	c.ok("init")
	// Budgets are for a warm, quiet machine: on a loaded one (or an index
	// on a server, each one-shot command opening its connections) a cut
	// stage would make the two runs differ for want of time alone.
	cfg, err := os.OpenFile(filepath.Join(c.home, "config", "default.yml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.WriteString("search:\n  budgets: {fast: 60s, default: 60s, thorough: 60s}\n"); err != nil {
		t.Fatal(err)
	}
	cfg.Close()
	c.ok("collection", "add", root, "--name", "n", "--include", "**/*.txt")
	c.ok("update")
	c.start()
	c.waitIdle()
	lines := [][]string{
		{"search", "platypus"},
		{"search", "eggs", "--json"},
		{"search", "eggs", "--format", "md"},
		{"search", "eggs", "--format", "files"},
		{"search", "-n", "1", "burrows"},
		{"search", "lays eggs", "--full", "--line-numbers"},
		{"search", "eggs", "--tags-any", "eggs"},
		{"search", "zzzunfound"},
		{"search", "倒排索引"},
		{"search"},
		{"search", "eggs", "--format", "bogus"},
		{"search", "eggs", "-c", "nope"},
		{"--json", "search", "eggs", "--collection", "nope"},
		{"search", "--help"},
		{"vsearch", "mammal that lays eggs"},
		{"vsearch", "mammal that lays eggs", "--json"},
		{"query", "--fast", "digging animals"},
		{"query", "--fast", "digging animals", "--json"},
		{"query", "animals with claws"},
		{"get", "gno://n/alpha.md"},
		{"get", "n/beta.md", "--line-numbers"},
		{"get", "n/alpha.md", "--from", "6", "-l", "1"},
		{"get", "n/alpha.md", "--json"},
		{"get", "#00000000"},
		{"get", "#nope"},
		{"--json", "get", "n/missing.md"},
		{"multi-get", "n/*.md"},
		{"multi-get", "n/alpha.md,n/missing.md"},
		{"multi-get", "n/**", "--json"},
		{"ls"},
		{"ls", "n/sub"},
		{"ls", "--json"},
		{"ls", "-n", "2", "--offset", "1"},
		{"ls", "--offset", "3"},
		{"status"},
		{"status", "--json"},
		{"tags"},
		{"tags", "--json"},
		{"changes", "--since", "0"},
		{"changes", "--json"},
		{"links", "n/alpha.md"},
		{"links", "--unresolved"},
		{"links"},
		{"path", "n/alpha.md", "n/sub/gamma.md"},
		{"hubs"},
		{"orphans", "--json"},
		{"related", "n/alpha.md"},
		{"resolve", "Beta", "Gama"},
		{"ask", "what lays eggs"},
	}
	for _, args := range lines {
		before := c.served()
		d := c.run(args...)
		after := c.served()
		p := c.run(append([]string{"--no-daemon"}, args...)...)
		name := strings.Join(args, " ")
		if after != before+1 {
			t.Errorf("gno %s: not answered by the daemon (served %d → %d; stderr %q)", name, before, after, d.stderr)
		}
		if d != p {
			t.Errorf("gno %s differs:\ndaemon:     exit %d\n%s\n%s\nin-process: exit %d\n%s\n%s", name, d.code, d.stdout, d.stderr, p.code, p.stdout, p.stderr)
		}
		if c.served() != after {
			t.Errorf("gno --no-daemon %s was answered by the daemon", name)
		}
	}
	// Another index has no daemon: in-process, silently.
	if r := c.run("--index", "other", "ls", "-v"); r != c.run("--index", "other", "--no-daemon", "ls", "-v") || strings.Contains(r.stderr, "daemon") {
		t.Errorf("another index: %+v", r)
	}
	// A config change (a collection context) is seen at once.
	c.ok("context", "add", "n", "Notes about animals")
	d, p := c.run("search", "platypus"), c.run("--no-daemon", "search", "platypus")
	if d != p || !strings.Contains(d.stdout, "Notes about animals") {
		t.Errorf("after a config change:\ndaemon %+v\nin-process %+v", d, p)
	}
}

// TestDaemonPackages: the package-docs read commands are answered by the
// daemon with the in-process output, a relative --project (the default
// ".") naming the client's folder, not the daemon's.
func TestDaemonPackages(t *testing.T) {
	c := newDCLI(t)
	dir := t.TempDir()
	if err := (pkgtest.Project{Swift: true}).Write(dir); err != nil {
		t.Fatal(err)
	}
	c.ok("packages", "add", dir, "--no-embed")
	c.start("--no-embed")
	c.waitIdle()
	lines := [][]string{
		{"packages", "search", "circuit breaker", "--mode", "search", "-n", "3"},
		{"packages", "search", "retry with backoff", "--mode", "search", "--json"},
		{"packages", "search", "timeout", "--project", dir, "--mode", "search", "--package", "swift-retry"},
		{"packages", "describe", "swift-retry"},
		{"packages", "describe", "swift-retry", "--symbol", "withTimeout", "--json"},
		{"packages", "describe", "nope"},
		{"packages", "list"},
		{"packages", "list", "--project", "sub/.."},
		{"packages", "list", "--project", "missing"},
		{"packages", "search", "retry", "--project", "../nowhere", "--mode", "search"},
	}
	for _, args := range lines {
		before := c.served()
		d := c.runIn(dir, args...)
		after := c.served()
		p := c.runIn(dir, append([]string{"--no-daemon"}, args...)...)
		name := strings.Join(args, " ")
		if after != before+1 {
			t.Errorf("gno %s: not answered by the daemon (served %d → %d; stderr %q)", name, before, after, d.stderr)
		}
		if d != p {
			t.Errorf("gno %s differs:\ndaemon:     exit %d\n%s\n%s\nin-process: exit %d\n%s\n%s", name, d.code, d.stdout, d.stderr, p.code, p.stdout, p.stderr)
		}
	}
	if out := c.runIn(dir, "packages", "list"); !strings.Contains(out.stdout, "swift-retry") {
		t.Errorf("list in the project's folder: %+v", out)
	}
	// Writes stay in-process.
	before := c.served()
	c.ok("packages", "add", dir, "--no-embed")
	if c.served() != before {
		t.Error("packages add was answered by the daemon")
	}
}

// TestDaemonRefusals: the client runs the command itself, with the same
// output, when the daemon is another build or has another environment,
// and says why with -v.
func TestDaemonRefusals(t *testing.T) {
	c := newDCLI(t)
	root := vault(t)
	c.ok("collection", "add", root, "--name", "n")
	c.ok("update")
	c.start("--no-embed")
	want := c.run("--no-daemon", "search", "platypus")

	// Another build: a copy of the binary is another file.
	copyBin := filepath.Join(t.TempDir(), "gno-copy")
	b, _ := os.ReadFile(gnoBin)
	os.WriteFile(copyBin, b, 0o755)
	other := *c
	other.bin = copyBin
	before := c.served()
	r := other.run("search", "platypus", "-v")
	if r.stdout != want.stdout || r.code != want.code || !strings.Contains(r.stderr, "another gno build") {
		t.Errorf("another build: %+v", r)
	}
	if r := other.run("search", "platypus"); r != want {
		t.Errorf("another build, quietly: %+v", r)
	}
	// Another environment.
	tz := *c
	tz.env = append(append([]string{}, c.env...), "TZ=Asia/Tokyo")
	if r := tz.run("search", "platypus", "-v"); r.stdout != want.stdout || !strings.Contains(r.stderr, "environment differs") || !strings.Contains(r.stderr, "TZ") {
		t.Errorf("another environment: %+v", r)
	}
	if n := c.served(); n != before {
		t.Errorf("the daemon answered %d refused commands", n-before)
	}
	// A write command never goes to the daemon.
	if r := c.run("tag", "add", "n/alpha.md", "x"); r.code != 0 || c.served() != before {
		t.Errorf("tag add: %+v, served %d", r, c.served()-before)
	}
}

// TestDaemonLifecycle: start, a second start refused, a new note
// searchable within the debounce window, status, stop cleans up, kill -9
// leaves a stale lock the next start takes over.
func TestDaemonLifecycle(t *testing.T) {
	c := newDCLI(t)
	root := vault(t)
	c.ok("collection", "add", root, "--name", "n")
	c.ok("update")
	pid := c.start("--no-embed")
	dir := filepath.Join(c.home, "data", "default")

	r := c.run("daemon", "--addr", "127.0.0.1:0")
	if r.code != 4 || !strings.Contains(r.stderr, "already serves this index") || !strings.Contains(r.stderr, fmt.Sprint(pid)) {
		t.Errorf("second start: %+v", r)
	}
	if r := c.run("daemon", "--detach", "--addr", "127.0.0.1:0"); r.code != 4 {
		t.Errorf("second detached start: %+v", r)
	}

	// A note written now is found once the debounce (150 ms) and a sync
	// have passed.
	start := time.Now()
	os.WriteFile(filepath.Join(root, "new.md"), []byte("# New\n\nQuokkas smile for photographs.\n"), 0o644)
	for {
		if out := c.run("search", "quokkas", "--format", "files"); strings.Contains(out.stdout, "new.md") {
			break
		}
		if time.Since(start) > 2*time.Minute {
			t.Fatal("a new note was not searchable after 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("new note searchable after %s (debounce 150 ms)", time.Since(start).Round(time.Millisecond))

	st := c.ok("daemon", "status")
	for _, want := range []string{fmt.Sprintf("running (pid %d", pid), "socket:", "watching:  2 folders", "answered:"} {
		if !strings.Contains(st, want) {
			t.Errorf("status lacks %q:\n%s", want, st)
		}
	}
	if out := c.ok("daemon", "log", "-n", "0"); !strings.Contains(out, "daemon ready") || !strings.Contains(out, "synced") {
		t.Errorf("log:\n%s", out)
	}
	info, _ := os.ReadFile(filepath.Join(dir, wire.InfoFile))
	var in struct{ Socket string }
	json.Unmarshal(info, &in)

	if out := c.ok("daemon", "stop"); !strings.Contains(out, fmt.Sprintf("stopped (pid %d)", pid)) {
		t.Errorf("stop: %s", out)
	}
	for _, f := range []string{filepath.Join(dir, wire.InfoFile), filepath.Join(dir, wire.EndpointFile), in.Socket} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s left after stop (%v)", f, err)
		}
	}
	if r := c.run("daemon", "status"); r.code != 3 || !strings.Contains(r.stderr, "no gno daemon is running") {
		t.Errorf("status after stop: %+v", r)
	}
	if out := c.ok("daemon", "stop"); !strings.Contains(out, "not running") {
		t.Errorf("second stop: %s", out)
	}

	// kill -9: files stay, the lock is free; status says so, search runs
	// in-process, the next start takes over.
	pid = c.start("--no-embed")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	if r := c.run("daemon", "status"); r.code != 3 || !strings.Contains(r.stderr, "stopped without cleaning up") {
		t.Errorf("status after kill -9: %+v", r)
	}
	if r := c.run("search", "quokkas", "-v"); r.code != 0 || !strings.Contains(r.stdout, "New") || !strings.Contains(r.stderr, "daemon not used") {
		t.Errorf("search after kill -9: %+v", r)
	}
	pid2 := c.start("--no-embed")
	if pid2 == pid {
		t.Fatal("same pid")
	}
	if out := c.ok("daemon", "log", "-n", "0"); !strings.Contains(out, "did not stop cleanly") {
		t.Errorf("takeover not logged:\n%s", out)
	}
	before := c.served()
	if out := c.ok("search", "quokkas"); !strings.Contains(out, "New") || c.served() != before+1 {
		t.Errorf("after takeover: %s", out)
	}
}

// waitGone waits until process pid has exited (it is our child's child:
// reaped by init, so poll). A zombie main thread is not enough: its other
// threads may still be exiting, holding the process's files (the index
// lock, the socket) until the last one is gone, so wait for the thread
// list to shrink to the zombie alone.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if f := strings.Fields(string(b)); len(f) > 2 && f[2] == "Z" && len(tasks) <= 1 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("pid %d still alive", pid)
}

// TestDaemonForeignSocket: a socket another user owns, or in a folder
// another user owns or others may open, is never used. Run as root,
// which can give files away to nobody (65534).
func TestDaemonForeignSocket(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a socket to another user")
	}
	c := newDCLI(t)
	root := vault(t)
	c.ok("collection", "add", root, "--name", "n")
	c.ok("update")
	want := c.run("search", "platypus")
	dir := filepath.Join(c.home, "data", "default")
	for _, tc := range []struct {
		name            string
		dirUID, sockUID int
		dirMode         os.FileMode
		wantWhy         string
	}{
		{"folder of another user", 65534, 65534, 0o700, "socket folder is not this user's own"},
		{"socket of another user", 0, 65534, 0o700, "socket is not this user's"},
		{"folder open to others", 0, 0, 0o755, "socket folder is not this user's own"},
	} {
		sdir, err := os.MkdirTemp("", "gnoforeign")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(sdir)
		sock := filepath.Join(sdir, "x.sock")
		ln, err := listenUnix(sock)
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(sdir, tc.dirMode)
		os.Chown(sock, tc.sockUID, tc.sockUID)
		os.Chown(sdir, tc.dirUID, tc.dirUID)
		os.WriteFile(filepath.Join(dir, wire.EndpointFile), []byte(sock+"\n"), 0o600)
		accepted := make(chan bool, 1)
		go func() {
			conn, err := ln.Accept()
			if err == nil {
				conn.Close()
			}
			accepted <- err == nil
		}()
		r := c.run("search", "platypus", "-v")
		if r.stdout != want.stdout || r.code != want.code || !strings.Contains(r.stderr, tc.wantWhy) {
			t.Errorf("%s: %+v", tc.name, r)
		}
		ln.Close()
		if <-accepted {
			t.Errorf("%s: the client connected", tc.name)
		}
	}
}

// TestDaemonTTY: a client on a terminal gets the terminal's output
// (colours) from the daemon, as in-process.
func TestDaemonTTY(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pty via /dev/ptmx")
	}
	c := newDCLI(t)
	root := vault(t)
	c.ok("collection", "add", root, "--name", "n")
	c.ok("update")
	c.start("--no-embed")
	runTTY := func(args ...string) string {
		master, slave, err := openPTY()
		if err != nil {
			t.Skip(err)
		}
		defer master.Close()
		cmd := exec.Command(gnoBin, args...)
		cmd.Env = append(os.Environ(), c.env...)
		cmd.Stdout, cmd.Stderr = slave, slave
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		slave.Close()
		var out bytes.Buffer
		io.Copy(&out, master) // ends with EIO when the child exits
		cmd.Wait()
		return out.String()
	}
	before := c.served()
	d := runTTY("search", "platypus")
	p := runTTY("--no-daemon", "search", "platypus")
	if c.served() != before+1 {
		t.Error("the daemon did not answer the terminal's search")
	}
	if d != p || !strings.Contains(d, "\x1b[1m") {
		t.Errorf("on a terminal:\ndaemon     %q\nin-process %q", d, p)
	}
}

// TestDaemonInstall writes and removes the unit of each OS layout under
// a temporary HOME (never running systemctl, launchctl or schtasks:
// --no-start).
func TestDaemonInstall(t *testing.T) {
	c := newDCLI(t)
	home := t.TempDir()
	c.env = append(c.env, "HOME="+home, "XDG_CONFIG_HOME=", "LOCALAPPDATA=", "OPENAI_API_KEY=sk-test")
	for _, tc := range []struct{ goos, path, want string }{
		{"linux", filepath.Join(home, ".config", "systemd", "user", "gno-daemon-notes.service"), "ExecStart="},
		{"darwin", filepath.Join(home, "Library", "LaunchAgents", "dev.gno.daemon.notes.plist"), "<key>ProgramArguments</key>"},
		{"windows", home + `\AppData\Local\gno\gno-daemon-notes.xml`, ""},
	} {
		r := c.run("--index", "notes", "daemon", "install", "--no-start", "--os", tc.goos, "--addr", "127.0.0.1:7790")
		if r.code != 0 || !strings.Contains(r.stdout, "wrote "+tc.path) {
			t.Fatalf("%s install: %+v", tc.goos, r)
		}
		if !strings.Contains(r.stderr, "OPENAI_API_KEY not written") {
			t.Errorf("%s: the secret was not mentioned: %q", tc.goos, r.stderr)
		}
		b, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		text := printable(b)
		for _, want := range []string{tc.want, "--index", "notes", "daemon", "--addr", "127.0.0.1:7790", "GNO_HOME", c.home} {
			if !strings.Contains(text, want) {
				t.Errorf("%s unit lacks %q:\n%s", tc.goos, want, text)
			}
		}
		if strings.Contains(text, "sk-test") {
			t.Errorf("%s unit holds the secret", tc.goos)
		}
		if r := c.run("--index", "notes", "daemon", "uninstall", "--no-start", "--os", tc.goos); r.code != 0 || !strings.Contains(r.stdout, "removed "+tc.path) {
			t.Errorf("%s uninstall: %+v", tc.goos, r)
		}
		if _, err := os.Stat(tc.path); !os.IsNotExist(err) {
			t.Errorf("%s: %s left (%v)", tc.goos, tc.path, err)
		}
	}
	if r := c.run("daemon", "install", "--dry-run", "--os", "linux"); r.code != 0 || !strings.Contains(r.stdout, "would write") || !strings.Contains(r.stdout, "systemctl --user enable --now gno-daemon.service") {
		t.Errorf("dry run: %+v", r)
	}
}

// TestDaemonSharing: gno daemon --listen-any is the sharing mode of gno
// serve (HTTPS, tokens), and the fast path keeps working beside it.
func TestDaemonSharing(t *testing.T) {
	c := shareIndex(t)
	if _, errOut, code := c.run("daemon", "--listen-any", "--addr", "127.0.0.2:0"); code != 2 || !strings.Contains(errOut, "gno token create --read") {
		t.Fatalf("without a token: exit %d: %s", code, errOut)
	}
	read, _ := newToken(t, c, "--read")
	s := startShare(t, c, "daemon", "--listen-any", "--addr", "127.0.0.2:0", "--no-embed")
	if s.fingerprint == "" || !strings.HasPrefix(s.base, "https://") {
		t.Fatalf("no TLS: %s\n%s", s.base, s.log.String())
	}
	cl := s.client("127.0.0.1")
	s.do(cl, "GET", "/api/search?q=elephants", "").refused(t, "no token", 401)
	if r := s.do(cl, "GET", "/api/search?q=elephants", "", "Bearer", read); r.status != 200 || !strings.Contains(r.body, "elephants") {
		t.Errorf("read token: %d %.200s", r.status, r.body)
	}
	sess := s.mcpInit(cl, read)
	if res, _ := s.mcpCall(cl, read, sess, "tools/call", map[string]any{"name": "gno_search", "arguments": map[string]any{"query": "elephants"}}); !strings.Contains(string(res), "plan.md") {
		t.Errorf("MCP search: %s", res)
	}
	// The package-docs tools are served by the daemon as by gno mcp.
	if res, _ := s.mcpCall(cl, read, sess, "tools/call", map[string]any{"name": "gno_search_package_docs",
		"arguments": map[string]any{"query": "retry", "project": t.TempDir()}}); len(res) == 0 || strings.Contains(string(res), "not configured") {
		t.Errorf("MCP package docs: %s", res)
	}
	plain := &http.Client{Timeout: 5 * time.Second}
	if resp, err := plain.Get("http" + strings.TrimPrefix(s.base, "https") + "/api/status"); err == nil {
		if resp.StatusCode != 400 {
			t.Errorf("plain HTTP: %d", resp.StatusCode)
		}
		resp.Body.Close()
	}
	// The CLI's socket is the same as without sharing.
	out, errOut, code := c.run("search", "elephants", "-v")
	if code != 0 || !strings.Contains(out, "Plan") || strings.Contains(errOut, "daemon not used") {
		t.Errorf("fast path beside sharing: exit %d %s %s", code, out, errOut)
	}
	if st, _, _ := c.run("daemon", "status", "--json"); !strings.Contains(st, `"cliRequests": 1`) {
		t.Errorf("the daemon did not answer the search: %s", st)
	}
}
