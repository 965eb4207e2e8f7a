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

// TestFoldExamples: an example below its item, or below another example
// of the same item, moves to the end; one above its item, and prose,
// stay.
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
	want := []string{"decode", "example/encode", "encode", "readme", "os/exec.Cmd.Output", "decode_to_slice",
		"example/decode", "example/encode", "example/os/exec/ExampleCmd_Output"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	}
}
