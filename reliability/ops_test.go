package reliability

import (
	"fmt"
	"math/rand/v2"
	"regexp"
)

// fileState is the content of one note path after a write, nil for "no
// such file".
type fileState map[string]*string

func some(s string) *string { return &s }

// writeOp is one MCP tool that writes a user's notes. The crash harness
// kills a server in the middle of each, the concurrency harness runs them
// under readers, the hostile harness throws bad paths at pathArgs.
//
// The note tools (gno_update, gno_delete, gno_rename) edit, remove or
// move the existing note rel; the states its files may be in after a kill
// are old or new, never a mix and never a truncated file.
type writeOp struct {
	name     string
	tool     string
	pathArgs []string
	// plan returns the arguments of one call that writes into the notes
	// folder (rel is an existing note holding old) and every state of the
	// files it touches that is acceptable after the call is killed.
	plan func(rng *rand.Rand, rel, old string) (args map[string]any, allowed []fileState)
	// relinks: the call may rewrite link targets in any note (a rename
	// with updateLinks), so notes compare with their links blanked.
	relinks bool
}

var (
	wikiTarget = regexp.MustCompile(`\[\[[^\]\n]*\]\]`)
	mdTarget   = regexp.MustCompile(`\]\([^)\n]*\)`)
)

// blankLinks replaces every link target by an empty one.
func blankLinks(s string) string {
	return mdTarget.ReplaceAllString(wikiTarget.ReplaceAllString(s, "[[]]"), "]()")
}

// writeOps lists the write tools.
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
	{
		// Content with its own front matter replaces the whole file.
		name: "note-update", tool: "gno_update", pathArgs: []string{"ref"},
		plan: func(rng *rand.Rand, rel, old string) (map[string]any, []fileState) {
			body := "---\ntitle: Updated\n---\n" + note(rng, 7000+rng.IntN(1000), 98) + bigTail(rng)
			return map[string]any{"ref": "notes/" + rel, "content": body},
				[]fileState{{rel: some(old)}, {rel: some(body)}}
		},
	},
	{
		name: "note-rename", tool: "gno_rename", pathArgs: []string{"ref", "newPath"},
		plan: func(rng *rand.Rand, rel, old string) (map[string]any, []fileState) {
			to := fmt.Sprintf("moved/m-%d.md", rng.IntN(1<<30))
			return map[string]any{"ref": "notes/" + rel, "newPath": to, "updateLinks": true},
				[]fileState{{rel: some(old), to: nil}, {rel: nil, to: some(old)}}
		},
		relinks: true,
	},
	{
		name: "note-delete", tool: "gno_delete", pathArgs: []string{"ref"},
		plan: func(_ *rand.Rand, rel, old string) (map[string]any, []fileState) {
			return map[string]any{"ref": "notes/" + rel},
				[]fileState{{rel: some(old)}, {rel: nil}}
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
