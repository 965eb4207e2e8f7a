package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

// Page weight: every embedded asset is served gzipped to a browser that
// accepts it (compressed once, on first request, at the best level, and
// kept), with a content ETag and an hour's caching, and every page's
// HTML is gzipped as it is written. bench/RESULTS.md ("Web workspace")
// has the bytes per page.

// asset is one embedded file, plain and gzipped.
type asset struct {
	raw, gz []byte
	etag    string
	ctype   string
}

// assetCache compresses each asset once.
type assetCache struct {
	mu   sync.Mutex
	byID map[string]*asset
}

// get returns the asset at name (under assets/), or nil.
func (c *assetCache) get(name string) *asset {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.byID[name]; ok {
		return a
	}
	raw, err := fs.ReadFile(files, "assets/"+name)
	if err != nil {
		return nil
	}
	sum := sha256.Sum256(raw)
	a := &asset{raw: raw, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ctype: mime.TypeByExtension(path.Ext(name))}
	if a.ctype == "" {
		a.ctype = "application/octet-stream"
	}
	if gz := gzipBytes(raw, gzip.BestCompression); len(gz) < len(raw) {
		a.gz = gz
	}
	if c.byID == nil {
		c.byID = map[string]*asset{}
	}
	c.byID[name] = a
	return a
}

// serveAsset answers GET /assets/NAME.
func (c *assetCache) serveAsset(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/assets/")
	a := c.get(name)
	if a == nil || name == "" || strings.HasSuffix(name, "/") {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", "public, max-age=3600")
	writeVersioned(w, r, a.etag, a.raw, a.gz)
}

// writeVersioned sends one version of a body under its ETag: 304 when the
// request already holds it, else the gzipped form (gz, when there is one)
// to a client that takes it, raw otherwise; no body for HEAD. The caller
// sets Content-Type and Cache-Control. Assets and graph scenes both come
// pre-compressed, so nothing is compressed per request.
func writeVersioned(w http.ResponseWriter, r *http.Request, etag string, raw, gz []byte) {
	h := w.Header()
	h.Set("Vary", "Accept-Encoding")
	h.Set("ETag", etag)
	if strings.Contains(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := raw
	if gz != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = gz
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// acceptsGzip reports whether the request takes a gzipped body.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") {
			q = strings.ReplaceAll(strings.TrimSpace(q), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

// gzipBytes compresses b at level.
func gzipBytes(b []byte, level int) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, level)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// gzipPool recycles the writers pages are compressed with.
var gzipPool = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return zw
}}

// writeCompressed writes a response body of type ctype, gzipped when
// the client accepts it and the body is worth it (over a packet).
func writeCompressed(w http.ResponseWriter, r *http.Request, status int, ctype string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Add("Vary", "Accept-Encoding")
	if len(body) > 1400 && acceptsGzip(r) {
		var buf bytes.Buffer
		zw := gzipPool.Get().(*gzip.Writer)
		zw.Reset(&buf)
		_, _ = zw.Write(body)
		_ = zw.Close()
		gzipPool.Put(zw)
		h.Set("Content-Encoding", "gzip")
		body = buf.Bytes()
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
