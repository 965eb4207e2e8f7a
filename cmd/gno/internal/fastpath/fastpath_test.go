package fastpath

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// TestInitOrder: the fast path depends on nothing package os does not
// already need (besides its two gno packages), so Go runs its init right
// after os's, before any heavy package (see the package doc). A new
// import here, in config/dirs or in daemon/wire must keep that.
func TestInitOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	deps := func(pkg string) map[string]bool {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		m := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			m[p] = true
		}
		return m
	}
	allowed := deps("os")
	const mod = "github.com/gnosearch/gno/"
	for _, p := range []string{"retrieval/config/dirs", "server/daemon/wire", "cmd/gno/internal/fastpath"} {
		allowed[mod+p] = true
	}
	var extra []string
	for p := range deps(".") {
		if !allowed[p] {
			extra = append(extra, p)
		}
	}
	if len(extra) > 0 {
		t.Errorf("the fast path imports %v, which package os does not: its init would run after dozens of others'", extra)
	}
}

// TestParse reads the global flags wherever they stand.
func TestParse(t *testing.T) {
	cases := []struct {
		args []string
		want Line
	}{
		{[]string{"search", "x"}, Line{Command: "search", Sub: "x"}},
		{[]string{"--index", "notes", "--json", "get", "#abc"}, Line{Command: "get", Sub: "#abc", Index: "notes"}},
		{[]string{"search", "x", "--index=w", "--config", "c.yml", "-v"}, Line{Command: "search", Sub: "x", Index: "w", Config: "c.yml", Verbose: true}},
		{[]string{"packages", "search", "retry", "--project", "."}, Line{Command: "packages", Sub: "search"}},
		{[]string{"packages", "--help"}, Line{Command: "packages"}},
		{[]string{"--no-daemon", "ls"}, Line{Command: "ls", NoDaemon: true}},
		{[]string{"search", "--", "--no-daemon"}, Line{Command: "search"}},
		{[]string{"--version"}, Line{}},
		{[]string{"--config"}, Line{}},
	}
	for _, c := range cases {
		if got := Parse(c.args); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", c.args, got, c.want)
		}
	}
	for _, cmd := range [][2]string{{"update", ""}, {"embed", ""}, {"note", "update"}, {"tag", ""}, {"collection", "add"}, {"serve", ""},
		{"mcp", "install"}, {"daemon", ""}, {"watch", ""}, {"cleanup", ""}, {"help", ""}, {"packages", "add"}, {"packages", "rm"}, {"packages", ""}, {"reconcile", "mark"}, {"reconcile", "clear"}} {
		if IsRead(cmd[0], cmd[1]) {
			t.Errorf("%s %s is not a read command", cmd[0], cmd[1])
		}
	}
	for _, sub := range []string{"search", "describe", "list", "diff"} {
		if !IsRead("packages", sub) {
			t.Errorf("packages %s reads", sub)
		}
	}
}
