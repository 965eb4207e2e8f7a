package wire

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestRequestRoundTrip: a request decodes to itself.
func TestRequestRoundTrip(t *testing.T) {
	r := Request{Kind: KindCLI, Build: "b", IndexDir: "/i", ConfigFile: "/c.yml", ModelsDir: "/m", Index: "x", Config: "/c.yml",
		Env: "GNO_HOME=1f", Cwd: "/w", StdoutTTY: true, Width: 120, Args: []string{"search", "", "ünïcode", strings.Repeat("q", 300)}}
	got, err := ReadRequest(bytes.NewReader(r.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, r) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", *got, r)
	}
}

// TestReadRequestRefusesGarbage: truncated or foreign bytes are errors,
// never a panic or a huge allocation.
func TestReadRequestRefusesGarbage(t *testing.T) {
	good := (&Request{Kind: KindCLI, Args: []string{"ls"}}).Encode()
	for i := range len(good) {
		if _, err := ReadRequest(bytes.NewReader(good[:i])); err == nil {
			t.Errorf("truncated at %d: no error", i)
		}
	}
	bad := append([]byte("GNO\x01C"), 0xff, 0xff, 0xff, 0xff)
	if _, err := ReadRequest(bytes.NewReader(bad)); err == nil {
		t.Error("4 GB body: no error")
	}
	if _, err := ReadRequest(strings.NewReader("GET / HTTP/1.1\r\n\r\n")); err != ErrProtocol {
		t.Errorf("HTTP: %v", err)
	}
}

func FuzzReadRequest(f *testing.F) {
	f.Add((&Request{Kind: KindCLI, Args: []string{"search", "x"}}).Encode())
	f.Add([]byte("GNO\x01S\x00\x00\x00\x01\x0b"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ReadRequest(bytes.NewReader(b))
		if err == nil && !strings.HasPrefix(r.Build, "proto:") {
			// What decodes, re-encodes to itself.
			again, err := ReadRequest(bytes.NewReader(r.Encode()))
			if err != nil || !reflect.DeepEqual(again, r) {
				t.Fatalf("re-encoding differs: %+v %v", again, err)
			}
		}
	})
}

// TestFrames: frames of every size round-trip; the exit code keeps its
// sign.
func TestFrames(t *testing.T) {
	var buf bytes.Buffer
	payloads := [][]byte{nil, []byte("x"), bytes.Repeat([]byte("y"), 5000)}
	for _, p := range payloads {
		WriteFrame(&buf, FrameStdout, p)
	}
	WriteFrame(&buf, FrameExit, ExitPayload(-3))
	for _, p := range payloads {
		typ, got, err := ReadFrame(&buf, make([]byte, 16))
		if err != nil || typ != FrameStdout || !bytes.Equal(got, p) {
			t.Fatalf("frame %d bytes: %c %d %v", len(p), typ, len(got), err)
		}
	}
	typ, p, _ := ReadFrame(&buf, nil)
	if typ != FrameExit || ExitCode(p) != -3 {
		t.Fatalf("exit frame %c %v", typ, p)
	}
}

// TestIntegerCodings: the hand-written codings are encoding/binary's.
func TestIntegerCodings(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 1 << 32, math.MaxUint64} {
		if got, want := appendUvarint(nil, v), binary.AppendUvarint(nil, v); !bytes.Equal(got, want) {
			t.Errorf("appendUvarint(%d) = %x, want %x", v, got, want)
		}
		b := binary.AppendUvarint(nil, v)
		if got, n := uvarint(b); got != v || n != len(b) {
			t.Errorf("uvarint(%x) = %d, %d", b, got, n)
		}
	}
	for _, b := range [][]byte{{0x80}, bytes.Repeat([]byte{0xff}, 11), append(bytes.Repeat([]byte{0xff}, 9), 2)} {
		v1, n1 := uvarint(b)
		v2, n2 := binary.Uvarint(b)
		if v1 != v2 || n1 != n2 {
			t.Errorf("uvarint(%x) = %d, %d; binary says %d, %d", b, v1, n1, v2, n2)
		}
	}
	if got := appendUint32(nil, 0xdeadbeef); getUint32(got) != 0xdeadbeef || !bytes.Equal(got, binary.BigEndian.AppendUint32(nil, 0xdeadbeef)) {
		t.Errorf("uint32 %x", got)
	}
}

