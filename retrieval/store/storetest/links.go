package storetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/store"
)

// note is a Markdown document with its links and aliases extracted, as a
// sync writes it.
func note(col, rel, text string) *store.Document {
	d := doc(col, rel, rel, text)
	d.NoLinks, d.Mime = false, "text/markdown"
	d.Links, d.Aliases = links.Extract(text), links.Aliases(text)
	return d
}

// linkWorld writes the notes the link tests read: paths that sort
// differently by byte and by locale (B.md before a.md), a shared stem
// (a.md, sub/a.md), aliases, an attachment to a code file, links to
// nothing, a link to a heading of the same note, and a second collection.
func linkWorld(t *testing.T, st store.Backend) map[string]int64 {
	code := doc("c", "src/main.go", "main.go", "package main")
	code.Mime = "text/x-go"
	put(t, st, 1,
		note("c", "B.md", "---\naliases: [Bee, Second B]\n---\n# B\nsee [[a]] and [[Missing]]\nand ![[pic.png]] and [[#Top]]\n"),
		note("c", "a.md", "# A\nlink to [[Bee|the bee]] and [code](src/main.go)\nand [[nowhere#h|x]]\n"),
		note("c", "sub/a.md", "# sub A\n[[B]] [[a]]\n"),
		code,
		note("d", "x.md", "[[a]] [[x]] [y](y.md)\n"),
		note("d", "y.md", "no links\n"),
	)
	ids := map[string]int64{}
	for _, p := range [][2]string{{"c", "B.md"}, {"c", "a.md"}, {"c", "sub/a.md"}, {"c", "src/main.go"}, {"d", "x.md"}, {"d", "y.md"}} {
		m, err := st.DocByPath(context.Background(), p[0], p[1])
		check(t, err)
		ids[p[0]+"/"+p[1]] = m.ID
	}
	return ids
}

// rowStrings writes link rows in a form free of the backend's ids.
func rowStrings(ids map[string]int64, rs []store.LinkRow) []string {
	name := map[int64]string{}
	for k, v := range ids {
		name[v] = k
	}
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		other := "-"
		if r.Other != nil {
			other = r.Other.Collection + "/" + r.Other.RelPath
		}
		out = append(out, fmt.Sprintf("%s#%d %s %q#%q|%q L%d attach=%v -> %s", name[r.Src], r.Seq, r.Kind, r.Target, r.Fragment, r.Alias, r.Line, r.Attach, other))
	}
	return out
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %#v\nwant %#v", what, got, want)
	}
}

