// Tests of the code's shape: the rules of ARCHITECTURE.md that a compiler
// does not check. They read the source and the package graph, so a change
// that breaks a rule fails here with the rule's name.
package gno_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval"
)

const module = "github.com/gnosearch/gno"

// sourceFiles returns the repository's non-test Go files, relative and
// slash-separated, skipping testdata, third_party and hidden folders.
func sourceFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "third_party" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			out = append(out, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sqlExempt are the files allowed SQL outside retrieval/store, and why.
var sqlExempt = map[string]string{
	// The plain FTS5 trigram reference gnoeval compares gno's CJK search
	// against: a separate scratch database, not gno's index.
	"bench/cmd/gnoeval/main.go": "reference baseline",
}

// TestSQLOnlyInStore: every SQL statement of gno lives in retrieval/store
// behind a named method; no other package imports database/sql, opens a
// database or runs a statement, and no exported name hands out *sql.DB.
func TestSQLOnlyInStore(t *testing.T) {
	calls := []string{"sql.Open(", ".QueryContext(", ".QueryRowContext(", ".ExecContext(", ".BeginTx(", ".PrepareContext("}
	for _, f := range sourceFiles(t) {
		if strings.HasPrefix(f, "retrieval/store/") || sqlExempt[f] != "" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(data)
		if strings.Contains(src, `"database/sql"`) {
			t.Errorf("%s imports database/sql: SQL lives in retrieval/store", f)
		}
		for _, c := range calls {
			if strings.Contains(src, c) {
				t.Errorf("%s calls %s: SQL lives in retrieval/store", f, c)
			}
		}
	}
	// Nothing exported from store hands out the handle.
	for _, f := range sourceFiles(t) {
		if !strings.HasPrefix(f, "retrieval/store/") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "func ") && strings.Contains(line, "*sql.DB") && isExportedFunc(line) {
				t.Errorf("%s: %s hands out *sql.DB", f, strings.TrimSpace(line))
			}
		}
	}
}

func isExportedFunc(line string) bool {
	s := strings.TrimPrefix(line, "func ")
	if strings.HasPrefix(s, "(") {
		s = s[strings.Index(s, ")")+1:]
	}
	s = strings.TrimSpace(s)
	return s != "" && s[0] >= 'A' && s[0] <= 'Z'
}

// layer places a package in the import order cmd → server → answer →
// retrieval → inference → models. The sub-packages of server and
// retrieval sit just under their parent (server/web must not import
// server, retrieval/store must not import the engine); those of inference
// share its layer (they implement its interfaces). Tools (bench,
// reliability) stand outside: -1.
func layer(pkg string) float64 {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	top, sub, _ := strings.Cut(rel, "/")
	var l float64
	switch top {
	case "cmd":
		l = 6
	case "server":
		l = 5
	case "answer", "pkgdocs":
		l = 4
	case "retrieval":
		l = 3
	case "inference":
		l = 2
	case "models":
		l = 1
	default:
		return -1
	}
	if sub != "" && (top == "server" || top == "retrieval" || top == "pkgdocs") {
		l -= 0.5
	}
	return l
}

type listedPackage struct {
	ImportPath string
	Imports    []string
}

func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// leaves import nothing of gno: they are the algorithms the rest is built
// on, testable alone.
var leaves = []string{"retrieval/fusion", "retrieval/vector", "retrieval/graph", "retrieval/chunk", "retrieval/segment",
	"retrieval/links", "retrieval/display", "retrieval/gnoerr", "inference", "models"}

// TestImportsRunDown: cmd → server → answer → retrieval → inference →
// models, never back up; a sub-package never imports its parent; the
// leaves import nothing of gno.
func TestImportsRunDown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	isLeaf := map[string]bool{}
	for _, l := range leaves {
		isLeaf[module+"/"+l] = true
	}
	for _, p := range listPackages(t) {
		lp := layer(p.ImportPath)
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if isLeaf[p.ImportPath] {
				t.Errorf("leaf %s imports %s", p.ImportPath, imp)
			}
			li := layer(imp)
			if lp < 0 || li < 0 {
				if lp >= 0 && li < 0 {
					t.Errorf("%s imports the tool %s", p.ImportPath, imp)
				}
				continue
			}
			if li > lp {
				t.Errorf("%s (layer %v) imports %s (layer %v): imports run down only", p.ImportPath, lp, imp, li)
			}
		}
	}
}

// TestEngineIsSmall: the Engine opens, closes and configures the index
// and runs the searches; every other job is a part reached from it.
func TestEngineIsSmall(t *testing.T) {
	typ := reflect.TypeOf(&retrieval.Engine{})
	var names []string
	for i := range typ.NumMethod() {
		names = append(names, typ.Method(i).Name)
	}
	sort.Strings(names)
	if len(names) > 20 {
		t.Errorf("Engine has %d exported methods (at most 20): %s", len(names), strings.Join(names, " "))
	}
}

// maxLines is the size past which a file must say why it is one file.
const maxLines = 500

// TestFilesStaySmall: no non-test Go file over 500 lines unless a comment
// in it starts "// Size:" and gives the reason.
func TestFilesStaySmall(t *testing.T) {
	for _, f := range sourceFiles(t) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		n, reason := 0, false
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			n++
			if strings.HasPrefix(strings.TrimSpace(sc.Text()), "// Size:") {
				reason = true
			}
		}
		fh.Close()
		if n > maxLines && !reason {
			t.Errorf("%s has %d lines (over %d) and no \"// Size:\" comment saying why", f, n, maxLines)
		}
	}
}
