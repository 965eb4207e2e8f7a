// Package proc runs one command the way a user would, timing the whole
// process (fork, exec, runtime start, work, exit) and reading its peak
// resident memory from the kernel's rusage, so figures include everything
// a shell user or an agent spawning the CLI pays for.
//
// It must not be imported by gno itself (bench is a tool).
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Cmd is one command to run.
type Cmd struct {
	Path string
	Args []string
	// Env is the full environment; nil inherits the harness's.
	Env   []string
	Dir   string
	Stdin io.Reader
	// Timeout bounds the run; 0 means none beyond ctx.
	Timeout time.Duration
}

// Result is what one run produced.
type Result struct {
	Stdout, Stderr []byte
	Wall           time.Duration
	// MaxRSS is the peak resident set size in bytes (0 where the OS does
	// not report it).
	MaxRSS int64
	// CPU is user plus system time: unlike Wall, it barely moves when other
	// work shares the machine, so it is the figure to compare on a busy box.
	CPU time.Duration
	// MinorFaults counts the page faults served without I/O (rusage
	// ru_minflt): pages of the binary, the heap and libraries first touched.
	MinorFaults int64
	ExitCode    int
}

// Run runs c to completion. A non-zero exit is returned as an error that
// quotes the first line of stderr, because that is the reason a person
// needs to see in a "n/a" cell; the Result is filled in either way.
func Run(ctx context.Context, c Cmd) (Result, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Env = c.Env
	cmd.Dir = c.Dir
	cmd.Stdin = c.Stdin
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := Result{Wall: time.Since(start), Stdout: out.Bytes(), Stderr: errb.Bytes(), ExitCode: -1}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
		res.MaxRSS = MaxRSS(cmd.ProcessState)
		res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru != nil {
			res.MinorFaults = ru.Minflt
		}
	}
	if err != nil {
		name := commandName(c)
		if ctx.Err() != nil {
			return res, fmt.Errorf("%s: %w (after %s)", name, ctx.Err(), res.Wall.Round(time.Millisecond))
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return res, fmt.Errorf("%s: exit %d: %s", name, res.ExitCode, Reason(res.Stderr, res.Stdout))
		}
		return res, fmt.Errorf("%s: %w", name, err)
	}
	return res, nil
}

// commandName names a command for error messages: the program and its
// subcommand words, without the (possibly long) query text.
func commandName(c Cmd) string {
	parts := []string{filepath.Base(c.Path)}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "-") || strings.ContainsAny(a, " /") || len(parts) == 3 {
			break
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// MaxRSS reads the peak RSS of a finished process in bytes.
func MaxRSS(ps interface{ SysUsage() any }) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		return ru.Maxrss * 1024 // Linux reports kilobytes
	}
	return 0
}

// Reason picks the most useful short line from a failed command's output:
// the last non-empty stderr line (where CLIs put the final error), else
// stdout's, capped at 200 bytes.
func Reason(stderr, stdout []byte) string {
	for _, b := range [][]byte{stderr, stdout} {
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if l := strings.TrimSpace(lines[i]); l != "" {
				if len(l) > 200 {
					l = l[:200] + "…"
				}
				return l
			}
		}
	}
	return "no output"
}
