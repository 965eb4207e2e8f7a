package apidoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode/utf8"
)

func readDirNames(fsys fs.FS, dir string) ([]string, error) {
	es, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(es))
	for _, e := range es {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// isBinary: a NUL in the first 8 KiB, as git decides.
func isBinary(b []byte) bool {
	if len(b) > 8192 {
		b = b[:8192]
	}
	return bytes.IndexByte(b, 0) >= 0
}

// validUTF8 returns b as a string, invalid bytes replaced by U+FFFD and
// warned: the index stores valid UTF-8 only.
func validUTF8(x *extractor, name string, b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	x.warn(name, "invalid UTF-8 replaced")
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// docDirs hold prose documentation (site/content is Hugo's, website/docs
// Docusaurus'); exampleDirs hold examples.
var (
	docDirs     = []string{"docs", "doc", "documentation", "site/content", "website/docs"}
	exampleDirs = []string{"examples", "example", "_examples"}
)

var docExts = map[string]string{".md": "md", ".markdown": "md", ".mdx": "md", ".rst": "rst", ".txt": "txt", ".adoc": "txt"}

// codeLangs are the example files read, by extension, with their fence language.
var codeLangs = map[string]string{
	".go": "go", ".js": "js", ".mjs": "js", ".cjs": "js", ".ts": "ts", ".mts": "ts", ".cts": "ts", ".tsx": "tsx",
	".jsx": "jsx", ".py": "python", ".pyi": "python", ".rs": "rust", ".swift": "swift", ".sh": "sh", ".toml": "toml",
	".json": "json", ".yaml": "yaml", ".yml": "yaml",
}

// docFiles adds prose under the doc folders and files under the example
// folders. Nested packages (node_modules, vendor) are not the package's.
func (x *extractor) docFiles() {
	skip := func(d string) bool {
		b := path.Base(d)
		return b == "node_modules" || b == "vendor" || b == "testdata" || strings.HasPrefix(b, ".")
	}
	for _, d := range docDirs {
		x.walk(d, skip, func(name string) {
			kind, ok := docExts[ext(name)]
			if !ok || x.files >= x.lim.MaxFiles {
				return
			}
			x.files++
			s, ok := x.textFile(name)
			if !ok {
				return
			}
			title := firstTitle(s, kind, path.Base(name))
			x.add(Unit{Kind: KindDoc, Path: name, Title: title, Text: s, File: name})
		})
	}
	for _, d := range exampleDirs {
		x.walk(d, skip, func(name string) {
			e := ext(name)
			lang, code := codeLangs[e]
			kind, prose := docExts[e]
			if (!code && !prose) || x.files >= x.lim.MaxFiles {
				return
			}
			x.files++
			s, ok := x.textFile(name)
			if !ok {
				return
			}
			title := name
			text := s
			if prose {
				title = firstTitle(s, kind, name)
			} else {
				text = "# " + name + "\n\n" + fence(lang, s)
			}
			x.add(Unit{Kind: KindExample, Path: name, Title: title, Text: text, File: name})
		})
	}
}

// textFile reads a whole doc or example file; a binary or oversized one
// is warned and left out.
func (x *extractor) textFile(name string) (string, bool) {
	data, _, err := x.readFile(name, false)
	if err != nil {
		x.warn(name, "not read: %v", cleanErr(err))
		return "", false
	}
	if isBinary(data) {
		x.warn(name, "binary content: left out")
		return "", false
	}
	s := validUTF8(x, name, data)
	if strings.TrimSpace(s) == "" {
		return "", false
	}
	return s, true
}

// lineIndex answers the 1-based line of a byte offset in O(log n).
type lineIndex []int

func newLineIndex(s string) lineIndex {
	idx := lineIndex{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (l lineIndex) line(off int) int {
	lo, hi := 0, len(l)
	for lo+1 < hi {
		m := (lo + hi) / 2
		if l[m] <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return lo + 1
}

// dedent removes the indentation common to all non-blank lines.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	min := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if min < 0 || n < min {
			min = n
		}
	}
	if min <= 0 {
		return s
	}
	for i, l := range lines {
		if len(l) >= min {
			lines[i] = l[min:]
		} else {
			lines[i] = strings.TrimLeft(l, " \t")
		}
	}
	return strings.Join(lines, "\n")
}

// sigText is src[from:to] trimmed, the lines after the first losing the
// first line's indentation: a nested multi-line signature reads as if
// written at the margin.
func sigText(src string, from, to int) string {
	if from < 0 || to > len(src) || from >= to {
		return ""
	}
	s := strings.TrimSpace(src[from:to])
	col := from - lineStart(src, from)
	if col == 0 || !strings.Contains(s, "\n") {
		return cutSig(s)
	}
	lines := strings.Split(s, "\n")
	for k := 1; k < len(lines); k++ {
		n := 0
		for n < col && n < len(lines[k]) && (lines[k][n] == ' ' || lines[k][n] == '\t') {
			n++
		}
		lines[k] = lines[k][n:]
	}
	return cutSig(strings.Join(lines, "\n"))
}

// budget reports whether n more bytes may be read, warning once when not.
func (x *extractor) budget(file string, n int64) bool {
	if x.read+n > x.lim.MaxTotalBytes {
		x.warn(file, "package read limit %d bytes reached: left out", x.lim.MaxTotalBytes)
		return false
	}
	return true
}

// readFile reads a regular file inside the package. Whole reports whether
// it was read to the end; past MaxFileBytes only a prefix is returned
// when prefix is set (sources), else nothing (docs).
func (x *extractor) readFile(name string, prefix bool) (data []byte, whole bool, err error) {
	f, err := x.root.Open(name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() {
		return nil, false, fmt.Errorf("not a regular file")
	}
	size := st.Size()
	whole = true
	if size > x.lim.MaxFileBytes {
		if !prefix {
			return nil, false, fmt.Errorf("%d bytes, over the %d-byte limit", size, x.lim.MaxFileBytes)
		}
		size, whole = x.lim.MaxFileBytes, false
	}
	if !x.budget(name, size) {
		return nil, false, fmt.Errorf("package read limit reached")
	}
	data = make([]byte, size)
	n, err := io.ReadFull(f, data)
	x.read += int64(n)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) { // a file that shrank is read as it is now
		return nil, false, err
	}
	return data[:n], whole, nil
}

// source reads a source file for a parser: a prefix past MaxFileBytes
// (warned), nothing past MaxFiles. Invalid UTF-8 is replaced so that
// every Unit's text is valid.
func (x *extractor) source(name string) (string, bool) {
	if x.ctx.Err() != nil {
		return "", false
	}
	if x.files >= x.lim.MaxFiles {
		if x.files == x.lim.MaxFiles {
			x.warn(name, "file limit %d reached: the rest of the sources are left out", x.lim.MaxFiles)
			x.files++
		}
		return "", false
	}
	x.files++
	data, whole, err := x.readFile(name, true)
	if err != nil {
		x.warn(name, "not read: %v", cleanErr(err))
		return "", false
	}
	if isBinary(data) {
		x.warn(name, "binary content: left out")
		return "", false
	}
	if !whole {
		x.warn(name, "larger than %d bytes: only the first %d parsed", x.lim.MaxFileBytes, x.lim.MaxFileBytes)
	}
	return validUTF8(x, name, data), true
}

// cleanErr drops the absolute package path from an error: warnings name
// files relative to Dir.
func cleanErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// walk lists regular files under dir (slash path, "." for the root) in
// lexical order, skipping folders skip says to. Links are listed only
// when they stay inside the package; one out of it is warned and left.
func (x *extractor) walk(dir string, skip func(dir string) bool, fn func(name string)) {
	_ = fs.WalkDir(x.fsys, dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if name != dir || !errors.Is(err, fs.ErrNotExist) {
				x.warn(name, "not listed: %v", cleanErr(err))
			}
			return nil
		}
		if x.ctx.Err() != nil {
			return fs.SkipAll
		}
		if d.IsDir() {
			if name != dir && skip != nil && skip(name) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			st, err := x.root.Stat(name)
			if err != nil {
				x.warn(name, "link not followed: %v", cleanErr(err))
				return nil
			}
			if !st.Mode().IsRegular() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		fn(name)
		return nil
	})
}
