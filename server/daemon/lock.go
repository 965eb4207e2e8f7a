package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server/daemon/wire"
	"github.com/gofrs/flock"
)

// Info is what a running daemon writes to wire.InfoFile when it is
// ready: who and where it is. Status adds its live state.
type Info struct {
	PID        int       `json:"pid"`
	Version    string    `json:"version"`
	Build      string    `json:"build"`
	Index      string    `json:"index"`
	IndexDir   string    `json:"indexDir"`
	ConfigFile string    `json:"configFile"`
	Socket     string    `json:"socket"`
	HTTP       string    `json:"http,omitempty"`
	Scheme     string    `json:"scheme,omitempty"`
	LogFile    string    `json:"logFile,omitempty"`
	Started    time.Time `json:"started"`
}

// lock is the one-daemon-per-index lock: an OS file lock on
// wire.LockFile, released by the OS when the process dies (kill -9
// included), so a stale one is simply free.
type lock struct {
	fl  *flock.Flock
	dir string
}

// ErrRunning is the error of a second daemon on one index.
var ErrRunning = errors.New("a gno daemon already serves this index")

// acquire takes the lock of the index in dir. A previous daemon killed
// before it could clean up left its files behind: they are returned (its
// Info, if readable) and removed, with its socket.
func acquire(dir string) (*lock, *Info, error) {
	var err error
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create index dir: %w", err)
	}
	fl := flock.New(filepath.Join(dir, wire.LockFile))
	var ok bool
	// A few tries: Held (gno daemon status) takes the lock for an
	// instant to look.
	for try := 0; try < 5 && !ok; try++ {
		if try > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		if ok, err = fl.TryLock(); err != nil {
			return nil, nil, fmt.Errorf("lock %s: %w", fl.Path(), err)
		}
	}
	if !ok {
		msg := ErrRunning.Error()
		if in, err := ReadInfo(dir); err == nil {
			msg = fmt.Sprintf("%s (pid %d", msg, in.PID)
			if in.HTTP != "" {
				msg += fmt.Sprintf(", %s://%s/", in.scheme(), in.HTTP)
			}
			msg += "); stop it with `gno daemon stop`"
		}
		return nil, nil, gnoerr.Wrap(gnoerr.Locked, ErrRunning, "%s", msg)
	}
	l := &lock{fl: fl, dir: dir}
	stale, _ := ReadInfo(dir)
	if stale != nil && stale.Socket != "" && filepath.Base(stale.Socket) == wire.SocketName(dir) {
		os.Remove(stale.Socket)
	}
	l.removeFiles()
	return l, stale, nil
}

// publish writes the info file, then the endpoint file that clients
// look for: a client never finds an endpoint without its daemon's info.
func (l *lock) publish(in Info) error {
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return err
	}
	if err := config.WriteFileAtomic(filepath.Join(l.dir, wire.InfoFile), append(b, '\n'), 0o600); err != nil {
		return err
	}
	return config.WriteFileAtomic(filepath.Join(l.dir, wire.EndpointFile), []byte(in.Socket+"\n"), 0o600)
}

// removeFiles deletes the endpoint first (clients stop coming), then
// the info file.
func (l *lock) removeFiles() {
	os.Remove(filepath.Join(l.dir, wire.EndpointFile))
	os.Remove(filepath.Join(l.dir, wire.InfoFile))
}

// release removes the daemon's files and the lock.
func (l *lock) release() {
	l.removeFiles()
	l.fl.Unlock()
}

// ReadInfo reads the info file of the index in dir.
func ReadInfo(dir string) (*Info, error) {
	b, err := os.ReadFile(filepath.Join(dir, wire.InfoFile))
	if err != nil {
		return nil, err
	}
	var in Info
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("%s: %w", wire.InfoFile, err)
	}
	return &in, nil
}

// Held reports whether a daemon holds the lock of the index in dir (one
// is running, maybe still starting or stopping).
func Held(dir string) bool {
	fl := flock.New(filepath.Join(dir, wire.LockFile))
	ok, err := fl.TryLock()
	if err != nil {
		return false
	}
	if ok {
		fl.Unlock()
		return false
	}
	return true
}

func (in *Info) scheme() string {
	if in.Scheme != "" {
		return in.Scheme
	}
	return "http"
}

// URL is the daemon's web address ("" without HTTP).
func (in *Info) URL() string {
	if in.HTTP == "" {
		return ""
	}
	return in.scheme() + "://" + in.HTTP + "/"
}
