package wire

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain doubles as the helper of TestDialRefusesAnotherUsersDaemon: a
// process of another user listening on a socket the test bound.
func TestMain(m *testing.M) {
	if os.Getenv("GNO_WIRE_PEER_HELPER") == "1" {
		// fd 3 is the bound socket; listening makes us its owner in
		// SO_PEERCRED's eyes.
		if err := syscall.Listen(3, 4); err != nil {
			os.Exit(2)
		}
		nfd, _, err := syscall.Accept(3)
		if err == nil {
			syscall.Write(nfd, []byte{FrameAccept, 0, 0, 0, 0})
			// Stay until the client hangs up (the test kills us at its end).
			syscall.Read(nfd, make([]byte, 1))
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestDialRefusesAnotherUsersDaemon: the socket file and its folder are
// the user's own (the checks a file system gives pass), but the process
// that listens runs as another user: Dial refuses it (SO_PEERCRED).
func TestDialRefusesAnotherUsersDaemon(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The helper (this test binary) must be readable by nobody.
	shared, err := os.MkdirTemp("", "gnopeer")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shared)
	os.Chmod(shared, 0o755)
	helper := filepath.Join(shared, "helper")
	b, _ := os.ReadFile(exe)
	if err := os.WriteFile(helper, b, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	sock := filepath.Join(dir, "d.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "sock")
	cmd := exec.Command(helper)
	cmd.Env = append(os.Environ(), "GNO_WIRE_PEER_HELPER=1")
	cmd.ExtraFiles = []*os.File{f}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if err := CheckSocket(sock); err != nil {
		t.Fatalf("the file checks should pass here: %v", err)
	}
	var derr error
	// The helper is a fresh process: on a busy machine it may take
	// seconds to listen; until then Dial is refused.
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		var c Conn
		c, derr = Dial(sock, time.Second)
		if derr == nil {
			c.Close()
			t.Fatal("Dial accepted a daemon of another user")
		}
		if strings.Contains(derr.Error(), "another user") {
			return
		}
		time.Sleep(20 * time.Millisecond) // not listening yet
	}
	t.Fatalf("Dial: %v", derr)
}
