package packages

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type entry struct {
	name     string
	body     string
	typ      byte
	linkname string
}

func tarGz(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.linkname, Mode: 0o644, Size: int64(len(e.body))}
		if e.typ == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(e.body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func TestUnpackTarGz(t *testing.T) {
	base := t.TempDir()
	dst := filepath.Join(base, "pkg@1.0.0")
	data := tarGz(t,
		entry{name: "package/package.json", body: `{"name":"x","version":"1.0.0"}`},
		entry{name: "package/lib/", typ: tar.TypeDir},
		entry{name: "package/lib/index.d.ts", body: "export {}"},
		entry{name: "package/evil-link", typ: tar.TypeSymlink, linkname: "/etc/passwd"},
		entry{name: "package/hard", typ: tar.TypeLink, linkname: "/etc/passwd"},
		entry{name: "package/big.bin", body: strings.Repeat("x", 2000)},
		entry{name: "package/./lib/../ok.md", body: "ok"},
	)
	lim := unpackLimits{maxFile: 1000, maxTotal: 1 << 20, maxEntries: 100}
	if err := unpackTarGz(bytes.NewReader(data), dst, 1, lim); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package.json", "lib/index.d.ts", "ok.md"} {
		if _, err := os.Stat(filepath.Join(dst, filepath.FromSlash(f))); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	for _, f := range []string{"evil-link", "hard", "big.bin"} {
		if _, err := os.Lstat(filepath.Join(dst, f)); err == nil {
			t.Errorf("%s written: links and files over the limit are skipped", f)
		}
	}

	for name, tc := range map[string]struct {
		entries []entry
		lim     unpackLimits
	}{
		"climbs out":    {[]entry{{name: "package/ok", body: "1"}, {name: "package/../../escape", body: "x"}}, lim},
		"absolute":      {[]entry{{name: "/etc/cron.d/x", body: "x"}}, lim},
		"too many":      {[]entry{{name: "a/1", body: "1"}, {name: "a/2", body: "2"}, {name: "a/3", body: "3"}}, unpackLimits{maxFile: 10, maxTotal: 100, maxEntries: 2}},
		"expands past":  {[]entry{{name: "a/1", body: strings.Repeat("x", 60)}, {name: "a/2", body: strings.Repeat("x", 60)}}, unpackLimits{maxFile: 100, maxTotal: 100, maxEntries: 10}},
		"windows drive": {[]entry{{name: "C:\\Windows\\x", body: "x"}}, lim},
	} {
		t.Run(name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out")
			err := unpackTarGz(bytes.NewReader(tarGz(t, tc.entries...)), dst, 1, tc.lim)
			if !errors.Is(err, errUnsafeArchive) {
				t.Fatalf("want an unsafe-archive error, got %v", err)
			}
			if _, err := os.Stat(dst); err == nil {
				t.Errorf("a refused archive left %s behind", dst)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dst), "..", "escape")); err == nil {
				t.Errorf("an entry escaped")
			}
		})
	}
	if err := unpackTarGz(strings.NewReader("not gzip"), filepath.Join(base, "bad"), 1, lim); err == nil {
		t.Errorf("garbage accepted")
	}
}

func TestUnpackZip(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, build func(zw *zip.Writer)) string {
		p := filepath.Join(dir, name)
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		build(zw)
		zw.Close()
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p
	}
	add := func(zw *zip.Writer, name, body string) {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	lim := unpackLimits{maxFile: 1000, maxTotal: 1 << 20, maxEntries: 100}
	good := mk("good.whl", func(zw *zip.Writer) {
		add(zw, "six.py", "x = 1\n")
		add(zw, "six-1.16.0.dist-info/METADATA", "Name: six\nVersion: 1.16.0\n")
		h := &zip.FileHeader{Name: "link"}
		h.SetMode(os.ModeSymlink | 0o777)
		w, _ := zw.CreateHeader(h)
		w.Write([]byte("/etc/passwd"))
	})
	dst := filepath.Join(dir, "six-1.16.0")
	if err := unpackZip(good, dst, lim); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "six-1.16.0.dist-info", "METADATA")); err != nil {
		t.Error(err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "link")); err == nil {
		t.Errorf("a symlink entry was written")
	}

	evil := mk("evil.whl", func(zw *zip.Writer) { add(zw, "../../evil.py", "x") })
	if err := unpackZip(evil, filepath.Join(dir, "evil"), lim); !errors.Is(err, errUnsafeArchive) {
		t.Errorf("traversal: %v", err)
	}
	// A header that understates the size: the content past it refuses
	// the archive.
	liar := mk("liar.whl", func(zw *zip.Writer) {
		body := []byte(strings.Repeat("x", 500))
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: "a.py", Method: zip.Store, CRC32: crc32.ChecksumIEEE(body),
			CompressedSize64: uint64(len(body)), UncompressedSize64: 1})
		w.Write(body)
	})
	if err := unpackZip(liar, filepath.Join(dir, "liar"), lim); err == nil {
		t.Errorf("a lying header was accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "liar")); err == nil {
		t.Errorf("a refused archive was left behind")
	}
}
