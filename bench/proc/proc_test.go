package proc

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	ctx := context.Background()
	res, err := Run(ctx, Cmd{Path: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" || res.ExitCode != 0 {
		t.Fatalf("result = %+v", res)
	}
	if res.Wall <= 0 || res.MaxRSS <= 0 || res.CPU < 0 {
		t.Fatalf("wall %v, max RSS %d: not measured", res.Wall, res.MaxRSS)
	}

	_, err = Run(ctx, Cmd{Path: "/bin/sh", Args: []string{"-c", "echo progress >&2; echo 'error: no such mode' >&2; exit 3"}})
	if err == nil || !strings.Contains(err.Error(), "exit 3: error: no such mode") {
		t.Fatalf("err = %v, want the exit code and the last stderr line", err)
	}

	_, err = Run(ctx, Cmd{Path: "/bin/sleep", Args: []string{"5"}, Timeout: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if _, err := Run(ctx, Cmd{Path: "/does/not/exist"}); err == nil {
		t.Fatal("want an error for a missing program")
	}
}

func TestCommandName(t *testing.T) {
	got := commandName(Cmd{Path: "/tmp/x/gno", Args: []string{"search", "a long query", "-n", "10"}})
	if got != "gno search" {
		t.Fatalf("commandName = %q", got)
	}
	got = commandName(Cmd{Path: "gno", Args: []string{"collection", "add", "/tmp/docs"}})
	if got != "gno collection add" {
		t.Fatalf("commandName = %q", got)
	}
}
