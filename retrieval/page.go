package retrieval

import (
	"strconv"
	"strings"
)

// pageOf reads the page a PDF chunk starts on from its heading path: the
// PDF mirror has a "## Page N" heading per page (retrieval/convert).
func pageOf(headings string) int {
	parts := strings.Split(headings, " > ")
	for i := len(parts) - 1; i >= 0; i-- {
		if n, ok := strings.CutPrefix(parts[i], "Page "); ok {
			if p, err := strconv.Atoi(n); err == nil && p > 0 {
				return p
			}
		}
	}
	return 0
}
