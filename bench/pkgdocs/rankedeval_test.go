package pkgdocs

import (
	"slices"
	"testing"
)

func TestDefinedNames(t *testing.T) {
	for _, c := range []struct {
		eco, sym, file string
		want           []string
	}{
		{"python", "tenacity.wait_random", "tenacity/wait.py", []string{"tenacity.wait.wait_random"}},
		{"python", "rich.align.Console.print", "rich/console.py", []string{"rich.console.print", "rich.console.Console.print", "rich.console.align.Console.print"}},
		{"python", "httpx.AsyncClient", "httpx/_client.py", []string{"httpx._client.AsyncClient"}},
		{"python", "click.Path", "click/__init__.py", []string{"click.Path"}},
		{"python", "dict.items", "", nil},
		{"go", "os/exec.Command", "os/exec/exec.go", nil},
	} {
		if got := DefinedNames(c.eco, c.sym, c.file); !slices.Equal(got, c.want) {
			t.Errorf("DefinedNames(%s, %s, %s) = %q, want %q", c.eco, c.sym, c.file, got, c.want)
		}
	}
}

func TestRelevantQualified(t *testing.T) {
	c := Case{ID: "x", Package: "tenacity", Answers: []string{"tenacity.wait.wait_random"}}
	h := RankedHit{Package: "tenacity", Symbol: "tenacity.wait_random", Defined: DefinedNames("python", "tenacity.wait_random", "tenacity/wait.py")}
	if !c.Relevant(h) {
		t.Error("public path of the defined answer not accepted")
	}
	h.Defined = DefinedNames("python", "tenacity.wait_fixed", "tenacity/wait.py")
	h.Symbol = "tenacity.wait_fixed"
	if c.Relevant(h) {
		t.Error("another item of the same module accepted")
	}
	// Go: the import path qualifies the answer's package name.
	g := Case{ID: "g", Package: "stdlib", Answers: []string{"exec.Command"}}
	if !g.Relevant(RankedHit{Package: "stdlib", Symbol: "os/exec.Command"}) {
		t.Error("os/exec.Command not accepted for exec.Command")
	}
	if g.Relevant(RankedHit{Package: "stdlib", Symbol: "os/exec.CommandContext"}) {
		t.Error("a longer name accepted")
	}
}
