package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/watch"
	"github.com/gnosearch/gno/server/daemon/wire"
)

// TestLock: one holder per index; a second is refused with LOCKED and
// the first's pid; a holder's files are removed and a killed holder's
// left files taken over.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	l, stale, err := acquire(dir)
	if err != nil || stale != nil {
		t.Fatalf("first: %v %v", err, stale)
	}
	if err := l.publish(Info{PID: 4242, Socket: "/nowhere/x.sock"}); err != nil {
		t.Fatal(err)
	}
	if !Held(dir) {
		t.Error("Held says no")
	}
	_, _, err = acquire(dir)
	if !errors.Is(err, ErrRunning) || gnoerr.CodeOf(err) != gnoerr.Locked || !bytes.Contains([]byte(err.Error()), []byte("pid 4242")) {
		t.Fatalf("second: %v", err)
	}
	// A kill -9: the OS drops the lock, the files stay.
	l.fl.Unlock()
	if Held(dir) {
		t.Error("Held after the holder died")
	}
	sock := filepath.Join(dir, wire.SocketName(dir))
	os.WriteFile(sock, nil, 0o600)
	in, _ := ReadInfo(dir)
	in.Socket = sock
	l.publish(*in)
	l2, stale, err := acquire(dir)
	if err != nil || stale == nil || stale.PID != 4242 {
		t.Fatalf("takeover: %v %+v", err, stale)
	}
	for _, f := range []string{wire.EndpointFile, wire.InfoFile, filepath.Base(sock)} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s left after takeover (%v)", f, err)
		}
	}
	l2.release()
}

// readAll reads the frames c receives until it closes.
func readAll(c net.Conn) (frames []string) {
	for {
		typ, p, err := wire.ReadFrame(c, nil)
		if err != nil {
			return frames
		}
		frames = append(frames, fmt.Sprintf("%c:%s", typ, p))
	}
}

// TestOutput: a refusal is possible until the first write (or Accept),
// never after; writes keep their order across stdout and stderr.
func TestOutput(t *testing.T) {
	run := func(f func(o *Output)) []string {
		a, b := net.Pipe()
		got := make(chan []string)
		go func() { got <- readAll(b) }()
		o := newOutput(a, false)
		f(o)
		a.Close()
		return <-got
	}
	got := run(func(o *Output) {
		if !o.Refuse("later") {
			t.Error("refuse before writing failed")
		}
		if _, err := o.Stdout().Write([]byte("x")); err == nil {
			t.Error("a write after a refusal succeeded")
		}
		o.finish(0)
	})
	if !reflect.DeepEqual(got, []string{"R:later"}) {
		t.Errorf("refused: %q", got)
	}
	got = run(func(o *Output) {
		o.Stdout().Write([]byte("out1"))
		o.Stderr().Write([]byte("err"))
		o.Stdout().Write([]byte("out2"))
		if o.Refuse("too late") {
			t.Error("refused after writing")
		}
		o.finish(3)
	})
	want := []string{"A:", "O:out1", "E:err", "O:out2", "X:\x00\x00\x00\x03"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("frames %q, want %q", got, want)
	}
}

// TestMerge: a whole-collection change swallows file changes, both ways.
func TestMerge(t *testing.T) {
	w := &worker{pending: map[string]map[string]bool{}}
	w.merge(watch.Change{Collection: "a", Paths: []string{"x.md"}})
	w.merge(watch.Change{Collection: "a", Paths: []string{"y.md"}})
	w.merge(watch.Change{Collection: "b", Paths: []string{"z.md"}})
	w.merge(watch.Change{Collection: "b"})
	w.merge(watch.Change{Collection: "b", Paths: []string{"q.md"}})
	if !reflect.DeepEqual(w.pending, map[string]map[string]bool{"a": {"x.md": true, "y.md": true}, "b": nil}) {
		t.Errorf("pending %v", w.pending)
	}
}

// TestEnvDiff names the variables two signatures disagree on.
func TestEnvDiff(t *testing.T) {
	a := wire.EnvSig([]string{"GNO_HOME=/h", "TZ=UTC", "OPENAI_API_KEY=1"})
	b := wire.EnvSig([]string{"GNO_HOME=/h", "OPENAI_API_KEY=2", "OLLAMA_HOST=x"})
	if d := envDiff(a, b); !reflect.DeepEqual(d, []string{"OLLAMA_HOST", "OPENAI_API_KEY", "TZ"}) {
		t.Errorf("diff %v", d)
	}
}
