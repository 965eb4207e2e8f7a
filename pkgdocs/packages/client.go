package packages

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gnosearch/gno/pkgdocs/internal/capbuf"
)

// environ is the environment discovery reads and the clients get.
type environ struct {
	list []string
	m    map[string]string
}

func newEnviron(list []string) *environ {
	if list == nil {
		list = os.Environ()
	}
	m := make(map[string]string, len(list))
	for _, kv := range list {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return &environ{list: list, m: m}
}

func (e *environ) get(k string) string { return e.m[k] }

// home is the user's home folder as the environment gives it.
func (e *environ) home() string {
	if runtime.GOOS == "windows" {
		return e.get("USERPROFILE")
	}
	return e.get("HOME")
}

// with returns the environment with some variables replaced.
func (e *environ) with(kv ...string) []string {
	out := make([]string, 0, len(e.list)+len(kv))
	drop := map[string]bool{}
	for _, x := range kv {
		k, _, _ := strings.Cut(x, "=")
		drop[k] = true
	}
	for _, x := range e.list {
		k, _, _ := strings.Cut(x, "=")
		if !drop[k] {
			out = append(out, x)
		}
	}
	return append(out, kv...)
}

// lookPath finds a client on the environment's PATH.
func (e *environ) lookPath(name string) (string, error) {
	path, ok := e.m["PATH"]
	if !ok {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, ext := range exeExts() {
			p := filepath.Join(dir, name+ext)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s not found on PATH", name)
}

func exeExts() []string {
	if runtime.GOOS == "windows" {
		return []string{".exe", ".cmd", ".bat", ""}
	}
	return []string{""}
}

// client runs one command of an ecosystem's client.
type client struct {
	bin     string
	dir     string
	env     []string
	timeout time.Duration
	// maxOut bounds the stdout kept (defaultMaxOut when 0): a toolchain
	// query's answer is a line or two, and a broken or hostile binary
	// must not fill memory.
	maxOut int
}

// Bounds of a client's output: stdout as a whole (go mod download -json
// and npm pack --json answer per package, so a few MB at most), a
// toolchain query's one-line answer, and stderr, read only for its last
// words and a few telltale strings.
const (
	defaultMaxOut = 64 << 20
	queryMaxOut   = 1 << 20
	maxErrOut     = 1 << 20
)

// run returns the command's stdout; a failure is an error whose message
// is short: the client's own last words on stderr, not a wall of text.
func (c *client) run(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Dir = c.dir
	cmd.Env = c.env
	stdout, stderr := capbuf.New(cmp.Or(c.maxOut, defaultMaxOut)), capbuf.New(maxErrOut)
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if err == nil && stdout.Over() {
		return nil, fmt.Errorf("%s: answer larger than %d bytes", filepath.Base(c.bin), stdout.Max())
	}
	if err == nil {
		return stdout.Bytes(), nil
	}
	if ctx.Err() == context.DeadlineExceeded {
		return stdout.Bytes(), fmt.Errorf("%s timed out after %s", filepath.Base(c.bin), c.timeout)
	}
	msg := shortError(stderr.String())
	if msg == "" {
		msg = shortError(stdout.String())
	}
	if msg == "" {
		msg = err.Error()
	}
	return stdout.Bytes(), &clientError{msg: filepath.Base(c.bin) + ": " + msg, output: stderr.String() + "\n" + stdout.String()}
}

// clientError is a client's failure: a short message, and its whole
// output for telling a network failure from a package-specific one.
type clientError struct {
	msg    string
	output string
}

func (e *clientError) Error() string { return e.msg }

// mentions reports whether a client's failure output contains any of the
// strings.
func mentions(err error, parts ...string) bool {
	var ce *clientError
	if !errors.As(err, &ce) {
		return false
	}
	for _, p := range parts {
		if strings.Contains(ce.output, p) {
			return true
		}
	}
	return false
}

// shortError keeps the most telling line of a client's error output: the
// last one that reads like an error, trimmed.
func shortError(s string) string {
	// Cargo ends with its root cause: "Caused by:\n  [7] Could not connect".
	if i := strings.LastIndex(s, "Caused by:"); i >= 0 {
		if cause := strings.TrimSpace(s[i+len("Caused by:"):]); cause != "" {
			s = cause
		}
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	best := ""
	// The last line that starts as an error does ("error: ...", pip's
	// "ERROR: ...", "npm error ..."); else the last that speaks of one;
	// else the last line.
	for pass := 0; pass < 3 && best == ""; pass++ {
		for i := len(lines) - 1; i >= 0 && best == ""; i-- {
			l := strings.TrimSpace(lines[i])
			if l == "" || strings.Contains(l, "A complete log of this run") {
				continue
			}
			low := strings.ToLower(l)
			switch pass {
			case 0:
				if strings.HasPrefix(low, "error") || strings.HasPrefix(low, "npm error") || strings.HasPrefix(low, "npm err!") || strings.HasPrefix(low, "go: ") {
					best = l
				}
			case 1:
				for _, k := range []string{"error", "failed", "could not", "not found", "no matching", "disabled"} {
					if strings.Contains(low, k) {
						best = l
						break
					}
				}
			default:
				best = l
			}
		}
	}
	for _, p := range []string{"npm ERR! ", "npm error ", "ERROR: ", "error: ", "go: "} {
		best = strings.TrimPrefix(best, p)
	}
	if len(best) > 200 {
		best = best[:197] + "..."
	}
	return best
}

func (d *discovery) fetchTimeout() time.Duration {
	if d.opt.FetchTimeout > 0 {
		return d.opt.FetchTimeout
	}
	return 3 * time.Minute
}

// scratch makes a fresh folder under the fetch cache for one client run;
// the caller removes it.
func (d *discovery) scratch(prefix string) (string, error) {
	dir := filepath.Join(d.opt.CacheDir, "tmp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(dir, prefix)
}
