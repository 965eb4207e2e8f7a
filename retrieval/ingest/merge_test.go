package ingest

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store"
)

// TestSyncMergeEdges: the sync's merge of its sorted walk with the
// index's states in path order finds what a map of every path found: an
// unchanged tree is all unchanged, a renamed file is one added and one
// removed, a removed folder removes its documents (paths that sort beside
// it: "a-b.md" before "a/…", "a0.md" after), a case-only rename is a new
// name and a gone one, and a name the store cannot hold is skipped every
// sync without being taken for a document that is gone.
func TestSyncMergeEdges(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rels := []string{"a.md", "a-b.md", "a/x.md", "a/b/c.md", "a0.md", "a b.md", "B.md", "b.md", "é.md", "z/ä.md"}
	for _, rel := range rels {
		write(rel, "# "+rel+"\n\ntext of "+rel+"\n")
	}
	bad := "bad\xff.md" // not UTF-8: the Postgres store cannot name it
	nonUTF8 := os.WriteFile(filepath.Join(dir, bad), []byte("# bad\n"), 0o644) == nil
	col := config.Collection{Name: "n", Path: dir, Pattern: "**/*.md"}

	for _, tc := range []struct {
		name string
		st   func(t *testing.T) store.Backend
	}{
		{"sqlite", testStore},
		{"unnamable", func(t *testing.T) store.Backend { return noBadNames{testStore(t)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.st(t)
			sync, have := syncer(t, st, col)
			want := slices.Clone(rels)
			if nonUTF8 && tc.name == "sqlite" {
				want = append(want, bad)
			}
			slices.Sort(want)
			res := sync(1)
			if res.Added != len(want) || !slices.Equal(have(), want) {
				t.Fatalf("first sync: %+v\n have %q\n want %q", res, have(), want)
			}
			res = sync(2)
			if res.Unchanged != len(want) || res.Added+res.Updated+res.Removed != 0 {
				t.Fatalf("unchanged sync: %+v", res)
			}
			if nonUTF8 && tc.name == "unnamable" && res.Skipped["name not valid UTF-8"] != 1 {
				t.Errorf("unnamable file not skipped: %+v", res)
			}
			// A rename, a folder removed, a case-only rename.
			rename := func(from, to string) {
				t.Helper()
				if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
					t.Fatal(err)
				}
			}
			rename("a0.md", "a1.md")
			if err := os.RemoveAll(filepath.Join(dir, "a")); err != nil {
				t.Fatal(err)
			}
			rename("B.md", "B2.md") // out of the way, then back in lower case beside b.md's neighbour
			rename("B2.md", "c.md")
			rename("z/ä.md", "z/Ä.md")
			res = sync(3)
			if res.Added != 3 || res.Removed != 5 || res.Updated != 0 {
				t.Fatalf("after renames: %+v", res)
			}
			want = slices.DeleteFunc(want, func(rel string) bool {
				return rel == "a0.md" || rel == "a/x.md" || rel == "a/b/c.md" || rel == "B.md" || rel == "z/ä.md"
			})
			want = append(want, "a1.md", "c.md", "z/Ä.md")
			slices.Sort(want)
			if got := have(); !slices.Equal(got, want) {
				t.Fatalf("after renames:\n have %q\n want %q", got, want)
			}
			if res := sync(4); res.Unchanged != len(want) || res.Added+res.Updated+res.Removed != 0 {
				t.Fatalf("unchanged sync after: %+v", res)
			}
			// Restore the tree for the next store.
			rename("a1.md", "a0.md")
			rename("c.md", "B.md")
			rename("z/Ä.md", "z/ä.md")
			write("a/x.md", "# a/x.md\n\ntext of a/x.md\n")
			write("a/b/c.md", "# a/b/c.md\n\ntext of a/b/c.md\n")
		})
	}
}

// noBadNames is a store that cannot name a path that is not UTF-8, as
// the Postgres store cannot.
type noBadNames struct{ store.Backend }

func (noBadNames) PathProblem(rel string) string {
	for _, r := range rel {
		if r == '\uFFFD' {
			return "name not valid UTF-8"
		}
	}
	return ""
}

// TestMergeParts: the walk's per-folder merge gives the order a sort of
// every path gives, for leaf folders, folders beside their subfolders'
// files (paths that sort around "/"), one folder, and random trees.
func TestMergeParts(t *testing.T) {
	check := func(parts [][]candidate) {
		t.Helper()
		var all []candidate
		for _, p := range parts {
			slices.SortFunc(p, compareRel)
			all = append(all, p...)
		}
		want := slices.Clone(all)
		slices.SortFunc(want, compareRel)
		var nonEmpty [][]candidate
		for _, p := range parts {
			if len(p) > 0 {
				nonEmpty = append(nonEmpty, p)
			}
		}
		got := mergeParts(nonEmpty, len(all))
		if !slices.Equal(got, want) {
			t.Fatalf("merge of %d folders: got %v, want %v", len(parts), got, want)
		}
	}
	c := func(rels ...string) []candidate {
		var out []candidate
		for i, r := range rels {
			out = append(out, candidate{rel: r, size: int64(i)})
		}
		return out
	}
	check(nil)
	check([][]candidate{c("a.md", "b.md")})
	check([][]candidate{c("x/1.md", "x/2.md"), c("a/1.md", "a/2.md"), c("m/1.md")})
	check([][]candidate{c("a.md", "a-b.md", "a0.md", "a b.md", "z.md"), c("a/x.md", "a/y.md", "a/z-z.md"), c("a/b/c.md", "a/b/d.md")})
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		folders := []string{""}
		parts := [][]candidate{nil}
		for range rng.IntN(20) {
			parent := folders[rng.IntN(len(folders))]
			folders = append(folders, parent+string(rune('a'+rng.IntN(4)))+[]string{"", "-", "0", " "}[rng.IntN(4)]+"/")
			parts = append(parts, nil)
		}
		seen := map[string]bool{}
		for range rng.IntN(100) {
			i := rng.IntN(len(folders))
			rel := folders[i] + string(rune('a'+rng.IntN(5))) + []string{".md", "-x.md", "/.md"[1:], "0.md"}[rng.IntN(4)]
			if !seen[rel] {
				seen[rel] = true
				parts[i] = append(parts[i], candidate{rel: rel})
			}
		}
		check(parts)
	}
}
