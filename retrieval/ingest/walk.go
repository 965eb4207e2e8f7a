package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/convert"
)

// This file decides which files a collection indexes: Indexes (the one
// answer every part of gno asks) and the walk a sync makes with it.

// skipDirs are never descended into: VCS metadata, dependency trees and
// folders that hold secrets.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true, ".ssh": true,
	".gnupg": true, ".aws": true, ".kube": true, ".docker": true, "__pycache__": true, ".venv": true, ".Trash": true}

// walk lists the files of col that match its patterns, sorted by path,
// and the folders below the root it could not read (unreadable, sorted):
// the files under those are unknown, not gone, and a sync keeps their
// documents. Folders are read in parallel: a sync of an unchanged
// collection is mostly this walk (one lstat per file), and at a million
// files one goroutine spends seconds waiting on each call in turn.
func walk(ctx context.Context, col config.Collection, opt Options, res *Result) (cands []candidate, unreadable []string, err error) {
	root := col.Path
	includes := newIncludeSet(col.Patterns())
	var (
		mu sync.Mutex
		// Each folder's files, put together once at the end: appending
		// them to one slice copied it again at every growth.
		parts   [][]candidate
		n       int
		rootErr error
		wg      sync.WaitGroup
	)
	sem := make(chan struct{}, max(4, 2*runtime.GOMAXPROCS(0)))
	var visit func(abs, rel string)
	visit = func(abs, rel string) {
		defer wg.Done()
		if ctx.Err() != nil {
			return
		}
		var dir *folder
		err := failDir(abs)
		if err == nil {
			// On an error dir may still hold the entries read before it.
			dir, err = readDir(abs)
		}
		if dir != nil {
			defer dir.close()
		}
		local := &Result{}
		var found []candidate
		if err != nil {
			if rel == "." {
				mu.Lock()
				rootErr = err
				mu.Unlock()
				return
			}
			local.skip(SkipUnreadable)
			mu.Lock()
			unreadable = append(unreadable, rel)
			if len(res.Errors) < maxErrors {
				res.Errors = append(res.Errors, fmt.Sprintf("%s: folder unreadable, its indexed files kept: %v", rel, err))
			}
			mu.Unlock()
		}
		for dir != nil && ctx.Err() == nil {
			nameb, kind, ok := dir.next()
			if !ok {
				break
			}
			if forceUnknownKind {
				kind = kindUnknown
			}
			// One string per entry: its path; the name is its tail.
			var crel string
			if rel == "." {
				crel = string(nameb)
			} else {
				crel = rel + "/" + string(nameb)
			}
			name := crel[len(crel)-len(nameb):]
			var info fileStat
			if kind == kindUnknown {
				// The file system gave no type: the lstat tells.
				var err error
				if info, err = dir.stat(name); err != nil {
					// Counted only if a sync would have indexed it.
					if indexesFile(includes, col, crel) {
						if _, ok := convert.ForPath(crel, col.Code); ok {
							local.skip(SkipVanished)
						}
					}
					continue
				}
				if info.mode.IsDir() {
					kind = kindDir
				}
			}
			if kind == kindDir {
				if !WalksDir(col, crel) {
					continue
				}
				cabs := joinName(abs, name)
				wg.Add(1)
				select {
				case sem <- struct{}{}:
					go func() { visit(cabs, crel); <-sem }()
				default:
					visit(cabs, crel)
				}
				continue
			}
			// The patterns and the format are asked before the lstat:
			// a file gno does not index costs no system call.
			if !indexesFile(includes, col, crel) {
				continue
			}
			f, ok := convert.ForPath(crel, col.Code)
			if !ok {
				continue
			}
			if kind != kindUnknown {
				var err error
				if info, err = dir.stat(name); err != nil {
					local.skip(SkipVanished)
					continue
				}
			}
			if c, ok := fileCandidate(col, opt, local, crel, f, func() string { return joinName(abs, name) }, info); ok {
				found = append(found, c)
			}
		}
		// Each folder's files are sorted here, in parallel; the walk's
		// end only merges the folders. A listing can give a name twice
		// (getdents and os.ReadDir do while a folder is renamed into it):
		// one path is one file, or the merge would take the second as new.
		slices.SortFunc(found, compareRel)
		found = slices.CompactFunc(found, sameRel)
		mu.Lock()
		if len(found) > 0 {
			parts = append(parts, found)
			n += len(found)
		}
		for reason, n := range local.Skipped {
			for range n {
				res.skip(reason)
			}
		}
		mu.Unlock()
	}
	wg.Add(1)
	visit(filepath.Clean(root), ".")
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("scan %s: %w", root, err)
	}
	if rootErr != nil {
		return nil, nil, fmt.Errorf("scan %s: %w", root, rootErr)
	}
	slices.Sort(unreadable)
	return mergeParts(parts, n), unreadable, nil
}

// maxErrors caps Result.Errors: a sync reports the first failures, not
// every one of a broken tree.
const maxErrors = 20

// Test hooks. failDir, when it returns an error for a folder, makes the
// walk's read of that folder fail with it (the tests run as root, where
// chmod 000 does not stop a read). forceUnknownKind makes every entry's
// type unknown (DT_UNKNOWN), as some file systems list them, so the
// lstat path of the walk is tested on any file system. lstat is the
// lstat of Options.Only's files, for the same reason.
var (
	failDir          = func(abs string) error { return nil }
	forceUnknownKind bool
	lstat            = os.Lstat // of Options.Only's files
)

