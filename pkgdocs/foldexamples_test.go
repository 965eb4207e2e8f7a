package pkgdocs

import (
	"testing"

	"github.com/gnosearch/gno/retrieval"
)

func TestGoExampleItem(t *testing.T) {
	for in, want := range map[string]string{
		"strconv/ExampleAppendInt":    "strconv.AppendInt",
		"os/exec/ExampleCmd_Output":   "os/exec.Cmd.Output",
		"ExampleEncoder_Encode":       "Encoder.Encode",
		"ExampleDecode_second":        "Decode",
		"Example_strictDecoding":      "",
		"Example":                     "",
		"path/filepath/ExampleWalk_x": "path/filepath.Walk",
		"NotAnExample":                "",
	} {
		if got := goExampleItem(in); got != want {
			t.Errorf("goExampleItem(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestItemKeySerial: a second example of one name ("~2") is an example
// of the same item; a "~" not followed by a number is part of the name.
func TestItemKeySerial(t *testing.T) {
	pkg := &retrieval.PackageRef{Ecosystem: "go", Name: "stdlib", Version: "go1.26.8"}
	ex := func(path string) retrieval.Result {
		return retrieval.Result{Package: pkg, Source: retrieval.Source{RelPath: "example/" + path}}
	}
	item := retrieval.Result{Package: pkg, Symbol: &retrieval.Symbol{Name: "encoding/json.Unmarshal"}}
	want, _ := itemKey(item)
	for _, p := range []string{"encoding/json/ExampleUnmarshal", "encoding/json/ExampleUnmarshal~2", "encoding/json/ExampleUnmarshal~12"} {
		if got, example := itemKey(ex(p)); got != want || !example {
			t.Errorf("itemKey(%s) = %q, %v; want %q, true", p, got, example, want)
		}
	}
	for in, out := range map[string]string{"a~2": "a", "fs::OpenOptions::custom_flags~2": "fs::OpenOptions::custom_flags", "a~": "a~", "~2": "~2", "a~b": "a~b", "a~2x": "a~2x", "plain": "plain"} {
		if got := trimSerial(in); got != out {
			t.Errorf("trimSerial(%q) = %q, want %q", in, got, out)
		}
	}
}

// TestFoldExamples: an example below its item, or below another example
// of the same item, moves to the end; one above its item gives the item
// its place and then moves to the end; prose stays.
func TestFoldExamples(t *testing.T) {
	hex := &retrieval.PackageRef{Ecosystem: "rust", Name: "hex", Version: "0.4.3"}
	std := &retrieval.PackageRef{Ecosystem: "go", Name: "stdlib", Version: "go1.26.8"}
	api := func(p *retrieval.PackageRef, name string) retrieval.Result {
		return retrieval.Result{DocID: name, Package: p, Symbol: &retrieval.Symbol{Name: name}}
	}
	ex := func(p *retrieval.PackageRef, path string) retrieval.Result {
		return retrieval.Result{DocID: path, Package: p, Source: retrieval.Source{RelPath: path}}
	}
	in := []retrieval.Result{
		api(hex, "decode"), ex(hex, "example/decode"), ex(hex, "example/encode"), api(hex, "encode"),
		ex(hex, "example/encode"), {DocID: "readme", Package: hex, Source: retrieval.Source{RelPath: "readme"}},
		api(std, "os/exec.Cmd.Output"), ex(std, "example/os/exec/ExampleCmd_Output"), api(hex, "decode_to_slice"),
	}
	var got []string
	for _, r := range foldExamples(in) {
		got = append(got, r.DocID)
	}
	want := []string{"decode", "encode", "readme", "os/exec.Cmd.Output", "decode_to_slice",
		"example/decode", "example/encode", "example/encode", "example/os/exec/ExampleCmd_Output"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	}
}

// TestLiftItems: an item below an example of it takes the example's place
// and score; the example and the results between move down one, in
// order; an example of the whole package, an example whose item is not
// in the results, and an item of another version stay.
func TestLiftItems(t *testing.T) {
	lru := &retrieval.PackageRef{Ecosystem: "go", Name: "github.com/hashicorp/golang-lru/v2", Version: "v2.0.7"}
	old := &retrieval.PackageRef{Ecosystem: "go", Name: "github.com/hashicorp/golang-lru/v2", Version: "v2.0.6"}
	api := func(p *retrieval.PackageRef, name string, score float64) retrieval.Result {
		return retrieval.Result{DocID: p.Version + " " + name, Package: p, Symbol: &retrieval.Symbol{Name: name}, Score: score}
	}
	ex := func(path string, score float64) retrieval.Result {
		return retrieval.Result{DocID: path, Package: lru, Source: retrieval.Source{RelPath: path}, Score: score}
	}
	in := []retrieval.Result{
		ex("example/Example_pkg", 1), ex("example/expirable/ExampleLRU", 0.9), api(old, "expirable.LRU", 0.85),
		api(lru, "expirable.LRU.Purge", 0.8), api(lru, "expirable.LRU", 0.7), ex("example/ExampleCache_Add", 0.6),
	}
	got := liftItems(in)
	want := []struct {
		doc   string
		score float64
	}{
		{"example/Example_pkg", 1}, {"v2.0.7 expirable.LRU", 0.9}, {"example/expirable/ExampleLRU", 0.9},
		{"v2.0.6 expirable.LRU", 0.85}, {"v2.0.7 expirable.LRU.Purge", 0.8}, {"example/ExampleCache_Add", 0.6},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results", len(got))
	}
	for i, w := range want {
		if got[i].DocID != w.doc || got[i].Score != w.score {
			t.Fatalf("%d: got %s %v, want %s %v", i, got[i].DocID, got[i].Score, w.doc, w.score)
		}
	}
	if in[1].DocID != "example/expirable/ExampleLRU" || in[4].Score != 0.7 {
		t.Fatal("liftItems changed its input")
	}
}
