package note

import (
	"reflect"
	"regexp"
	"testing"
)

func TestSplitJoinRoundTrip(t *testing.T) {
	for _, in := range []string{
		"---\ntitle: T\n---\nbody\n",
		"\xef\xbb\xbf---\r\ntitle: T\r\n---\r\nbody\r\nmore\r\n",
		"no front matter\n",
		"---\na: 1\n---\n---\nrule above\n",
		"",
	} {
		fm, body := Split([]byte(in))
		if got := string(Join([]byte(in), body)); got != in {
			t.Errorf("Join(Split(%q)) = %q", in, got)
		}
		if in == "\xef\xbb\xbf---\r\ntitle: T\r\n---\r\nbody\r\nmore\r\n" && (fm != "---\ntitle: T\n---\n" || body != "body\nmore\n") {
			t.Errorf("Split(%q) = %q, %q", in, fm, body)
		}
	}
	// A body starting with a rule stays body.
	if got := string(Join([]byte("---\na: 1\n---\nold\n"), "---\nb: 2\n---\n")); got != "---\na: 1\n---\n---\nb: 2\n---\n" {
		t.Errorf("Join kept no front matter: %q", got)
	}
}

func TestProps(t *testing.T) {
	raw := "---\ntitle: My note\ntags:\n  - a\n  - b/c\naliases: [x, \"y z\"]\ncreated: 2024-01-02\nmeta:\n  k: v\nempty:\n---\nbody\n"
	got, err := Props([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := []Prop{
		{Key: "title", Kind: "text", Value: "My note", YAML: "title: My note\n"},
		{Key: "tags", Kind: "list", List: []string{"a", "b/c"}, YAML: "tags:\n  - a\n  - b/c\n"},
		{Key: "aliases", Kind: "list", List: []string{"x", "y z"}, YAML: "aliases: [x, \"y z\"]\n"},
		{Key: "created", Kind: "text", Value: "2024-01-02", YAML: "created: 2024-01-02\n"},
		{Key: "meta", Kind: "yaml", YAML: "meta:\n  k: v\n"},
		{Key: "empty", Kind: "text", YAML: "empty:\n"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Props =\n%+v\nwant\n%+v", got, want)
	}
	if _, err := Props([]byte("---\n: : :\n  - [\n---\n")); err == nil {
		t.Error("broken YAML gave no error")
	}
}

func TestSetProps(t *testing.T) {
	raw := "---\r\n# a comment\r\ntitle: Old\r\ntags:\r\n  - a\r\n\r\naliases: [x]\r\ncount: 3\r\n---\r\nbody\r\n"
	for _, tc := range []struct {
		name  string
		edits []PropEdit
		want  string
	}{
		{"title", []PropEdit{{Key: "title", Kind: "text", Value: "New: <b>"}},
			"---\r\n# a comment\r\ntitle: \"New: <b>\"\r\ntags:\r\n  - a\r\n\r\naliases: [x]\r\ncount: 3\r\n---\r\nbody\r\n"},
		{"block list", []PropEdit{{Key: "tags", Kind: "list", List: []string{"b", "#c", " "}}},
			"---\r\n# a comment\r\ntitle: Old\r\ntags:\r\n  - b\r\n  - \"#c\"\r\n\r\naliases: [x]\r\ncount: 3\r\n---\r\nbody\r\n"},
		{"flow list kept", []PropEdit{{Key: "aliases", Kind: "list", List: []string{"x", "true"}}},
			"---\r\n# a comment\r\ntitle: Old\r\ntags:\r\n  - a\r\n\r\naliases: [x, \"true\"]\r\ncount: 3\r\n---\r\nbody\r\n"},
		{"number stays number", []PropEdit{{Key: "count", Kind: "text", Value: "4"}},
			"---\r\n# a comment\r\ntitle: Old\r\ntags:\r\n  - a\r\n\r\naliases: [x]\r\ncount: 4\r\n---\r\nbody\r\n"},
		{"remove and add", []PropEdit{{Key: "tags", Kind: "remove"}, {Key: "created", Kind: "text", Value: "2024-05-06"}},
			"---\r\n# a comment\r\ntitle: Old\r\n\r\naliases: [x]\r\ncount: 3\r\ncreated: 2024-05-06\r\n---\r\nbody\r\n"},
		{"title that is a number", []PropEdit{{Key: "title", Kind: "text", Value: "2024"}},
			"---\r\n# a comment\r\ntitle: \"2024\"\r\ntags:\r\n  - a\r\n\r\naliases: [x]\r\ncount: 3\r\n---\r\nbody\r\n"},
	} {
		got, err := SetProps([]byte(raw), tc.edits)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
	got, err := SetProps([]byte("\xef\xbb\xbfbody\n"), []PropEdit{{Key: "title", Kind: "text", Value: "T"}})
	if err != nil || string(got) != "\xef\xbb\xbf---\ntitle: T\n---\nbody\n" {
		t.Errorf("new front matter: %q, %v", got, err)
	}
	if _, err := SetProps([]byte(raw), []PropEdit{{Key: "bad\nkey", Kind: "text", Value: "x"}}); err == nil {
		t.Error("a key with a newline was accepted")
	}
	if _, err := SetProps([]byte(raw), []PropEdit{{Key: "x", Kind: "drop"}}); err == nil {
		t.Error("an unknown edit kind was accepted")
	}
	// A value that is YAML syntax is quoted and reads back as the text.
	out, err := SetProps([]byte(raw), []PropEdit{{Key: "title", Kind: "text", Value: "a\"]\n---\nevil: 1"}})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Props(out)
	if err != nil || ps[0].Value != "a\"]\n---\nevil: 1" || len(ps) != 4 {
		t.Errorf("injected value read back as %+v, %v", ps, err)
	}
}

// TestPlainKey: the hand-written check accepts exactly what the regexp it
// replaced, ^[\p{L}\p{N}_][\p{L}\p{N}_ ./-]*$, accepts.
func TestPlainKey(t *testing.T) {
	re := regexp.MustCompile(`^[\p{L}\p{N}_][\p{L}\p{N}_ ./-]*$`)
	keys := []string{"", "a", "title", "due date", "a.b/c-d", " a", ".a", "-a", "/a", "_a", "a_", "a b", "a\tb", "a:b", "a#",
		"日本語", "Ωmega", "x²", "Ⅻ", "½", "٣", "a\n", "a\u200b", "a!", "9", "a,b", "ключ", "a  b", "a..", "é", "e\u0301"}
	for r := rune(0); r < 0x11000; r++ {
		keys = append(keys, string(r), "a"+string(r))
	}
	for _, k := range keys {
		if got, want := plainKey(k), re.MatchString(k); got != want {
			t.Errorf("plainKey(%q) = %v, regexp says %v", k, got, want)
		}
	}
}