// testLinks: a document's links are written with it and resolved on read
// against the whole document set; every link read answers alike.
func testLinks(t *testing.T, st store.Backend) {
	ctx := context.Background()
	v0, err := st.LinkVersion(ctx)
	check(t, err)
	ids := linkWorld(t, st)
	v1, err := st.LinkVersion(ctx)
	check(t, err)
	if v1 == v0 {
		t.Fatalf("LinkVersion %q did not change with a write", v1)
	}

	from, err := st.LinksFrom(ctx, ids["c/B.md"])
	check(t, err)
	same(t, "LinksFrom(B)", rowStrings(ids, from), []string{
		`c/B.md#0 wiki "a"#""|"" L5 attach=false -> c/a.md`,
		`c/B.md#1 wiki "Missing"#""|"" L5 attach=false -> -`,
		`c/B.md#2 embed "pic.png"#""|"" L6 attach=true -> -`,
		`c/B.md#3 wiki ""#"Top"|"" L6 attach=false -> c/B.md`,
	})
	to, err := st.LinksTo(ctx, ids["c/B.md"])
	check(t, err)
	same(t, "LinksTo(B)", rowStrings(ids, to), []string{
		`c/B.md#3 wiki ""#"Top"|"" L6 attach=false -> c/B.md`,
		`c/a.md#0 wiki "Bee"#""|"the bee" L2 attach=false -> c/a.md`,
		`c/sub/a.md#0 wiki "B"#""|"" L2 attach=false -> c/sub/a.md`,
	})
	att, err := st.AttachmentsTo(ctx, ids["c/src/main.go"])
	check(t, err)
	same(t, "AttachmentsTo(main.go)", rowStrings(ids, att), []string{
		`c/a.md#1 markdown "src/main.go"#""|"code" L2 attach=true -> c/a.md`,
	})
	un, err := st.Unresolved(ctx, "", 0)
	check(t, err)
	same(t, "Unresolved", rowStrings(ids, un), []string{
		`c/B.md#1 wiki "Missing"#""|"" L5 attach=false -> c/B.md`,
		`c/a.md#2 wiki "nowhere"#"h"|"x" L3 attach=false -> c/a.md`,
		`d/x.md#0 wiki "a"#""|"" L1 attach=false -> d/x.md`,
	})
	un, err = st.Unresolved(ctx, "c", 1)
	check(t, err)
	same(t, "Unresolved(c, 1)", rowStrings(ids, un), []string{`c/B.md#1 wiki "Missing"#""|"" L5 attach=false -> c/B.md`})

	stats, err := st.LinkStats(ctx)
	check(t, err)
	gotStats := map[string]store.LinkStats{}
	for c, s := range stats {
		gotStats[c] = *s
	}
	same(t, "LinkStats", gotStats, map[string]store.LinkStats{
		"c": {Links: 9, Unresolved: 2, Attachments: 2},
		"d": {Links: 3, Unresolved: 1},
	})

	nodes, edges, err := st.LinkGraph(ctx, []string{"c"})
	check(t, err)
	gotNodes := pathsOf(ids, nodes)
	sort.Strings(gotNodes) // in id order, and ids are the backend's
	same(t, "LinkGraph nodes", gotNodes, []string{"c/B.md", "c/a.md", "c/src/main.go", "c/sub/a.md"})
	var es []string
	in := map[int64]bool{}
	for _, n := range nodes {
		in[n] = true
	}
	for _, e := range edges {
		if !in[e[0]] || !in[e[1]] {
			continue // the contract is the edges between the nodes asked for
		}
		es = append(es, pathsOf(ids, []int64{e[0]})[0]+" -> "+pathsOf(ids, []int64{e[1]})[0])
	}
	same(t, "LinkGraph edges", es, []string{"c/B.md -> c/a.md", "c/a.md -> c/B.md", "c/sub/a.md -> c/B.md", "c/sub/a.md -> c/a.md"})

	// LinkGraphAmong is LinkGraph(nil)'s links among the ids asked for
	// (in any order), in its order.
	allNodes, allEdges, err := st.LinkGraph(ctx, nil)
	check(t, err)
	half := []int64{}
	for i, n := range allNodes {
		if i%2 == 0 {
			half = append(half, n)
		}
	}
	// In any order: the reversed half.
	back := slices.Clone(half)
	slices.Reverse(back)
	for _, ask := range [][]int64{half, allNodes, nil, back} {
		want := [][2]int64{}
		for _, e := range allEdges {
			if slices.Contains(ask, e[0]) && slices.Contains(ask, e[1]) {
				want = append(want, e)
			}
		}
		got, err := st.LinkGraphAmong(ctx, ask)
		check(t, err)
		if len(got) != 0 || len(want) != 0 {
			same(t, "LinkGraphAmong", got, want)
		}
	}
	// LinkGraphSince without a graph of the same base is the whole graph.
	d, err := st.LinkGraphSince(ctx, 0, nil)
	check(t, err)
	if !d.Full || d.Base == 0 {
		t.Errorf("LinkGraphSince(0): full %v, base %d", d.Full, d.Base)
	}
	same(t, "LinkGraphSince nodes", d.Nodes, allNodes)
	same(t, "LinkGraphSince edges", d.Edges, allEdges)

	cands, err := st.Candidates(ctx, []string{"a", "bee", "second b", "none"})
	check(t, err)
	same(t, "Candidates", cands, map[string][]links.Candidate{
		"a":        {{ID: ids["c/a.md"], Collection: "c", RelPath: "a.md"}, {ID: ids["c/sub/a.md"], Collection: "c", RelPath: "sub/a.md"}},
		"bee":      {{ID: ids["c/B.md"], Collection: "c", RelPath: "B.md", Alias: true}},
		"second b": {{ID: ids["c/B.md"], Collection: "c", RelPath: "B.md", Alias: true}},
	})

	names, err := st.DocNames(ctx, []string{"c"})
	check(t, err)
	var ns []string
	for _, n := range names {
		ns = append(ns, fmt.Sprintf("%s %s alias=%v", pathsOf(ids, []int64{n.DocID})[0], n.Name, n.Alias))
	}
	sort.Strings(ns) // DocNames is in id order, and ids are the backend's
	same(t, "DocNames", ns, []string{"c/B.md B alias=false", "c/B.md Bee alias=true", "c/B.md Second B alias=true",
		"c/a.md a alias=false", "c/src/main.go main alias=false", "c/sub/a.md a alias=false"})

	nn, err := st.NoteNames(ctx, nil)
	check(t, err)
	var nns []string
	for _, n := range nn {
		nns = append(nns, fmt.Sprintf("%s/%s stem=%s shared=%v title=%s aliases=%q lower=%q", n.Collection, n.RelPath, n.Stem, n.Shared, n.TitleLower, n.Aliases, n.AliasesLower))
	}
	sort.Strings(nns)
	same(t, "NoteNames", nns, []string{
		`c/B.md stem=B shared=false title=b.md aliases=["Bee" "Second B"] lower=["bee" "second b"]`,
		`c/a.md stem=a shared=true title=a.md aliases=[] lower=[]`,
		`c/src/main.go stem=main shared=false title=main.go aliases=[] lower=[]`,
		`c/sub/a.md stem=a shared=true title=sub/a.md aliases=[] lower=[]`,
		`d/x.md stem=x shared=false title=x.md aliases=[] lower=[]`,
		`d/y.md stem=y shared=false title=y.md aliases=[] lower=[]`,
	})
	if nn, err := st.NoteNames(ctx, []string{"d"}); err != nil || len(nn) != 2 {
		t.Fatalf("NoteNames(d): %d names, %v", len(nn), err)
	}

	// The graph view's sample reads names and broken links of some
	// documents only: the same rows as the whole reads, cut to them.
	some := []int64{ids["c/B.md"], ids["d/x.md"], ids["d/y.md"]}
	nn, err = st.NoteNamesOf(ctx, some)
	check(t, err)
	nns = nns[:0]
	for _, n := range nn {
		nns = append(nns, n.Collection+"/"+n.RelPath)
	}
	sort.Strings(nns)
	same(t, "NoteNamesOf", nns, []string{"c/B.md", "d/x.md", "d/y.md"})
	un, err = st.UnresolvedFrom(ctx, some)
	check(t, err)
	same(t, "UnresolvedFrom", rowStrings(ids, un), []string{
		`c/B.md#1 wiki "Missing"#""|"" L5 attach=false -> c/B.md`,
		`d/x.md#0 wiki "a"#""|"" L1 attach=false -> d/x.md`,
	})
}

