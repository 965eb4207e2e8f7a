// Package wire is the local protocol between the gno CLI and a running
// `gno daemon`: where the daemon's socket lies, how a client checks that
// the socket and the process behind it belong to its own user, and the
// frames both sides write.
//
// It imports only the standard library and does nothing at init: the
// CLI's fast path (cmd/gno/internal/fastpath) runs it before gno's heavy
// packages initialise, so a forwarded command never pays for them. The
// socket and framing are a few dozen lines over syscalls; a library (gRPC,
// net/rpc, even net) would cost more at start than the whole exchange. For
// the same reason it imports only what package os imports itself: Go
// initialises a package after all its imports, choosing among the ready
// ones in import-path order, so strings, strconv, sort, path/filepath or
// encoding/binary (initialised late, their paths sorting late) would each
// put dozens of other packages' init before the fast path's. The few
// helpers it needs from them are written out in num.go, and the daemon's
// side of the socket (creating it) lives in package daemon.
//
// A connection carries one request. The client writes it (Request.Encode);
// the daemon answers with frames (type byte, 4-byte big-endian length,
// payload). For a command line: FrameRefuse (the client runs the command
// itself; nothing was written) or FrameAccept, then FrameStdout and
// FrameStderr in the order the command wrote them, then FrameExit with the
// exit code. The client closing its end cancels the command.
package wire

import (
	"errors"
	"io"
)

// Version names this protocol; a daemon refuses any other.
const Version = "gno-daemon/1"

// EndpointFile, in the index directory, holds the socket path of the
// daemon serving the index (written once it is ready, removed when it
// stops). The lock and status files lie beside it.
const (
	EndpointFile = "daemon.endpoint"
	LockFile     = "daemon.lock"
	InfoFile     = "daemon.json"
	LogFile      = "daemon.log"
)

// Request kinds.
const (
	// KindCLI runs a command line (Request.Args).
	KindCLI byte = 'C'
	// KindStatus asks for the daemon's state (FrameReply, JSON).
	KindStatus byte = 'S'
	// KindStop stops the daemon (FrameReply once it has begun).
	KindStop byte = 'T'
)

// Frame types, daemon to client.
const (
	FrameAccept byte = 'A'
	FrameRefuse byte = 'R'
	FrameStdout byte = 'O'
	FrameStderr byte = 'E'
	FrameExit   byte = 'X'
	FrameReply  byte = 'J'
)

// Limits on what either side reads.
const (
	maxRequest = 1 << 20
	// MaxFrame bounds one frame's payload.
	MaxFrame = 16 << 20
)

// Request is one exchange asked of the daemon.
type Request struct {
	Kind byte
	// Build identifies the client's binary (Build); a daemon of another
	// build refuses, so output cannot differ between versions.
	Build string
	// The index as the client resolved it (package dirs).
	IndexDir, ConfigFile, ModelsDir string
	// Index and Config are the --index and --config values the client
	// read ("" when absent), Config made absolute against Cwd.
	Index, Config string
	// Env names the environment that changes what commands print (EnvSig).
	Env string
	// Cwd is the client's working directory.
	Cwd string
	// StdoutTTY, StderrTTY and Width describe the client's terminal.
	StdoutTTY, StderrTTY bool
	Width                int
	// Args are the command line, without the program name.
	Args []string
}

var magic = []byte("GNO\x01")

// Encode serialises r: magic, kind, body length, then the fields as
// length-prefixed strings.
func (r *Request) Encode() []byte {
	flags := []byte{'0', '0'}
	if r.StdoutTTY {
		flags[0] = '1'
	}
	if r.StderrTTY {
		flags[1] = '1'
	}
	fields := append([]string{Version, r.Build, r.IndexDir, r.ConfigFile, r.ModelsDir, r.Index, r.Config, r.Env, r.Cwd,
		string(flags), itoa(int64(r.Width))}, r.Args...)
	var body []byte
	body = appendUvarint(body, uint64(len(fields)))
	for _, f := range fields {
		body = appendUvarint(body, uint64(len(f)))
		body = append(body, f...)
	}
	out := make([]byte, 0, len(magic)+5+len(body))
	out = append(out, magic...)
	out = append(out, r.Kind)
	out = appendUint32(out, uint32(len(body)))
	return append(out, body...)
}

// ErrProtocol reports a peer that does not speak this protocol.
var ErrProtocol = errors.New("not a gno daemon request")

