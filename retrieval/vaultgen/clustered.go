package vaultgen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Options shape a clustered vault (Clustered).
type Options struct {
	// Notes is the number of notes; Links the number of distinct
	// resolved links to aim for (about 5 a note in a dense vault).
	Notes, Links int
	// Seed picks the structure; the same options give the same vault.
	Seed uint64
}

// Clustered generates a vault shaped like a person's notes, for the graph
// view's scale tests: notes in topical folders of very different sizes
// (Zipf), most links within a folder and to its popular notes (so each
// folder has hubs), about one in eight to another folder (mostly to its
// hubs), one in fifty to a missing note (a few missing names collect
// many links), and the last 2% of notes orphans. Each note has a title, a
// tag for its folder and sometimes a shared one.
//
// With dir empty it only plans the vault (Rel, Out, Title, Tags,
// Missing); otherwise it also writes the notes under dir, linking by
// [[name]].
func Clustered(dir string, o Options) (*Vault, error) {
	n := o.Notes
	if n <= 0 {
		return &Vault{}, nil
	}
	r := &splitmix{s: o.Seed*0x9e3779b97f4a7c15 + 1}
	v := &Vault{N: n, Rel: make([]string, n), Out: make([][]int, n), Title: make([]string, n),
		Tags: make([][]string, n), Missing: make([][]string, n)}
	clusters := max(1, int(math.Round(math.Sqrt(float64(n))/2.5)))
	// Folder sizes by Zipf (exponent 0.8), at least 3 notes each.
	weights := make([]float64, clusters)
	total := 0.0
	for c := range weights {
		weights[c] = 1 / math.Pow(float64(c+1), 0.8)
		total += weights[c]
	}
	start := make([]int, clusters+1)
	for c := 0; c < clusters; c++ {
		start[c+1] = start[c] + max(3, int(float64(n)*weights[c]/total))
	}
	start[clusters] = n
	for c := clusters - 1; c > 0 && start[c] >= start[c+1]; c-- {
		start[c] = start[c+1] - 1
	}
	cluster := make([]int, n)
	for c := 0; c < clusters; c++ {
		for i := start[c]; i < start[c+1]; i++ {
			cluster[i] = c
		}
	}
	orphans := n / 50
	linked := n - orphans
	missingNames := max(1, n/100)
	// zipf picks rank k in [0, m) with weight 1/(k+1)^s.
	zipf := func(m int, s float64) int {
		// Inverse transform of the continuous approximation.
		u := r.float()
		if s == 1 {
			return min(m-1, int(math.Exp(u*math.Log(float64(m)+1)))-1)
		}
		a := 1 - s
		x := math.Pow(u*(math.Pow(float64(m)+1, a)-1)+1, 1/a) - 1
		return min(m-1, max(0, int(x)))
	}
	tagPool := []string{"todo", "idea", "reference", "draft", "meeting", "project", "reading", "journal"}
	per := float64(o.Links) / float64(max(1, linked))
	for i := 0; i < n; i++ {
		c := cluster[i]
		v.Rel[i] = fmt.Sprintf("c%02d/n%05d.md", c, i)
		v.Title[i] = fmt.Sprintf("%s %s %d", words[(i*7+c)%len(words)], words[(i*13+3*c+5)%len(words)], i)
		v.Tags[i] = []string{fmt.Sprintf("topic/c%02d", c)}
		if r.float() < 0.3 {
			v.Tags[i] = append(v.Tags[i], tagPool[zipf(len(tagPool), 1)])
		}
		if i >= linked {
			v.Orphans = append(v.Orphans, i)
			continue
		}
		// Out-degree: geometric around the mean, at least one.
		want := 1 + int(-math.Log(1-r.float())*(per-1))
		seen := map[int]bool{}
		for tries := 0; len(v.Out[i]) < want && tries < 4*want+8; tries++ {
			p := r.float()
			var j int
			switch {
			case p < 0.02:
				name := fmt.Sprintf("Missing %d", zipf(missingNames, 1.1))
				v.Missing[i] = append(v.Missing[i], name)
				v.Links++
				v.Unresolved++
				continue
			case p < 0.14:
				oc := zipf(clusters, 0.8)
				j = start[oc] + zipf(start[oc+1]-start[oc], 1.2)
			default:
				j = start[c] + zipf(start[c+1]-start[c], 1.0)
			}
			if j >= linked {
				j = start[c]
			}
			if j == i || seen[j] {
				continue
			}
			seen[j] = true
			v.Out[i] = append(v.Out[i], j)
			v.Links++
		}
		sort.Ints(v.Out[i])
	}
	if dir == "" {
		return v, nil
	}
	for i := 0; i < n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: %s\ntags: [%s]\n---\n# %s\n\nNotes on %s.\n\n", v.Title[i], strings.Join(v.Tags[i], ", "), v.Title[i], words[i%len(words)])
		for _, j := range v.Out[i] {
			fmt.Fprintf(&b, "See [[%s]].\n", strings.TrimSuffix(filepath.Base(v.Rel[j]), ".md"))
		}
		for _, m := range v.Missing[i] {
			fmt.Fprintf(&b, "Still to write: [[%s]].\n", m)
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

// words make titles that read like a person's notes.
var words = strings.Fields(`garden river lantern atlas copper meadow signal harbor quartz ember
	orbit canyon thistle compass velvet summit cipher willow prism falcon
	harvest glacier beacon marble tundra saffron anchor nebula cedar ledger
	mosaic tide juniper vector basalt orchard quill zephyr cobalt lattice`)

// splitmix is a small deterministic generator (SplitMix64).
type splitmix struct{ s uint64 }

func (r *splitmix) float() float64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return float64((z^(z>>31))>>11) / (1 << 53)
}
