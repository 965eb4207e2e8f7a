package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/klippa-app/go-pdfium"
	pdferr "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// PDF text comes from PDFium (the engine of Chrome's viewer) compiled to
// WebAssembly and run by wazero: no cgo, and PDFium's text extraction
// keeps words and reading order where pure-Go readers split words and
// scramble lines (see README). The module is compiled once per process,
// lazily, with the compiled code cached on disk.

// pdfMemoryPages caps one PDFium instance's memory (64 KiB pages: 1 GiB).
const pdfMemoryPages = 16384

var pdfPool struct {
	once sync.Once
	pool pdfium.Pool
	err  error
}

func pdfiumPool() (pdfium.Pool, error) {
	pdfPool.once.Do(func() {
		// The PDFium build uses WebAssembly exception handling.
		rc := wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
			WithCloseOnContextDone(true).WithMemoryLimitPages(pdfMemoryPages)
		if dir, err := os.UserCacheDir(); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "gno", "wazero")); err == nil {
				rc = rc.WithCompilationCache(cache)
			}
		}
		n := runtime.GOMAXPROCS(0)
		// PDFium writes warnings to stdout; an MCP server's stdout is
		// JSON-RPC only.
		pdfPool.pool, pdfPool.err = webassembly.Init(webassembly.Config{
			MinIdle: 0, MaxIdle: n, MaxTotal: n, ReuseWorkers: true,
			RuntimeConfig: rc, Stdout: io.Discard, Stderr: io.Discard,
			FSConfig: wazero.NewFSConfig(),
		})
	})
	return pdfPool.pool, pdfPool.err
}

// PDF converts a PDF: a "## Page N" section per page with the page's text
// in reading order, so that a chunk's heading names its page. Encrypted
// PDFs, PDFs with no text (scans) and PDFs of more than Limits.MaxPages
// pages are skipped.
func PDF(ctx context.Context, data []byte, lim Limits) (*Doc, error) {
	if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return nil, fail(ReasonCorrupt, "no PDF header")
	}
	pool, err := pdfiumPool()
	if err != nil {
		return nil, &Error{Reason: ReasonEngine, Err: fmt.Errorf("start PDF engine: %w", err)}
	}
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		return nil, &Error{Reason: ReasonTimeout, Err: err}
	}
	// A page that makes PDFium spin is stopped by killing its instance at
	// the deadline; a killed instance is not returned to the pool.
	done := make(chan struct{})
	var killed bool
	var mu sync.Mutex
	go func() {
		select {
		case <-ctx.Done():
			mu.Lock()
			killed = true
			mu.Unlock()
			inst.Kill()
		case <-done:
		}
	}()
	defer func() {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		if !killed {
			inst.Close()
		}
	}()
	doc, err := pdfText(ctx, inst, data, lim)
	if err != nil && ctx.Err() != nil {
		return nil, &Error{Reason: ReasonTimeout, Err: ctx.Err()}
	}
	return doc, err
}

func pdfText(ctx context.Context, inst pdfium.Pdfium, data []byte, lim Limits) (*Doc, error) {
	od, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		if errors.Is(err, pdferr.ErrPassword) || errors.Is(err, pdferr.ErrSecurity) {
			return nil, fail(ReasonEncrypted, "a password is needed to open it")
		}
		return nil, &Error{Reason: ReasonCorrupt, Err: err}
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: od.Document})
	pc, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: od.Document})
	if err != nil {
		return nil, &Error{Reason: ReasonCorrupt, Err: err}
	}
	if pc.PageCount > lim.MaxPages {
		return nil, fail(ReasonTooBig, "%d pages, more than %d", pc.PageCount, lim.MaxPages)
	}
	if pc.PageCount == 0 {
		return nil, fail(ReasonNoText, "no pages")
	}
	var out strings.Builder
	letters := 0
	for i := 0; i < pc.PageCount; i++ {
		if err := ctx.Err(); err != nil {
			return nil, &Error{Reason: ReasonTimeout, Err: err}
		}
		if i > 0 {
			out.WriteString("\n")
		}
		fmt.Fprintf(&out, "## Page %d\n\n", i+1)
		t, err := inst.GetPageText(&requests.GetPageText{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: od.Document, Index: i}}})
		if err != nil {
			continue // one bad page keeps its marker and loses only its text
		}
		text := pdfPageText(t.Text)
		for _, r := range text {
			if r > ' ' {
				letters++
			}
		}
		if text != "" {
			out.WriteString(text)
			out.WriteString("\n")
		}
		if int64(out.Len()) > lim.MaxTotalBytes {
			return nil, fail(ReasonTooBig, "text past %d bytes", lim.MaxTotalBytes)
		}
	}
	if letters < 16 {
		return nil, fail(ReasonNoText, "%d pages without text (a scan?)", pc.PageCount)
	}
	title := ""
	if m, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: od.Document, Tag: "Title"}); err == nil {
		title = strings.TrimSpace(m.Value)
	}
	return &Doc{Markdown: out.String(), Title: title, Pages: pc.PageCount}, nil
}

// pdfPageText cleans one page of PDFium text: LF line ends, soft hyphens
// (U+0002, a hyphen PDFium found at a line end) joined, blank runs
// collapsed, Markdown structure escaped.
func pdfPageText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\x02\n", "")
	s = strings.ReplaceAll(s, "\x02", "")
	lines := strings.Split(escapeText(s), "\n")
	out := lines[:0]
	blank := true
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, l)
		blank = false
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