// ReadRequest reads one request. A request of another protocol version
// decodes with that version in Build's place, prefixed "proto:", so the
// daemon can refuse it by name.
func ReadRequest(rd io.Reader) (*Request, error) {
	var head [9]byte
	if _, err := io.ReadFull(rd, head[:]); err != nil {
		return nil, err
	}
	if string(head[:4]) != string(magic) {
		return nil, ErrProtocol
	}
	n := getUint32(head[5:])
	if n > maxRequest {
		return nil, ErrProtocol
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(rd, body); err != nil {
		return nil, err
	}
	count, k := uvarint(body)
	if k <= 0 || count < 11 || count > uint64(len(body)) {
		return nil, ErrProtocol
	}
	body = body[k:]
	fields := make([]string, 0, count)
	for range count {
		l, k := uvarint(body)
		if k <= 0 || l > uint64(len(body)-k) {
			return nil, ErrProtocol
		}
		fields = append(fields, string(body[k:k+int(l)]))
		body = body[k+int(l):]
	}
	r := &Request{Kind: head[4]}
	if fields[0] != Version {
		r.Build = "proto:" + fields[0]
		return r, nil
	}
	r.Build, r.IndexDir, r.ConfigFile, r.ModelsDir = fields[1], fields[2], fields[3], fields[4]
	r.Index, r.Config, r.Env, r.Cwd = fields[5], fields[6], fields[7], fields[8]
	r.StdoutTTY = len(fields[9]) == 2 && fields[9][0] == '1'
	r.StderrTTY = len(fields[9]) == 2 && fields[9][1] == '1'
	r.Width = atoi(fields[10])
	r.Args = fields[11:]
	return r, nil
}

// WriteFrame writes one frame.
func WriteFrame(w io.Writer, typ byte, payload []byte) error {
	var head [5]byte
	head[0] = typ
	putUint32(head[1:], uint32(len(payload)))
	if len(payload) < 4096 {
		// One write: small frames are most of them.
		_, err := w.Write(append(head[:], payload...))
		return err
	}
	if _, err := w.Write(head[:]); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// ReadFrame reads one frame, reusing buf for the payload when it is large
// enough.
func ReadFrame(r io.Reader, buf []byte) (typ byte, payload []byte, err error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, err
	}
	n := getUint32(head[1:])
	if n > MaxFrame {
		return 0, nil, ErrProtocol
	}
	if int(n) <= cap(buf) {
		payload = buf[:n]
	} else {
		payload = make([]byte, n)
	}
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, err
	}
	return head[0], payload, nil
}

// Reader reads frames through a buffer: a command's output is many small
// frames, and one read(2) each for header and payload would be most of a
// client's system calls.
type Reader struct {
	r          io.Reader
	buf        []byte
	start, end int
}

// NewReader reads frames from r with a buffer of size bytes.
func NewReader(r io.Reader, size int) *Reader { return &Reader{r: r, buf: make([]byte, size)} }

// Next returns the next frame. The payload is valid until the next call.
func (fr *Reader) Next() (typ byte, payload []byte, err error) {
	if err := fr.fill(5); err != nil {
		return 0, nil, err
	}
	typ = fr.buf[fr.start]
	n := int(getUint32(fr.buf[fr.start+1:]))
	if n > MaxFrame {
		return 0, nil, ErrProtocol
	}
	fr.start += 5
	if n > len(fr.buf) {
		// Larger than the buffer: read it whole into its own slice.
		payload = make([]byte, n)
		k := copy(payload, fr.buf[fr.start:fr.end])
		fr.start, fr.end = 0, 0
		if _, err := io.ReadFull(fr.r, payload[k:]); err != nil {
			return 0, nil, err
		}
		return typ, payload, nil
	}
	if err := fr.fill(n); err != nil {
		return 0, nil, err
	}
	payload = fr.buf[fr.start : fr.start+n]
	fr.start += n
	return typ, payload, nil
}

// Buffered reports whether a whole frame is already buffered, so that
// Next will not wait for the peer.
func (fr *Reader) Buffered() bool {
	if fr.end-fr.start < 5 {
		return false
	}
	n := int(getUint32(fr.buf[fr.start+1:]))
	return n <= len(fr.buf) && fr.end-fr.start >= 5+n
}

// fill makes n bytes available from fr.start, reading as much as the
// buffer takes.
func (fr *Reader) fill(n int) error {
	if fr.end-fr.start >= n {
		return nil
	}
	if fr.start > 0 {
		fr.end = copy(fr.buf, fr.buf[fr.start:fr.end])
		fr.start = 0
	}
	for fr.end < n {
		k, err := fr.r.Read(fr.buf[fr.end:])
		fr.end += k
		if fr.end >= n {
			return nil
		}
		if err != nil {
			if err == io.EOF && fr.end > 0 {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// ExitPayload and ExitCode encode the exit code of FrameExit.
func ExitPayload(code int) []byte { return appendUint32(nil, uint32(int32(code))) }

// ExitCode decodes FrameExit's payload.
func ExitCode(p []byte) int {
	if len(p) != 4 {
		return 1
	}
	return int(int32(getUint32(p)))
}

// The integer codings are encoding/binary's, written out: that package
// imports reflect, and depending on reflect would run this package's
// users' init after some fifty others (see the package doc).

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// uvarint decodes a uvarint from b: the value and the bytes read (0 if b
// is too short, negative on overflow).
func uvarint(b []byte) (uint64, int) {
	var v uint64
	var shift uint
	for i, c := range b {
		if i == 10 {
			return 0, -(i + 1)
		}
		if c < 0x80 {
			if i == 9 && c > 1 {
				return 0, -(i + 1)
			}
			return v | uint64(c)<<shift, i + 1
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

func appendUint32(b []byte, v uint32) []byte {
	return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func putUint32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func getUint32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
