// Package vaultgen writes a generated Markdown vault with a known link
// structure, so tests and benchmarks can check gno's links graph against
// edges they know independently of the index.
//
// Note i (of the linked ones) links to note i+1 by name ([[n0042]]), to
// hub i%10 by a relative Markdown link, every third note to a far note by
// a wikilink with folder, heading and alias, and every 97th note to a
// missing note. Links in code spans and fenced code are decoys. The last
// N/250 notes are orphans.
//
// Clustered generates the other shape, a person's vault at scale (topical
// folders with hubs, cross links, missing notes), for the graph view.
//
// It is for tests and benchmarks: gno itself must not import it.
package vaultgen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Vault describes a generated vault.
type Vault struct {
	N int
	// Rel is the collection-relative path of each note.
	Rel []string
	// Out holds the distinct notes each note links to (no self-links).
	Out [][]int
	// Links counts every link written (resolved or not), Unresolved the
	// links naming no note.
	Links, Unresolved int
	// Orphans are the notes with no link in or out.
	Orphans []int
	// Title, Tags and Missing (the names of missing notes each note
	// links to) are set by Clustered only.
	Title   []string
	Tags    [][]string
	Missing [][]string
}

// Rel is the path of note i.
func Rel(i int) string { return fmt.Sprintf("f%02d/n%04d.md", i%50, i) }

// Generate writes n notes under dir.
func Generate(dir string, n int) (*Vault, error) {
	v := &Vault{N: n, Rel: make([]string, n), Out: make([][]int, n)}
	orphans := n / 250
	m := n - orphans
	for i := 0; i < n; i++ {
		v.Rel[i] = Rel(i)
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Note %d\n---\n# Note %d\n\nSome text about topic %d and `[[n0001]]` in code.\n", i, i, i%37)
		if i >= m {
			v.Orphans = append(v.Orphans, i)
			b.WriteString("\nNo links here.\n")
		} else {
			seen := map[int]bool{}
			add := func(j int) {
				v.Links++
				if j != i && !seen[j] {
					seen[j] = true
					v.Out[i] = append(v.Out[i], j)
				}
			}
			next := (i + 1) % m
			fmt.Fprintf(&b, "\nNext: [[n%04d]]. Back to [[#Note %d]].\n", next, i)
			add(next)
			v.Links++ // the heading self-link
			if i >= 10 {
				h := i % 10
				fmt.Fprintf(&b, "Hub: [hub](../f%02d/n%04d.md#Note).\n", h%50, h)
				add(h)
			}
			if i%3 == 0 {
				far := (i*7 + 13) % m
				fmt.Fprintf(&b, "Far: [[f%02d/n%04d#Note %d|far away]].\n", far%50, far, far)
				add(far)
			}
			if i%97 == 0 {
				fmt.Fprintf(&b, "Missing: [[Ghost %d]].\n", i)
				v.Links++
				v.Unresolved++
			}
			b.WriteString("\n```\n[[n0002]]\n```\n")
		}
		p := filepath.Join(dir, filepath.FromSlash(v.Rel[i]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// In returns the distinct notes linking to each note.
func (v *Vault) In() [][]int {
	in := make([][]int, v.N)
	for i, outs := range v.Out {
		for _, j := range outs {
			in[j] = append(in[j], i)
		}
	}
	return in
}
