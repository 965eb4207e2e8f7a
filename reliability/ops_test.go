package reliability

import (
	"fmt"
	"math/rand/v2"
)

// fileState is the content of one note path after a write, nil for "no
// such file".
type fileState map[string]*string

func some(s string) *string { return &s }

// writeOp is one MCP tool that writes a user's notes. The crash harness
// kills a server in the middle of each, the concurrency harness runs them
// under readers, the hostile harness throws bad paths at pathArgs.
//
// The note write tools (gno_update, gno_delete, gno_rename) slot in here
// as one entry each: a plan that edits, removes or moves the existing note
// rel, and the states its files may be in after a kill (old or new,
// never a mix and never a truncated file).
type writeOp struct {
	name     string
	tool     string
	pathArgs []string
	// plan returns the arguments of one call that writes into the notes
	// folder (rel is an existing note holding old) and every state of the
	// files it touches that is acceptable after the call is killed.
	plan func(rng *rand.Rand, rel, old string) (args map[string]any, allowed []fileState)
}

// writeOps lists the write tools; gno_capture is the first.
var writeOps = []writeOp{
	{
		name: "capture-overwrite", tool: "gno_capture", pathArgs: []string{"path", "collection"},
		plan: func(rng *rand.Rand, rel, old string) (map[string]any, []fileState) {
			body := note(rng, 9000+rng.IntN(1000), 99) + bigTail(rng)
			return map[string]any{"collection": "notes", "path": rel, "content": body, "overwrite": true},
				[]fileState{{rel: some(old)}, {rel: some(body)}}
		},
	},
	{
		name: "capture-new", tool: "gno_capture", pathArgs: []string{"path", "collection"},
		plan: func(rng *rand.Rand, _, _ string) (map[string]any, []fileState) {
			rel := fmt.Sprintf("captured/new-%d.md", rng.IntN(1<<30))
			body := note(rng, 8000+rng.IntN(1000), 1) + bigTail(rng)
			return map[string]any{"collection": "notes", "path": rel, "content": body},
				[]fileState{{rel: nil}, {rel: some(body)}}
		},
	},
}

// bigTail makes some writes large enough (up to ~200 KB) that a kill can
// land while the bytes are going out.
func bigTail(rng *rand.Rand) string {
	if rng.IntN(2) == 0 {
		return ""
	}
	n := rng.IntN(4000)
	b := make([]byte, 0, n*50)
	for i := range n {
		b = fmt.Appendf(b, "line %d of a long captured note about durability\n", i)
	}
	return string(b)
}
