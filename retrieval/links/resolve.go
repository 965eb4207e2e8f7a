package links

import (
	"path"
	"strings"
)

// Candidate is a document a link may name: one whose file name or alias
// has the link's key.
type Candidate struct {
	ID         int64
	Collection string
	RelPath    string
	// Alias marks a candidate found by a front-matter alias rather than
	// by its file name.
	Alias bool
}

// Resolve picks the document a link names, as Obsidian does: the exact
// path (relative to the vault root, then, for Markdown links, to the
// linking note's folder), then the file name without extension compared
// case-insensitively (one in the linking note's folder first, then the
// shortest path when several notes share it),
// then front-matter aliases. Wiki and Markdown links resolve within the
// source's collection; gno:// links name a collection themselves. cands
// are the documents whose key is Key(target); it returns 0 when none fits.
func Resolve(kind Kind, target, srcCol, srcRel string, cands []Candidate) int64 {
	if len(cands) == 0 {
		return 0
	}
	if kind == URI {
		rest := target[min(len(target), len("gno://")):]
		col, rel, _ := strings.Cut(rest, "/")
		col = strings.ToLower(col)
		for _, try := range []string{rel, rel + ".md"} {
			for _, c := range cands {
				if !c.Alias && c.Collection == col && c.RelPath == try {
					return c.ID
				}
			}
		}
		return 0
	}
	t := strings.ReplaceAll(target, "\\", "/")
	var exact []string
	dir := path.Dir(srcRel)
	if kind == Markdown && !strings.HasPrefix(t, "/") {
		exact = append(exact, path.Join(dir, t))
	}
	exact = append(exact, path.Clean(strings.TrimPrefix(t, "/")))
	if kind != Markdown && (strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../")) {
		exact = append(exact, path.Join(dir, t))
	}
	for _, e := range exact {
		if e == "." || strings.HasPrefix(e, "../") || e == ".." {
			continue
		}
		for _, try := range []string{e, e + ".md"} {
			for _, c := range cands {
				if !c.Alias && c.Collection == srcCol && c.RelPath == try {
					return c.ID
				}
			}
		}
	}
	// By name: a target with folders must match the end of the path.
	suffix := ""
	if strings.Contains(strings.Trim(t, "/"), "/") {
		suffix = strings.ToLower(stripNoteExt(strings.TrimLeft(path.Clean(t), "./")))
	}
	if suffix == "" {
		// A note of that name beside the source comes first.
		for _, c := range cands {
			if !c.Alias && c.Collection == srcCol && path.Dir(c.RelPath) == dir && strings.EqualFold(stripNoteExt(path.Base(c.RelPath)), strings.TrimSpace(stripNoteExt(t))) {
				return c.ID
			}
		}
	}
	if id := shortest(cands, srcCol, false, suffix); id != 0 {
		return id
	}
	if suffix != "" {
		return 0
	}
	return shortest(cands, srcCol, true, "")
}

func stripNoteExt(p string) string {
	if ext := path.Ext(p); noteExts[strings.ToLower(ext)] {
		return strings.TrimSuffix(p, ext)
	}
	return p
}

// shortest returns the candidate of col with the shortest path (then the
// first in byte order), among aliases or file names.
func shortest(cands []Candidate, col string, alias bool, suffix string) int64 {
	var best *Candidate
	for i := range cands {
		c := &cands[i]
		if c.Alias != alias || c.Collection != col {
			continue
		}
		if suffix != "" {
			p := strings.ToLower(stripNoteExt(c.RelPath))
			if p != suffix && !strings.HasSuffix(p, "/"+suffix) {
				continue
			}
		}
		if best == nil || len(c.RelPath) < len(best.RelPath) || len(c.RelPath) == len(best.RelPath) && c.RelPath < best.RelPath {
			best = c
		}
	}
	if best == nil {
		return 0
	}
	return best.ID
}
