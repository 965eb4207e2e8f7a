package convert

import (
	"bytes"
	"context"
	"sort"
	"strings"
)

// codeLangs maps source extensions to fence languages. Code is taken only
// by collections that opt in (collection option code: true).
var codeLangs = map[string]string{
	".go": "go", ".py": "python", ".js": "javascript", ".mjs": "javascript", ".ts": "typescript",
	".tsx": "tsx", ".jsx": "jsx", ".java": "java", ".kt": "kotlin", ".rs": "rust", ".c": "c",
	".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp", ".rb": "ruby",
	".php": "php", ".swift": "swift", ".scala": "scala", ".sh": "bash", ".bash": "bash",
	".sql": "sql", ".lua": "lua", ".r": "r", ".pl": "perl", ".hs": "haskell", ".ex": "elixir",
	".erl": "erlang", ".clj": "clojure", ".dart": "dart", ".zig": "zig", ".yaml": "yaml",
	".yml": "yaml", ".toml": "toml", ".json": "json", ".proto": "protobuf", ".css": "css",
	".scss": "scss", ".vue": "vue", ".svelte": "svelte", ".tf": "hcl", ".nix": "nix",
}

// CodeExtensions lists the source extensions a collection with code: true
// takes (without dots).
func CodeExtensions() []string {
	out := make([]string, 0, len(codeLangs))
	for e := range codeLangs {
		out = append(out, e[1:])
	}
	return out
}

// codeConverter fences source code with its language. The fence is one
// backtick longer than any backtick run in the code, so code that holds
// fences itself stays one block.
func codeConverter(lang string) Func {
	return func(_ context.Context, data []byte, _ Limits) (*Doc, error) {
		if bytes.IndexByte(data, 0) >= 0 {
			return nil, fail(ReasonCorrupt, "binary content")
		}
		fence := strings.Repeat("`", max(3, longestRun(data, '`')+1))
		var b strings.Builder
		b.Grow(len(data) + 2*len(fence) + len(lang) + 3)
		b.WriteString(fence + lang + "\n")
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
		b.WriteString(fence + "\n")
		return &Doc{Markdown: b.String()}, nil
	}
}

func longestRun(data []byte, c byte) int {
	best, run := 0, 0
	for _, x := range data {
		if x == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// DefaultCodePattern is DefaultPattern with the source extensions added,
// for a collection that takes code.
func DefaultCodePattern() string {
	exts := append(append([]string(nil), DefaultExtensions...), CodeExtensions()...)
	sort.Strings(exts)
	return "**/*.{" + strings.Join(exts, ",") + "}"
}
