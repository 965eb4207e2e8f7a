package layout

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func testInput() *Input {
	return &Input{
		Docs: []Doc{
			{ID: "#a", Title: "Alpha", Collection: "notes", Path: "projects/alpha.md", Tags: []string{"work", "todo"}},
			{ID: "#b", Title: "Beta\nline", Collection: "notes", Path: "beta.md", Tags: []string{"todo"}},
			{ID: "#c", Title: "Gamma", Collection: "mail", Path: "inbox/2024/c.md"},
			{ID: "#d", Title: "Alone", Collection: "notes", Path: "alone.md"},
			{ID: "#e", Title: strings.Repeat("é", 400), Collection: "notes", Path: "x/y/e.md"},
		},
		Links: []Link{{0, 1}, {1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 9}, {-1, 2}},
		Unresolved: []Unresolved{
			{Src: 0, Target: "Missing Note"},
			{Src: 1, Target: "missing note"}, // the same ghost
			{Src: 2, Target: "Missing Note"}, // another collection: another ghost
			{Src: 4, Target: "  "},           // no name: no ghost
			{Src: 7, Target: "out of range"},
		},
	}
}

func TestBuild(t *testing.T) {
	s, res, err := Build(context.Background(), testInput(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 7 || res.Components != 3 {
		t.Fatalf("%d nodes, %d components; want 5 documents + 2 ghosts, 3 components", s.Len(), res.Components)
	}
	wantFlags := []Flag{0, 0, 0, Orphan, Orphan, Ghost, Ghost}
	if !reflect.DeepEqual(s.Flags, wantFlags) {
		t.Errorf("flags %v, want %v", s.Flags, wantFlags)
	}
	// a-b (twice and back), c-a, a-ghost, b-ghost, c-ghost2.
	wantEdges := []uint32{0, 1, 0, 2, 0, 5, 1, 5, 2, 6}
	if !reflect.DeepEqual(s.Edges, wantEdges) {
		t.Errorf("edges %v, want %v", s.Edges, wantEdges)
	}
	if !reflect.DeepEqual(s.Degree, []uint32{3, 2, 2, 0, 0, 2, 1}) {
		t.Errorf("degrees %v", s.Degree)
	}
	if s.Title[1] != "Beta line" || s.Title[5] != "Missing Note" || len(s.Title[4]) > 310 || !strings.HasSuffix(s.Title[4], "…") {
		t.Errorf("titles %q", s.Title)
	}
	if s.Folders[s.Folder[0]] != "projects" || s.Folders[s.Folder[1]] != "" || s.Folders[s.Folder[2]] != "inbox/2024" {
		t.Errorf("folders %v %v", s.Folder, s.Folders)
	}
	if s.Collections[s.Collection[2]] != "mail" || s.Collections[s.Collection[6]] != "mail" || s.ID[5] != "" {
		t.Errorf("collections %v %v, ids %q", s.Collection, s.Collections, s.ID)
	}
	var tags []string
	for _, r := range s.TagRefs[s.TagStart[0]:s.TagStart[1]] {
		tags = append(tags, s.Tags[r])
	}
	if !reflect.DeepEqual(tags, []string{"work", "todo"}) || s.TagStart[2]-s.TagStart[1] != 1 {
		t.Errorf("tags of Alpha %v, starts %v", tags, s.TagStart)
	}
	if !(s.Rank[0] > s.Rank[3]) || s.Rank[5] != 0 {
		t.Errorf("ranks %v", s.Rank)
	}
	// A caller's ranks are kept.
	in := testInput()
	in.Rank = []float64{0.5, 0.1, 0.1, 0.2, 0.1}
	s2, _, _ := Build(context.Background(), in, Options{})
	if s2.Rank[0] != 0.5 || s2.Rank[3] != 0.2 {
		t.Errorf("given ranks not kept: %v", s2.Rank)
	}
}

func TestBuildEmpty(t *testing.T) {
	s, _, err := Build(context.Background(), &Input{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var d Scene
	if err := d.UnmarshalBinary(b); err != nil || d.Len() != 0 {
		t.Fatalf("empty scene: %v, %d nodes", err, d.Len())
	}
}

func TestWireRoundTrip(t *testing.T) {
	s, _, err := Build(context.Background(), testInput(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var d Scene
	if err := d.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&d, s) {
		t.Errorf("round trip differs:\n%+v\n%+v", d, *s)
	}
	b2, _ := d.MarshalBinary()
	if !bytes.Equal(b, b2) {
		t.Error("re-encoding differs")
	}
}

// TestWireCorrupt changes the bytes of a valid scene in ways a decoder
// must refuse.
func TestWireCorrupt(t *testing.T) {
	s, _, _ := Build(context.Background(), testInput(), Options{})
	good, _ := s.MarshalBinary()
	n := uint32(s.Len())
	posAt := headerBytes
	edgesAt := headerBytes + 4*int(6*n+1+uint32(len(s.TagRefs)))
	colAt := edgesAt + 4*len(s.Edges)
	flagsAt := colAt + pad4(2*int(n))
	cases := map[string]func(b []byte) []byte{
		"empty":      func(b []byte) []byte { return nil },
		"magic":      func(b []byte) []byte { b[0] = 'X'; return b },
		"version":    func(b []byte) []byte { b[4] = 9; return b },
		"truncated":  func(b []byte) []byte { return b[:len(b)-1] },
		"longer":     func(b []byte) []byte { return append(b, 0) },
		"huge count": func(b []byte) []byte { b[8], b[9], b[10], b[11] = 255, 255, 255, 255; return b },
		"nan":        func(b []byte) []byte { b[posAt], b[posAt+1], b[posAt+2], b[posAt+3] = 0, 0, 0xc0, 0x7f; return b },
		"edge range": func(b []byte) []byte { b[edgesAt] = 200; return b },
		"self edge":  func(b []byte) []byte { b[edgesAt] = b[edgesAt+4]; return b },
		"collection": func(b []byte) []byte { b[colAt] = 77; return b },
		"flags":      func(b []byte) []byte { b[flagsAt] = 0x80; return b },
		"bad utf8":   func(b []byte) []byte { b[len(b)-1] = 0xff; return b },
		"one string": func(b []byte) []byte { b[len(b)-2] = '\n'; return b },
	}
	for name, f := range cases {
		b := f(append([]byte(nil), good...))
		var d Scene
		if err := d.UnmarshalBinary(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzDecode: no input may crash the decoder, and what it accepts
// encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	s, _, _ := Build(context.Background(), testInput(), Options{})
	good, _ := s.MarshalBinary()
	f.Add(good)
	empty, _, _ := Build(context.Background(), &Input{}, Options{})
	e, _ := empty.MarshalBinary()
	f.Add(e)
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Scene
		if d.UnmarshalBinary(b) != nil {
			return
		}
		again, err := d.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded scene does not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("decode/encode changed the bytes")
		}
	})
}