// testLinksChange: links follow the document set. A note rewritten
// without links loses them, a note removed leaves its name to the next
// candidate with no write to the notes naming it, and a snapshot keeps
// answering as of its start.
func testLinksChange(t *testing.T, st store.Backend) {
	ctx := context.Background()
	ids := linkWorld(t, st)
	snap, end, err := st.Snapshot(ctx)
	check(t, err)
	defer end()
	before, err := st.LinksTo(snap, ids["c/B.md"])
	check(t, err)

	b, err := st.Begin(ctx, 2)
	check(t, err)
	check(t, b.Put(ctx, note("c", "sub/a.md", "# sub A, no links now\n")))
	check(t, b.Remove(ctx, ids["c/a.md"]))
	check(t, b.Commit())

	from, err := st.LinksFrom(ctx, ids["c/B.md"])
	check(t, err)
	if got := rowStrings(ids, from)[0]; got != `c/B.md#0 wiki "a"#""|"" L5 attach=false -> c/sub/a.md` {
		t.Fatalf("[[a]] after a.md went: %s", got)
	}
	to, err := st.LinksTo(ctx, ids["c/B.md"])
	check(t, err)
	same(t, "LinksTo(B) after", rowStrings(ids, to), []string{`c/B.md#3 wiki ""#"Top"|"" L6 attach=false -> c/B.md`})
	if ls, err := st.LinksFrom(ctx, ids["c/sub/a.md"]); err != nil || len(ls) != 0 {
		t.Fatalf("links of a note rewritten without them: %v, %v", ls, err)
	}
	if att, err := st.AttachmentsTo(ctx, ids["c/src/main.go"]); err != nil || len(att) != 0 {
		t.Fatalf("attachments of a removed note: %v, %v", att, err)
	}

	again, err := st.LinksTo(snap, ids["c/B.md"])
	check(t, err)
	same(t, "LinksTo(B) in a snapshot begun before", rowStrings(ids, again), rowStrings(ids, before))
}

// pathsOf names ids by collection and path, in the order given.
func pathsOf(ids map[string]int64, of []int64) []string {
	name := map[int64]string{}
	for k, v := range ids {
		name[v] = k
	}
	out := make([]string, len(of))
	for i, id := range of {
		out[i] = name[id]
	}
	return out
}
