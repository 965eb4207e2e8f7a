package links

import (
	"strings"
	"testing"
)

func TestParseGovern(t *testing.T) {
	for in, want := range map[string]string{
		"src/auth/**":      "|src/auth/**|",
		"./src/*.go":       "|src/*.go|",
		"code:src/auth/**": "code|src/auth/**|",
		"../**":            "||escapes",
		"src/../../x":      "||escapes",
		"/etc/**":          "||absolute",
		"code:/etc/**":     "||absolute",
		`C:\x\**`:          "||absolute",
		"C:/x/**":          "||absolute",
		`src\auth`:         "||backslash",
		"src/[":            "||valid",
		"":                 "||empty",
	} {
		g := ParseGovern(in)
		col, glob, problem := strings.Split(want, "|")[0], strings.Split(want, "|")[1], strings.Split(want, "|")[2]
		if problem != "" {
			if !strings.Contains(g.Problem, problem) {
				t.Errorf("ParseGovern(%q).Problem = %q, want it to say %q", in, g.Problem, problem)
			}
			if g.Matches("c", "c", "x") || g.Matches("c", "c", "../x") {
				t.Errorf("refused glob %q matches", in)
			}
			continue
		}
		if g.Problem != "" || g.Collection != col || g.Glob != glob {
			t.Errorf("ParseGovern(%q) = %+v", in, g)
		}
	}
	g := ParseGovern("src/auth/**")
	if !g.Matches("notes", "notes", "src/auth/a/b.go") || g.Matches("notes", "code", "src/auth/a.go") || g.Matches("notes", "notes", "src/authx/a.go") {
		t.Error("own-collection glob matches wrongly")
	}
	g = ParseGovern("code:src/*.go")
	if !g.Matches("notes", "code", "src/a.go") || g.Matches("notes", "notes", "src/a.go") || g.Matches("notes", "code", "src/x/a.go") {
		t.Error("other-collection glob matches wrongly")
	}
}

func TestDeclared(t *testing.T) {
	d := Declared("---\ngoverns: src/**\nsystem: \"[[System|S]]\"\nsubsystems: [\"[[A]]\", b.md]\n---\nbody\n")
	if len(d.Governs) != 1 || d.Governs[0].Glob != "src/**" || NameOf(d.System) != "System" || len(d.Subsystems) != 2 || NameOf(d.Subsystems[1]) != "b.md" {
		t.Fatalf("%+v", d)
	}
	if d := Declared("no front matter\n"); len(d.Governs) != 0 {
		t.Fatal(d)
	}
}
