package capbuf

import (
	"io"
	"strings"
	"testing"
)

// os/exec copies a command's output with io.Copy: the bound holds there
// too (an embedded bytes.Buffer's ReadFrom once went around it).
func TestCopyBounded(t *testing.T) {
	b := New(10)
	if _, err := io.Copy(b, strings.NewReader(strings.Repeat("x", 100))); err != nil {
		t.Fatal(err)
	}
	if len(b.Bytes()) != 10 || !b.Over() {
		t.Errorf("kept %d bytes, over %v", len(b.Bytes()), b.Over())
	}
	small := New(10)
	if _, err := io.Copy(small, strings.NewReader("abc")); err != nil || small.String() != "abc" || small.Over() {
		t.Errorf("small write: %q over %v, %v", small.String(), small.Over(), err)
	}
}
