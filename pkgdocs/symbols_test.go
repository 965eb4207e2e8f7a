package pkgdocs

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/pkgtest"
	"github.com/gnosearch/gno/retrieval"
)

func TestSplitSymbol(t *testing.T) {
	for in, want := range map[string]string{
		"PersistentFlags":                 "PersistentFlags",
		"errgroup.SetLimit":               "errgroup SetLimit",
		"cobra.Command.PersistentFlags()": "cobra Command PersistentFlags",
		"z.string().email()":              "z string email",
		"std::collections::HashMap":       "std collections HashMap",
		"Command#run":                     "Command run",
		"os/exec.Command":                 "os exec Command",
		"Vec<T>::push":                    "Vec push",
		"foo(a, b).bar":                   "foo bar",
		"self->next":                      "self next",
		"3.14":                            "",
		"v1.2.3":                          "",
		"https://x.y":                     "",
		"":                                "",
	} {
		if got := strings.Join(splitSymbol(in), " "); got != want {
			t.Errorf("splitSymbol(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSymbolRefs(t *testing.T) {
	isPkg := func(w string) bool { return w == "itertools" || w == "rich" }
	for q, want := range map[string]string{
		// Names, however written.
		"PersistentFlags":                        "PersistentFlags",
		"raise_for_status":                       "raise_for_status",
		"uuid.newstring":                         "uuid newstring",
		"how does errgroup.SetLimit work":        "errgroup SetLimit",
		"`z.string().email()` rejects my input?": "z string email",
		"std::collections::HashMap":              "std collections HashMap",
		"difference between parse and safeParse": "safeParse",
		"itertools join":                         "itertools join",
		"rich Console.print":                     "rich Console print",
		"implement Deserialize by hand":          "~Deserialize",
		// How-to questions: no name in them.
		"how do I parse a uuid from text":         "",
		"retry a failing promise a few times":     "",
		"Parse a UUID and check it is valid":      "",
		"add a --version flag to a click program": "",
		"print bold red text in the terminal":     "",
		"run goroutines in Go and wait for them":  "",
		"a value that can match this and/or that": "and or",
	} {
		var got []string
		for _, r := range symbolRefs(q, isPkg) {
			s := strings.Join(r.parts, " ")
			if r.weak {
				s = "~" + s
			}
			got = append(got, s)
		}
		if g := strings.Join(got, "|"); g != want {
			t.Errorf("symbolRefs(%q) = %q, want %q", q, g, want)
		}
	}
}

func TestMatchSymbol(t *testing.T) {
	unit := func(sym string) retrieval.PackageUnit { return retrieval.PackageUnit{Symbol: sym} }
	for _, c := range []struct {
		ref, sym, pkg string
		want          int
		ok            bool
	}{
		{"PersistentFlags", "Command.PersistentFlags", "github.com/spf13/cobra", 0, true},
		{"cobra.Command.PersistentFlags", "Command.PersistentFlags", "github.com/spf13/cobra", 5, true},
		{"errgroup.SetLimit", "errgroup.Group.SetLimit", "golang.org/x/sync", 2, true},
		{"z.string.email", "ZodString.email", "zod", 2, true},
		{"and.or", "ZodType.or", "zod", -2, true},
		{"anyhow.Context", "Context", "anyhow", 3, true},
		{"dateutil.relativedelta", "dateutil.relativedelta.relativedelta", "python-dateutil", 2, true},
		{"email", "ZodString.url", "zod", 0, false},
	} {
		ref := symbolRef{parts: splitSymbol(c.ref)}
		got, ok := matchSymbol(ref, unit(c.sym), c.pkg)
		if got != c.want || ok != c.ok {
			t.Errorf("matchSymbol(%q, %q, %q) = %d %v, want %d %v", c.ref, c.sym, c.pkg, got, ok, c.want, c.ok)
		}
	}
	// A weak reference counts only with the item's case.
	if _, ok := matchSymbol(symbolRef{parts: []string{"Lazy"}, weak: true}, unit("sync::lazy"), "once_cell"); ok {
		t.Error("weak reference matched another case")
	}
}

func TestDunderClass(t *testing.T) {
	for in, want := range map[string]string{"a.B.__init__": "a.B", "tenacity.stop.stop_after_attempt.__call__": "tenacity.stop.stop_after_attempt", "a.__x": "", "__init__": "", "a.B.init": ""} {
		if got, _ := dunderClass(in); got != want {
			t.Errorf("dunderClass(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExactSymbolLookup: on real packages installed by their clients, a
// query that names an item finds it first in every written form, a
// describe accepts the same forms, and a how-to question that shares a
// word with an item's name is not taken over by it.
func TestExactSymbolLookup(t *testing.T) {
	needClients(t)
	ctx := context.Background()
	x := newIndex(t)
	dir := project(t, pkgtest.Default)
	add(t, x, dir, AddOptions{})
	for q, want := range map[string]string{
		"PersistentFlags":                          "Command.PersistentFlags",
		"persistentflags":                          "Command.PersistentFlags",
		"cobra.Command.PersistentFlags()":          "Command.PersistentFlags",
		"Command#PersistentFlags":                  "Command.PersistentFlags",
		"what does MarkFlagsMutuallyExclusive do?": "Command.MarkFlagsMutuallyExclusive",
		"requiredOption":                           "Command.requiredOption",
		"program.requiredOption()":                 "Command.requiredOption",
		"anyhow::Context":                          "Context",
		"click.pass_context":                       "click.pass_context",
	} {
		for _, mode := range []string{ModeSearch, ModeFast} {
			res, err := x.Search(ctx, SearchRequest{Query: q, Projects: []string{dir}, Mode: mode, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) == 0 || res.Results[0].Symbol == nil || res.Results[0].Symbol.Name != want {
				t.Errorf("%s %q: want %s first, got\n%s", mode, q, want, describeResults(res))
			}
		}
	}
	// A how-to question with a word of a name is searched, not looked up.
	res, err := x.Search(ctx, SearchRequest{Query: "how do I add a command to my program", Projects: []string{dir}, Mode: ModeSearch, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.Score == 1 && r.Symbol != nil && strings.EqualFold(leaf(r.Symbol.Name), "command") {
			t.Errorf("how-to question taken over by %s:\n%s", r.Symbol.Name, describeResults(res))
		}
	}
	// A prose hit is shown whole and expands to its section by its URI
	// and line, or by its heading path.
	res, err = x.Search(ctx, SearchRequest{Query: "persistent flags available to every command under it", Package: "cobra", Projects: []string{dir}, Mode: ModeSearch, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var hit *retrieval.Result
	for i, r := range res.Results {
		if r.Symbol == nil && strings.HasSuffix(r.Headings, "Persistent Flags") {
			hit = &res.Results[i]
			break
		}
	}
	if hit == nil {
		t.Fatalf("no Persistent Flags section in\n%s", describeResults(res))
	}
	if strings.HasSuffix(hit.Snippet, " …") && !strings.HasSuffix(strings.TrimSuffix(hit.Snippet, " …"), ".") && !strings.HasSuffix(strings.TrimSuffix(hit.Snippet, " …"), "```") {
		t.Errorf("hit cut mid-sentence: %q", hit.Snippet)
	}
	for _, sec := range []string{fmt.Sprintf("%s#L%d", hit.URI, hit.Lines.Start), hit.Headings} {
		page, err := x.GetDoc(ctx, GetDocRequest{Package: "cobra", Section: sec, Projects: []string{dir}})
		if err != nil || page.Section != "Persistent Flags" || !strings.Contains(page.Content, "PersistentFlags()") {
			t.Errorf("get doc section %q: %v %+v", sec, err, page)
		}
	}
	for form, want := range map[string]string{
		"cobra.Command.PersistentFlags()": "Command.PersistentFlags",
		"Command#PersistentFlags":         "Command.PersistentFlags",
		"command.persistentflags":         "Command.PersistentFlags",
	} {
		d, err := x.Describe(ctx, DescribeRequest{Package: "cobra", Symbol: form, Projects: []string{dir}})
		if err != nil || d.Symbol == nil || d.Symbol.Name != want {
			t.Errorf("describe --symbol %q: %v %+v", form, err, d)
		}
	}
	// get-doc with a query of several words serves the item it names
	// first.
	for q, want := range map[string]string{
		"how do I use PersistentFlags":              "Command.PersistentFlags",
		"cobra Command.PersistentFlags":             "Command.PersistentFlags",
		"Command.PersistentFlags flags of children": "Command.PersistentFlags",
		"HasAvailableFlags or LocalFlags":           "Command.HasAvailableFlags", // the first named
		"LocalFlags or HasAvailableFlags":           "Command.LocalFlags",
	} {
		page, err := x.GetDoc(ctx, GetDocRequest{Package: "cobra", Query: q, Projects: []string{dir}})
		if err != nil || len(page.Units) == 0 || page.Units[0].Title != want {
			t.Errorf("get doc query %q: want %s first: %v %+v", q, want, err, page)
		}
	}
	// A module path no longer stored: the item of the same case.
	if d, err := x.Describe(ctx, DescribeRequest{Package: "click", Symbol: "click.decorators.command", Projects: []string{dir}}); err != nil || d.Symbol == nil || d.Symbol.Name != "click.command" {
		t.Errorf("describe click.decorators.command: %v %+v", err, d)
	}
}

func TestSectionAt(t *testing.T) {
	text := "# User Guide\n\nintro\n\n## Working with Flags\n\n### Persistent Flags\n\nA flag can be persistent.\n\n### Local Flags\n\nlocal\n\n## Other\n\n### Persistent Flags\n\nnot this one\n"
	secs := sections(text)
	sec, ok := sectionAt(secs, strings.Split("User Guide > Working with Flags > Persistent Flags", " > "))
	if !ok || !strings.Contains(text[sec.Start:sec.End], "A flag can be persistent.") || strings.Contains(text[sec.Start:sec.End], "local") {
		t.Fatalf("sectionAt: %v %q", ok, text[sec.Start:sec.End])
	}
	if sec, ok := sectionAt(secs, []string{"Other", "Persistent Flags"}); !ok || !strings.Contains(text[sec.Start:sec.End], "not this one") {
		t.Fatalf("sectionAt under Other: %v %+v", ok, sec)
	}
	if _, ok := sectionAt(secs, []string{"Nowhere", "Persistent Flags"}); ok {
		t.Fatal("sectionAt matched a path that is not there")
	}
	// Line 9 is inside "Persistent Flags" under "Working with Flags".
	if sec, ok := sectionOfLine(secs, text, 9); !ok || sec.Title != "Persistent Flags" || !strings.Contains(text[sec.Start:sec.End], "persistent.") {
		t.Fatalf("sectionOfLine: %v %+v", ok, sec)
	}
}

func TestCutSentence(t *testing.T) {
	s := "First sentence here. Second sentence is longer than that. Third."
	if got := cutSentence(s, 40); got != "First sentence here. …" {
		t.Errorf("cutSentence = %q", got)
	}
	if got := cutSentence(s, 200); got != s {
		t.Errorf("short text changed: %q", got)
	}
	if got := cutSentence("text\n\n```go\nfunc A() {}\nfunc B() {}\n```\n", 30); strings.Count(got, "```")%2 != 0 {
		t.Errorf("open fence: %q", got)
	}
}

func TestDemoteOverviews(t *testing.T) {
	rs := []retrieval.Result{
		{URI: "pkg", Score: 0.9, Symbol: &retrieval.Symbol{Name: "golang.org/x/sync/semaphore", Kind: "package"}},
		{URI: "item", Score: 0.85, Symbol: &retrieval.Symbol{Name: "semaphore.Weighted.TryAcquire", Kind: "method"}},
		{URI: "far", Score: 0.5, Symbol: &retrieval.Symbol{Name: "semaphore.Weighted", Kind: "struct"}},
	}
	got := demoteOverviews(rs)
	if got[0].URI != "item" || got[1].URI != "pkg" || got[2].URI != "far" {
		t.Errorf("order %s %s %s", got[0].URI, got[1].URI, got[2].URI)
	}
}

// TestDemotePackageExamples: an example of a whole package (a Go
// Example_name, a shipped examples/ or _examples/ program) is weighted
// packageExampleWeight; an example of one item, prose and items are not.
func TestDemotePackageExamples(t *testing.T) {
	chi := &retrieval.PackageRef{Ecosystem: "go", Name: "github.com/go-chi/chi/v5", Version: "v5.2.1"}
	res := func(path string, sym *retrieval.Symbol) retrieval.Result {
		return retrieval.Result{URI: path, Score: 1, Package: chi, Symbol: sym, Source: retrieval.Source{RelPath: path}}
	}
	for _, c := range []struct {
		r    retrieval.Result
		want bool
	}{
		{res("_examples/limits/main.go", nil), true},
		{res("examples/regex.rs", nil), true},
		{res("example/Example_strictDecoding", nil), true},
		{res("example/middleware/ExampleThrottle", nil), false},
		{func() retrieval.Result {
			r := res("example/ser::SerializeSeq", nil)
			r.Package = &retrieval.PackageRef{Ecosystem: "rust", Name: "serde", Version: "1.0.219"}
			return r
		}(), false},
		{res("api/middleware.Throttle", &retrieval.Symbol{Name: "middleware.Throttle", Kind: "func"}), false},
		{res("readme.md", nil), false},
		{res("docs/examples.md", nil), false},
	} {
		if got := packageExample(c.r); got != c.want {
			t.Errorf("packageExample(%s) = %v, want %v", c.r.Source.RelPath, got, c.want)
		}
	}
	rs := []retrieval.Result{res("_examples/limits/main.go", nil), res("api/middleware.Throttle", &retrieval.Symbol{Name: "middleware.Throttle", Kind: "func"})}
	rs[1].Score = 0.9
	got := demoteOverviews(rs)
	if got[0].URI != "api/middleware.Throttle" || got[1].Score != packageExampleWeight {
		t.Errorf("order %s (%v) %s (%v)", got[0].URI, got[0].Score, got[1].URI, got[1].Score)
	}
}

func TestAboveMinScore(t *testing.T) {
	rs := []retrieval.Result{{URI: "a", Score: 0.9}, {URI: "b", Score: 0.45}, {URI: "c", Score: 0.5}}
	if got := aboveMinScore(append([]retrieval.Result(nil), rs...), 0, false); len(got) != 3 {
		t.Errorf("no minimum: %d results", len(got))
	}
	if got := aboveMinScore(rs, 0.5, false); len(got) != 2 || got[0].URI != "a" || got[1].URI != "c" {
		t.Errorf("minimum 0.5: %+v", got)
	}
	// A property between the minimum and minimum/dataWeight: weighData
	// takes it below the minimum, which is held to its score before.
	prop := func() []retrieval.Result {
		return []retrieval.Result{
			{URI: "m", Score: 0.6, Symbol: &retrieval.Symbol{Name: "Client.send", Kind: "method"}},
			{URI: "p", Score: 0.55, Symbol: &retrieval.Symbol{Name: "Client.timeout", Kind: "property", Signature: "timeout: number"}},
			{URI: "low", Score: 0.45, Symbol: &retrieval.Symbol{Name: "Client.retries", Kind: "property", Signature: "retries: number"}},
		}
	}
	if got := aboveMinScore(weighData(prop()), 0.5, true); len(got) != 2 || got[0].URI != "m" || got[1].URI != "p" {
		t.Errorf("weighed property dropped or a low one kept: %+v", got)
	}
	if got := aboveMinScore(prop(), 0.5, false); len(got) != 2 {
		t.Errorf("unweighed: %+v", got)
	}
}

// TestRescorePlain: a plain-words question gets the rescoring unless it
// names a symbol exactly; then the engine's order stands behind the
// exact hit.
func TestRescorePlain(t *testing.T) {
	for q, want := range map[string]bool{
		"how do I retry a request with backoff": true,
		"how do I add a Router with middleware": false, // Router found exactly
		"itertools combinations":                false, // combinations found exactly
	} {
		exact := 0
		if !want {
			exact = 1
		}
		if !plainQuestion(q) {
			t.Fatalf("%q is not plain words: the case tests nothing", q)
		}
		if got := rescorePlain(q, exact); got != want {
			t.Errorf("rescorePlain(%q, %d) = %v, want %v", q, exact, got, want)
		}
	}
}
