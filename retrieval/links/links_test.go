package links

import (
	"reflect"
	"strings"
	"testing"
)

type got struct {
	Kind         Kind
	Target, Frag string
	Alias        string
	Line         int
	Text         string // text[Start:End]
}

func extract(text string) []got {
	var out []got
	for _, l := range Extract(text) {
		out = append(out, got{l.Kind, l.Target, l.Fragment, l.Alias, l.Line, text[l.Start:l.End]})
	}
	return out
}

func TestExtract(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []got
	}{
		{"wiki parts", "a [[Note]] b [[Folder/Other Note#Some Heading|shown]] c [[X#^block1]]\n",
			[]got{{Wiki, "Note", "", "", 1, "[[Note]]"}, {Wiki, "Folder/Other Note", "Some Heading", "shown", 1, "[[Folder/Other Note#Some Heading|shown]]"}, {Wiki, "X", "^block1", "", 1, "[[X#^block1]]"}}},
		{"embed", "![[image.png]] and ![[Note#Part]]\n",
			[]got{{Embed, "image.png", "", "", 1, "![[image.png]]"}, {Embed, "Note", "Part", "", 1, "![[Note#Part]]"}}},
		{"same note heading", "see [[#Intro]]\n", []got{{Wiki, "", "Intro", "", 1, "[[#Intro]]"}}},
		{"markdown", "[t](sub/My%20Note.md#Sec%20One) [w](https://x.org/a.md) [m](mailto:a@b) ![i](pic.png) [a](<with space.md>)\n",
			[]got{{Markdown, "sub/My Note.md", "Sec One", "t", 1, "[t](sub/My%20Note.md#Sec%20One)"}, {Markdown, "pic.png", "", "i", 1, "![i](pic.png)"}, {Markdown, "with space.md", "", "a", 1, "[a](<with space.md>)"}}},
		{"gno uri", "[d](gno://notes/a%20b.md) and gno://work/x.md.\n",
			[]got{{URI, "gno://notes/a b.md", "", "d", 1, "[d](gno://notes/a%20b.md)"}, {URI, "gno://work/x.md", "", "", 1, "gno://work/x.md"}}},
		{"code span", "`[[no]]` and ``[[no]] ` x`` but [[yes]]\n", []got{{Wiki, "yes", "", "", 1, "[[yes]]"}}},
		{"fence", "a\n```go\n[[no]]\n```\n~~~\n[[no]]\n~~~\n[[yes]]\n", []got{{Wiki, "yes", "", "", 8, "[[yes]]"}}},
		{"front matter", "---\nrel: \"[[no]]\"\n---\nbody [[yes]]\n", []got{{Wiki, "yes", "", "", 4, "[[yes]]"}}},
		{"crlf", "---\r\na: 1\r\n---\r\n\r\n[[yes]]\r\n", []got{{Wiki, "yes", "", "", 5, "[[yes]]"}}},
		{"unclosed", "[[open and [text](\n", nil},
		{"html code", "<code>[[no]]</code> <CODE>[x](no.md)</CODE> [[yes]]\n", []got{{Wiki, "yes", "", "", 1, "[[yes]]"}}},
		{"escaped", `\[[no]] [x\](y)` + "\n", nil},
		{"table pipe", "| [[Basic formatting syntax\\|Markdown syntax]] | ![[Engelbart.jpg\\|100]] | [[N#Sec\\|s]] |\n",
			[]got{{Wiki, "Basic formatting syntax", "", "Markdown syntax", 1, "[[Basic formatting syntax\\|Markdown syntax]]"}, {Embed, "Engelbart.jpg", "", "100", 1, "![[Engelbart.jpg\\|100]]"}, {Wiki, "N", "Sec", "s", 1, "[[N#Sec\\|s]]"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if g := extract(tc.text); !reflect.DeepEqual(g, tc.want) {
				t.Errorf("\n got %+v\nwant %+v", g, tc.want)
			}
		})
	}
}

