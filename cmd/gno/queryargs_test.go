package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestQueryArgs(t *testing.T) {
	for _, tc := range []struct {
		in    string
		query string // the query cobra hands the command
		limit int
		coll  string
		help  bool
	}{
		{in: "search -draft budget", query: "-draft budget", limit: 10},
		{in: "search budget -draft", query: "budget -draft", limit: 10},
		// -h is a flag and n takes a number: "-hnsw" is not -h -n sw.
		{in: "search -hnsw fusion", query: "-hnsw fusion", limit: 10},
		{in: "search -n5 fusion", query: "fusion", limit: 5},
		{in: "search -n 5 fusion", query: "fusion", limit: 5},
		{in: "search -n=5 fusion", query: "fusion", limit: 5},
		{in: "search fusion -n5 -draft", query: "fusion -draft", limit: 5},
		{in: "search -vn3 fusion", query: "fusion", limit: 3},
		{in: "search --limit 2 -x fusion", query: "-x fusion", limit: 2},
		{in: "search --limit=2 fusion", query: "fusion", limit: 2},
		// A value glued to a string shorthand is a word: "-cats" excludes cats.
		{in: "search -cats fusion", query: "-cats fusion", limit: 10},
		{in: "search -c notes fusion", query: "fusion", limit: 10, coll: "notes"},
		{in: "search -c -x fusion", query: "fusion", limit: 10, coll: "-x"},
		{in: "search --collection notes -- -n5 fusion", query: "-n5 fusion", limit: 10, coll: "notes"},
		{in: "search -- -draft budget", query: "-draft budget", limit: 10},
		{in: "search -5 fusion", query: "-5 fusion", limit: 10},
		{in: "--index x search -draft budget --json", query: "-draft budget", limit: 10},
		{in: "query -draft budget --fast -n1", query: "-draft budget", limit: 1},
		{in: "vsearch -n2 -draft", query: "-draft", limit: 2},
		{in: "search -h", limit: 10, help: true},
	} {
		a := &app{stdout: io.Discard, stderr: io.Discard}
		root := newRootCmd(a)
		args := queryArgs(root, strings.Fields(tc.in))
		cmd, rest, err := root.Find(args)
		if err != nil {
			t.Fatalf("%s: find: %v", tc.in, err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%s → %q: %v", tc.in, args, err)
			continue
		}
		query := strings.Join(cmd.Flags().Args(), " ")
		limit, _ := cmd.Flags().GetInt("limit")
		coll, _ := cmd.Flags().GetString("collection")
		help, _ := cmd.Flags().GetBool("help")
		if query != tc.query || limit != tc.limit || coll != tc.coll || help != tc.help {
			t.Errorf("%s → %q: query %q limit %d collection %q help %v; want %q %d %q %v",
				tc.in, args, query, limit, coll, help, tc.query, tc.limit, tc.coll, tc.help)
		}
	}
}

// TestQueryArgsLeavesOthers checks that commands without a query and
// unknown double-dash flags keep cobra's own handling.
func TestQueryArgsLeavesOthers(t *testing.T) {
	a := &app{stdout: io.Discard, stderr: io.Discard}
	for _, in := range []string{"get -l 5 x", "collection add -x", "ls -z", "help search", "--version"} {
		args := strings.Fields(in)
		if got := queryArgs(newRootCmd(a), args); !slices.Equal(got, args) {
			t.Errorf("%s rewritten to %q", in, got)
		}
	}
	root := newRootCmd(a)
	cmd, rest, err := root.Find(queryArgs(root, []string{"search", "--limt", "3", "x"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags(rest); err == nil || !strings.Contains(err.Error(), "--limt") {
		t.Errorf("a misspelt flag was not reported: %v", err)
	}
}

// TestCLIExclusionQuery runs the binary: a query starting with "-" is
// searched, not refused as an unknown flag.
func TestCLIExclusionQuery(t *testing.T) {
	c := newCLI(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.md"), []byte("# A\n\nbudget draft\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.md"), []byte("# B\n\nbudget final\n"), 0o644)
	os.WriteFile(filepath.Join(root, "c.md"), []byte("# C\n\nhnsw fusion\n"), 0o644)
	os.WriteFile(filepath.Join(root, "d.md"), []byte("# D\n\nfusion ranking\n"), 0o644)
	c.ok("collection", "add", root, "--name", "docs")
	c.ok("update")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "-draft", "budget", "--format", "files"}, "b.md"},
		{[]string{"search", "-hnsw", "fusion", "--format", "files"}, "d.md"},
		{[]string{"search", "--format", "files", "--", "-hnsw", "fusion"}, "d.md"},
		{[]string{"search", "-n1", "budget", "--format", "files"}, ".md"},
	} {
		out := strings.TrimSpace(c.ok(tc.args...))
		if lines := strings.Split(out, "\n"); len(lines) != 1 || !strings.HasSuffix(lines[0], tc.want) {
			t.Errorf("gno %s: %q, want one hit ending %s", strings.Join(tc.args, " "), out, tc.want)
		}
	}
}
