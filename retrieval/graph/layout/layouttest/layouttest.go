// Package layouttest builds graph-view inputs for tests and benchmarks
// without an index: from a folder of Markdown notes (links parsed and
// resolved with retrieval/links, as the index does) or from a planned
// vaultgen vault.
package layouttest

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gnosearch/gno/retrieval/graph/layout"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/vaultgen"
	"gopkg.in/yaml.v3"
)

// ScanVault reads every note under dir as collection col. A document's
// ID is its collection/path, its title the front matter's title, the
// first heading or the file name.
func ScanVault(dir, col string) (*layout.Input, error) {
	var rels []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != dir {
			return filepath.SkipDir
		}
		if !d.IsDir() && links.IsNoteExt(filepath.Ext(p)) {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			rels = append(rels, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", dir, err)
	}
	sort.Strings(rels)
	in := &layout.Input{Docs: make([]layout.Doc, len(rels))}
	texts := make([]string, len(rels))
	cands := map[string][]links.Candidate{}
	for i, rel := range rels {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		text := string(b)
		texts[i] = text
		title, tags := frontMatter(text)
		if title == "" {
			title = firstHeading(text)
		}
		if title == "" {
			title = strings.TrimSuffix(path.Base(rel), path.Ext(rel))
		}
		in.Docs[i] = layout.Doc{ID: col + "/" + rel, Title: title, Collection: col, Path: rel, Tags: tags}
		id := int64(i + 1)
		k := links.Key(rel)
		cands[k] = append(cands[k], links.Candidate{ID: id, Collection: col, RelPath: rel})
		for _, a := range links.Aliases(text) {
			k := links.Key(a)
			cands[k] = append(cands[k], links.Candidate{ID: id, Collection: col, RelPath: rel, Alias: true})
		}
	}
	for i, text := range texts {
		for _, l := range links.Extract(text) {
			if l.Target == "" || links.IsAttachment(l.Target) || l.Kind == links.URI {
				continue
			}
			if id := links.Resolve(l.Kind, l.Target, col, rels[i], cands[links.Key(l.Target)]); id != 0 {
				in.Links = append(in.Links, layout.Link{Src: int32(i), Dst: int32(id - 1)})
			} else {
				in.Unresolved = append(in.Unresolved, layout.Unresolved{Src: int32(i), Target: l.Target})
			}
		}
	}
	return in, nil
}

func frontMatter(text string) (title string, tags []string) {
	if !strings.HasPrefix(text, "---\n") {
		return "", nil
	}
	end := strings.Index(text[4:], "\n---")
	if end < 0 {
		return "", nil
	}
	var fm struct {
		Title string `yaml:"title"`
		Tags  any    `yaml:"tags"`
	}
	if yaml.Unmarshal([]byte(text[4:4+end]), &fm) != nil {
		return "", nil
	}
	switch t := fm.Tags.(type) {
	case string:
		tags = strings.Fields(strings.ReplaceAll(t, ",", " "))
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				tags = append(tags, s)
			}
		}
	}
	return fm.Title, tags
}

func firstHeading(text string) string {
	for _, l := range strings.SplitN(text, "\n", 40) {
		if strings.HasPrefix(l, "# ") {
			return strings.TrimSpace(l[2:])
		}
	}
	return ""
}

// FromVault is the input of a planned vaultgen vault (Clustered), in
// collection col.
func FromVault(v *vaultgen.Vault, col string) *layout.Input {
	in := &layout.Input{Docs: make([]layout.Doc, v.N)}
	for i := 0; i < v.N; i++ {
		d := layout.Doc{ID: col + "/" + v.Rel[i], Collection: col, Path: v.Rel[i], Title: v.Rel[i]}
		if i < len(v.Title) {
			d.Title, d.Tags = v.Title[i], v.Tags[i]
		}
		in.Docs[i] = d
		for _, j := range v.Out[i] {
			in.Links = append(in.Links, layout.Link{Src: int32(i), Dst: int32(j)})
		}
		if i < len(v.Missing) {
			for _, m := range v.Missing[i] {
				in.Unresolved = append(in.Unresolved, layout.Unresolved{Src: int32(i), Target: m})
			}
		}
	}
	return in
}

// RealVault is the path of the real Obsidian vault of the evaluation data
// ($GNO_EVAL_VAULT, else shared/eval/obsidian-developer-docs/vault beside
// a folder above the working directory), or "" when it is not there.
func RealVault() string {
	if p := os.Getenv("GNO_EVAL_VAULT"); p != "" {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "shared", "eval", "obsidian-developer-docs", "vault")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
