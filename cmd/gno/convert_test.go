package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/convert"
	"github.com/gnosearch/gno/retrieval/convert/fixture"
)

func TestCLIConvertedDocuments(t *testing.T) {
	c := newCLI(t)
	root, code := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "a.md"), []byte("# A\n\nMarkdown still works.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "report.pdf"), fixture.PDF("Cover page.", "The pangolin census results."), 0o644)
	os.WriteFile(filepath.Join(root, "locked.pdf"), fixture.EncryptedPDF(), 0o644)
	os.WriteFile(filepath.Join(root, "tool.go"), []byte("package tool\n\nfunc Narwhal() {}\n"), 0o644)
	os.WriteFile(filepath.Join(code, "tool.go"), []byte("package tool\n\nfunc Narwhal() {}\n"), 0o644)

	c.ok("collection", "add", root, "--name", "docs")
	if out := c.ok("collection", "list"); !strings.Contains(out, convert.DefaultPattern) {
		t.Fatalf("default pattern not recorded: %s", out)
	}
	if out := c.ok("update"); !strings.Contains(out, "docs: 2 added") || !strings.Contains(out, "skipped 1 encrypted") {
		t.Fatalf("update: %s", out)
	}
	if out := c.ok("search", "pangolin"); !strings.Contains(out, "gno://docs/report.pdf:5 (page 2)") {
		t.Fatalf("search: %s", out)
	}
	if out := c.ok("search", "pangolin", "--json"); !strings.Contains(out, `"page": 2`) || !strings.Contains(out, `"mime": "application/pdf"`) {
		t.Fatalf("search --json: %s", out)
	}
	if out := c.ok("get", "docs/report.pdf", "--line-numbers", "--from", "5", "-l", "3"); out != "5: ## Page 2\n6: \n7: The pangolin census results.\n" {
		t.Fatalf("get: %q", out)
	}
	if out := c.ok("status"); !strings.Contains(out, "not converted: 1 encrypted") {
		t.Fatalf("status: %s", out)
	}
	if out := c.ok("search", "Narwhal"); strings.Contains(out, "tool.go") {
		t.Fatalf("code indexed without --code: %s", out)
	}
	c.ok("collection", "add", code, "--name", "src", "--code")
	c.ok("update")
	if out := c.ok("search", "Narwhal", "-c", "src"); !strings.Contains(out, "gno://src/tool.go") {
		t.Fatalf("--code: %s", out)
	}
}