// TestEnvSig: only the variables that matter count, in name order, and
// values never appear.
func TestEnvSig(t *testing.T) {
	a := EnvSig([]string{"PATH=/bin", "TZ=UTC", "GNO_HOME=/h", "OPENAI_API_KEY=sk-secret", "http_proxy=p"})
	if strings.Contains(a, "PATH") || strings.Contains(a, "sk-secret") {
		t.Fatalf("sig %q", a)
	}
	var names []string
	for _, kv := range strings.Split(a, ";") {
		names = append(names, strings.SplitN(kv, "=", 2)[0])
	}
	if !reflect.DeepEqual(names, []string{"GNO_HOME", "OPENAI_API_KEY", "TZ", "http_proxy"}) {
		t.Fatalf("names %v", names)
	}
	if b := EnvSig([]string{"http_proxy=p", "GNO_HOME=/h", "OPENAI_API_KEY=sk-secret", "TZ=UTC"}); a != b {
		t.Errorf("order matters: %q vs %q", a, b)
	}
	if b := EnvSig([]string{"GNO_HOME=/h", "OPENAI_API_KEY=other", "TZ=UTC", "http_proxy=p"}); a == b {
		t.Error("a changed key gives the same signature")
	}
}

// TestNumbers: the written-out helpers agree with strconv.
func TestNumbers(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 9, 10, 1234567890, math.MaxInt64, math.MinInt64 + 1} {
		if got := itoa(n); got != strconv.FormatInt(n, 10) {
			t.Errorf("itoa(%d) = %q", n, got)
		}
	}
	for _, u := range []uint64{0, 1, 15, 16, 0xdeadbeef, math.MaxUint64} {
		if got := hex(u); got != strconv.FormatUint(u, 16) {
			t.Errorf("hex(%d) = %q", u, got)
		}
	}
	for _, s := range []string{"0", "80", "120", "", "-3", "1x"} {
		want, err := strconv.Atoi(s)
		if err != nil || want < 0 {
			want = 0
		}
		if got := atoi(s); got != want {
			t.Errorf("atoi(%q) = %d", s, got)
		}
	}
}

// TestReader: frames of every size, in a stream cut anywhere, read back
// whole and in order; Buffered says when a frame is already there.
func TestReader(t *testing.T) {
	var buf bytes.Buffer
	var want []string
	for i, size := range []int{0, 1, 7, 100, 63, 64, 65, 5000, 3} {
		p := bytes.Repeat([]byte{byte('a' + i)}, size)
		WriteFrame(&buf, FrameStdout+byte(i%2), p)
		want = append(want, string(p))
	}
	WriteFrame(&buf, FrameExit, ExitPayload(7))
	all := buf.Bytes()
	for _, chunk := range []int{1, 3, 64, 1 << 20} {
		fr := NewReader(&chunked{b: append([]byte(nil), all...), n: chunk}, 64)
		for i, w := range want {
			typ, p, err := fr.Next()
			if err != nil || string(p) != w || typ != FrameStdout+byte(i%2) {
				t.Fatalf("chunk %d, frame %d: %c %d bytes, %v", chunk, i, typ, len(p), err)
			}
		}
		if typ, p, err := fr.Next(); typ != FrameExit || ExitCode(p) != 7 || err != nil {
			t.Fatalf("chunk %d: exit frame %c %v %v", chunk, typ, p, err)
		}
		if _, _, err := fr.Next(); err == nil {
			t.Fatalf("chunk %d: no error at the end", chunk)
		}
	}
	fr := NewReader(bytes.NewReader(all), 1<<16)
	fr.Next()
	if !fr.Buffered() {
		t.Error("Buffered is false with the whole stream read")
	}
}

// chunked returns at most n bytes per Read.
type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}
