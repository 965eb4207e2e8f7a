package retrieval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gnosearch/gno/retrieval/ref"
)

// gitDiffs is git's own unified diff of each file, split per file: the
// work tree against the merge base of the change set (git diff
// --merge-base BASE), and for a file git does not track yet `git diff
// --no-index /dev/null FILE`; binary and large files are named instead.
// It reads nothing of the index: callers run it outside their read
// snapshot.
func (n *Notes) gitDiffs(ctx context.Context, cs *changeSet, files []ChangedFile, out *DiffResult) ([]filePart, error) {
	cfg := n.e.Config()
	byCol := map[string][]ChangedFile{}
	var cols []string
	for _, f := range files {
		if byCol[f.collection] == nil {
			cols = append(cols, f.collection)
		}
		byCol[f.collection] = append(byCol[f.collection], f)
	}
	sort.Strings(cols)
	var parts []filePart
	for _, c := range cols {
		col, ok := cfg.Collection(c)
		mb := cs.mergeBase[c]
		if !ok || mb == "" {
			continue
		}
		fs := byCol[c]
		var gone []string
		for _, f := range fs {
			if f.Status == "deleted" {
				gone = append(gone, f.rel)
			}
		}
		old, err := gitSizes(ctx, col.Path, mb, gone)
		if err != nil {
			return nil, err
		}
		// Large files first: git would diff them to count their lines.
		var tracked []ChangedFile
		for _, f := range fs {
			size := old[f.rel]
			if fi, err := os.Stat(filepath.Join(col.Path, filepath.FromSlash(f.rel))); err == nil && f.Status != "deleted" {
				size = fi.Size()
			}
			if size > MaxDiffFile {
				out.NotDiffed = append(out.NotDiffed, NotDiffed{URI: f.URI, Reason: fmt.Sprintf("larger than %d bytes", MaxDiffFile)})
				continue
			}
			if f.untracked {
				p, err := untrackedDiff(ctx, col.Path, f)
				if err != nil {
					return nil, err
				}
				if p == nil {
					out.NotDiffed = append(out.NotDiffed, NotDiffed{URI: f.URI, Reason: "binary"})
				} else {
					parts = append(parts, *p)
				}
				continue
			}
			tracked = append(tracked, f)
		}
		if len(tracked) == 0 {
			continue
		}
		args := []string{"diff", "--no-color", "--numstat", "-z", "--no-renames", "--relative", mb, "--"}
		for _, f := range tracked {
			args = append(args, ":(literal)"+f.rel)
		}
		num, err := runGit(ctx, col.Path, args...)
		if err != nil {
			return nil, err
		}
		binary := map[string]bool{}
		for _, rec := range strings.Split(string(num), "\x00") {
			if f := strings.SplitN(rec, "\t", 3); len(f) == 3 && f[0] == "-" && f[1] == "-" {
				binary[f[2]] = true
			}
		}
		var paths []string
		for _, f := range tracked {
			if binary[f.rel] {
				out.NotDiffed = append(out.NotDiffed, NotDiffed{URI: f.URI, Reason: "binary"})
				continue
			}
			paths = append(paths, f.rel)
		}
		if len(paths) == 0 {
			continue
		}
		args = []string{"diff", "--no-color", "--no-ext-diff", "--relative", mb, "--"}
		for _, p := range paths {
			args = append(args, ":(literal)"+p)
		}
		text, err := runGit(ctx, col.Path, args...)
		if err != nil {
			return nil, err
		}
		parts = append(parts, splitGitDiff(string(text), col.Name)...)
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].uri < parts[j].uri })
	return parts, nil
}

// untrackedDiff is git's diff of a file it does not track (all added
// lines), or nil when git finds it binary.
func untrackedDiff(ctx context.Context, dir string, f ChangedFile) (*filePart, error) {
	text, err := gitExec(ctx, maxGitOutput, dir, true, []string{"diff", "--no-index", "--no-color", "--no-ext-diff", "--", os.DevNull, f.rel})
	if err != nil {
		return nil, err
	}
	if bytes.Contains(text, []byte("\nBinary files ")) {
		return nil, nil
	}
	return &filePart{uri: f.URI, diff: string(text)}, nil
}

// gitSizes is the size of each file at rev (git ls-tree, one call).
func gitSizes(ctx context.Context, dir, rev string, rels []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(rels) == 0 {
		return out, nil
	}
	args := []string{"ls-tree", "-l", "-z", rev, "--"}
	for _, r := range rels {
		args = append(args, ":(literal)"+r)
	}
	text, err := runGit(ctx, dir, args...)
	if err != nil {
		return nil, err
	}
	for _, rec := range strings.Split(string(text), "\x00") {
		meta, name, ok := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); ok && len(f) == 4 {
			var size int64
			fmt.Sscan(f[3], &size)
			out[name] = size
		}
	}
	return out, nil
}

// splitGitDiff cuts git's diff output at each file's "diff --git" line.
func splitGitDiff(text, collection string) []filePart {
	var parts []filePart
	for len(text) > 0 {
		next := strings.Index(text[1:], "\ndiff --git ")
		end := len(text)
		if next >= 0 {
			end = next + 2
		}
		part := text[:end]
		uri := ""
		if line, _, _ := strings.Cut(part, "\n"); strings.HasPrefix(line, "diff --git a/") {
			name := strings.TrimPrefix(line, "diff --git a/")
			if i := strings.Index(name, " b/"); i >= 0 {
				name = name[i+3:]
			}
			uri = ref.URI(collection, name)
		}
		parts = append(parts, filePart{uri: uri, diff: part})
		text = text[end:]
	}
	return parts
}