func TestKeyAndAttachment(t *testing.T) {
	for in, want := range map[string]string{"Folder/My Note.md": "my note", "Note": "note", "a.txt": "a", "v1.2": "v1.2", "pic.PNG": "pic.png"} {
		if k := Key(in); k != want {
			t.Errorf("Key(%q) = %q, want %q", in, k, want)
		}
	}
	for in, want := range map[string]bool{"pic.png": true, "doc.pdf": true, "Note": false, "a.md": false, "v1.2": false, "Dr. Who": false} {
		if IsAttachment(in) != want {
			t.Errorf("IsAttachment(%q) != %v", in, want)
		}
	}
}

func TestAliases(t *testing.T) {
	if a := Aliases("---\naliases: [One, two]\nalias: Three\n---\n# x\n"); !reflect.DeepEqual(a, []string{"One", "two", "Three"}) {
		t.Errorf("aliases %v", a)
	}
	if a := Aliases("---\naliases: Solo\n---\n"); !reflect.DeepEqual(a, []string{"Solo"}) {
		t.Errorf("aliases %v", a)
	}
	if a := Aliases("---\n: bad: [\n---\n"); a != nil {
		t.Errorf("aliases of bad YAML %v", a)
	}
}

func TestResolve(t *testing.T) {
	c := func(id int64, rel string, alias bool) Candidate {
		return Candidate{ID: id, Collection: "v", RelPath: rel, Alias: alias}
	}
	same := []Candidate{c(1, "deep/folder/Note.md", false), c(2, "a/Note.md", false), c(3, "Note.md", false)}
	for _, tc := range []struct {
		kind        Kind
		target, src string
		cands       []Candidate
		want        int64
	}{
		{Wiki, "Note", "x.md", same, 3},                                                        // shortest path wins
		{Wiki, "note", "x.md", same[:2], 2},                                                    // case-insensitive, shortest
		{Wiki, "a/Note", "x.md", same, 2},                                                      // exact path
		{Wiki, "folder/Note", "x.md", same, 1},                                                 // path suffix
		{Wiki, "zzz/Note", "x.md", same, 0},                                                    // folder that does not exist
		{Markdown, "Note.md", "a/x.md", same, 2},                                               // relative to the source folder
		{Markdown, "../Note.md", "a/x.md", same, 3},                                            // relative, up
		{Markdown, "/deep/folder/Note.md", "a/x.md", same, 1},                                  // vault-absolute
		{Wiki, "Other", "x.md", []Candidate{c(9, "o.md", true)}, 9},                            // alias
		{Wiki, "Other", "x.md", []Candidate{c(9, "o.md", true), c(8, "z/Other.md", false)}, 8}, // file name beats alias
		{URI, "gno://v/a/Note.md", "x.md", same, 2},
		{URI, "gno://w/a/Note.md", "x.md", same, 0},
	} {
		if got := Resolve(tc.kind, tc.target, "v", tc.src, tc.cands); got != tc.want {
			t.Errorf("Resolve(%v %q from %s) = %d, want %d", tc.kind, tc.target, tc.src, got, tc.want)
		}
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{"[[a|b]] ![[c#d]] [e](f.md#g) gno://x/y", "---\na: [[x]]\n---\n`[[y]]`\n```\n[[z]]\n```\n", "[a](<b c.md>) [[#h]] [[", "\\[[x]] [y\\](z)", "[`]`](x.md)", "| ![[e.jpg\\|100]] |"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prev := -1
		for _, l := range Extract(s) {
			if l.Start < 0 || l.End > len(s) || l.Start >= l.End || l.TargetStart < l.Start || l.TargetEnd > l.End || l.TargetStart > l.TargetEnd {
				t.Fatalf("bad range %+v in %q", l, s)
			}
			if l.Start < prev {
				t.Fatalf("links out of order in %q", s)
			}
			prev = l.End
			if l.Line < 1 || l.Line > strings.Count(s, "\n")+1 {
				t.Fatalf("bad line %d in %q", l.Line, s)
			}
		}
		Aliases(s)
		Key(s)
	})
}