func sameRel(a, b candidate) bool { return a.rel == b.rel }

func compareRel(a, b candidate) int { return strings.Compare(a.rel, b.rel) }

// joinName is filepath.Join of a clean folder and the name of one of its
// entries, without cleaning the result again (once per file of a walk).
func joinName(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// fileCandidate applies the checks every indexed file of format f (a
// format gno reads: convert.ForPath) passes (symlinks kept inside the
// root, regular files within the size cap) to the file at rel, found by a
// walk or named by Options.Only. abs gives the file's path, asked only
// for a symlink.
func fileCandidate(col config.Collection, opt Options, res *Result, rel string, f convert.Format, abs func() string, info fileStat) (candidate, bool) {
	if info.mode&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(abs())
		if err != nil || !within(col.Path, target) {
			res.skip(SkipSymlink)
			return candidate{}, false
		}
		fi, err := os.Stat(target)
		if err != nil || !fi.Mode().IsRegular() {
			res.skip(SkipSymlink)
			return candidate{}, false
		}
		info = statOf(fi)
	} else if !info.mode.IsRegular() {
		return candidate{}, false
	}
	if info.size > opt.maxBytes(f) {
		res.skip(SkipTooLarge)
		return candidate{}, false
	}
	return candidate{rel: rel, size: info.size, mtimeNS: info.mtimeNS}, true
}

// fileStat is what a walk reads of a file's lstat.
type fileStat struct {
	mode    fs.FileMode
	size    int64
	mtimeNS int64
}

func statOf(fi fs.FileInfo) fileStat {
	return fileStat{mode: fi.Mode(), size: fi.Size(), mtimeNS: fi.ModTime().UnixNano()}
}

// only lists the files of Options.Only that a walk would have found; a
// path that no longer exists is left out, so the sync removes it. A path
// whose lstat fails otherwise (EACCES on a folder above it, a passing NFS
// error) is listed in unknown and counted unreadable: its document stays.
func only(col config.Collection, opt Options, res *Result) (out []candidate, unknown []string) {
	includes := newIncludeSet(col.Patterns())
	for _, rel := range opt.Only {
		rel = path.Clean(rel)
		if !fs.ValidPath(rel) || rel == "." || !indexesFile(includes, col, rel) || inSkippedDir(col, rel) {
			continue
		}
		f, ok := convert.ForPath(rel, col.Code)
		if !ok {
			continue
		}
		p := filepath.Join(col.Path, filepath.FromSlash(rel))
		info, err := lstat(p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				unknown = append(unknown, rel)
				res.skip(SkipUnreadable)
				if len(res.Errors) < maxErrors {
					res.Errors = append(res.Errors, fmt.Sprintf("%s: unreadable, its document kept: %v", rel, err))
				}
			}
			continue
		}
		if c, ok := fileCandidate(col, opt, res, rel, f, func() string { return p }, statOf(info)); ok {
			out = append(out, c)
		}
	}
	return out, unknown
}

// Indexes reports whether a sync of col indexes the file at rel (clean,
// slash-separated, relative to the collection root): a format gno reads,
// matched by the collection's patterns, not excluded, and not under a
// folder a walk skips (.git, node_modules, excluded folders). It is gno's
// one answer to that question: sync, note writes and capture all ask it.
// Size and symlink checks need the file itself and stay with the sync.
func Indexes(col config.Collection, rel string) bool {
	if _, ok := convert.ForPath(rel, col.Code); !ok {
		return false
	}
	return indexesFile(newIncludeSet(col.Patterns()), col, rel) && !inSkippedDir(col, rel)
}

// indexesFile is Indexes without the format and folder checks, for a walk
// that has skipped those folders already (includes is col.Patterns()).
func indexesFile(includes includeSet, col config.Collection, rel string) bool {
	return includes.match(rel) && !excluded(col.Exclude, rel)
}

// inSkippedDir reports whether a walk would have skipped one of rel's
// folders (.git, node_modules, excluded folders).
func inSkippedDir(col config.Collection, rel string) bool {
	dirs := strings.Split(rel, "/")
	for i := range dirs[:len(dirs)-1] {
		if !WalksDir(col, strings.Join(dirs[:i+1], "/")) {
			return true
		}
	}
	return false
}

// WalksDir reports whether a sync's walk descends into the folder rel
// (clean, slash-separated, relative to the collection root; "." is the
// root): not one of the folders gno never reads (.git, node_modules…) and
// not excluded. A file watcher asks it which folders to watch.
func WalksDir(col config.Collection, rel string) bool {
	if rel == "." || rel == "" {
		return true
	}
	return !skipDirs[path.Base(rel)] && !excluded(col.Exclude, rel) && !excluded(col.Exclude, rel+"/")
}

func within(root, p string) bool {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		r = root
	}
	rel, err := filepath.Rel(r, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// entryKind is what a folder's listing says an entry is.
type entryKind uint8

const (
	kindOther   entryKind = iota // a file, a symlink, anything but a folder
	kindDir                      // a folder
	kindUnknown                  // not said: the lstat tells
)
