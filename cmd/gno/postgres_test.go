package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// TestCLIPostgresDoctor: gno doctor and gno status on a Postgres index
// with a read replica: the server, pgvector, schema, writer lock and the
// replica's lag are checked and shown, the password never; a replica
// given as the store is refused with a clear error.
func TestCLIPostgresDoctor(t *testing.T) {
	u := pgtest.Fresh(t)
	pw, _ := mustURL(t, u).User.Password()
	c := cli{t: t, home: t.TempDir(), store: u}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.md"), []byte("# Alpha\n\nThe quick brown fox.\n"), 0o644)
	c.ok("init")
	c.ok("collection", "add", root, "--name", "docs")
	c.ok("update")
	r := pgtest.StartReplica(t)
	ru := r.On(t, u)
	r.CatchUp(t, u)

	out, errOut, _ := c.run("doctor", "--json", "--read-url", ru)
	if strings.Contains(out+errOut, pw) {
		t.Fatalf("doctor printed the password:\n%s%s", out, errOut)
	}
	var doc struct{ Checks []check }
	// Models are missing here, so doctor fails and prints its error
	// object after the checks: read the first value.
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&doc); err != nil {
		t.Fatalf("doctor --json: %v\n%s%s", err, out, errOut)
	}
	got := map[string]check{}
	for _, ch := range doc.Checks {
		got[ch.Name] = ch
	}
	for _, name := range []string{"store server", "store TLS", "pgvector", "schema", "writer lock", "read replica", "replica TLS"} {
		if got[name].Status != "ok" {
			t.Errorf("doctor check %q: %+v", name, got[name])
		}
	}
	// The replica can be a few bytes behind again by the time doctor
	// looks (the server's own WAL records, e.g. the running-transactions
	// snapshot, and doctor's reads' bookkeeping): either is a lag report.
	lag := got["read replica"].Detail
	if !strings.Contains(lag, "caught up") && !strings.Contains(lag, "of WAL behind") || !strings.Contains(got["writer lock"].Detail, "free") {
		t.Errorf("doctor: %+v %+v", got["read replica"], got["writer lock"])
	}

	out = c.ok("status", "--json", "--read-url", ru)
	var st struct {
		Server struct {
			Version, Vector, Schema string
			Replica                 *struct {
				Standby  bool
				LagBytes int64
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Server.Version == "" || st.Server.Replica == nil || !st.Server.Replica.Standby {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if out := c.ok("status", "--read-url", ru); !strings.Contains(out, "Read replica:") || strings.Contains(out, pw) {
		t.Fatalf("status:\n%s", out)
	}
	if out := c.ok("search", "fox", "--read-url", ru, "--json"); !strings.Contains(out, "a.md") || !strings.Contains(out, `"replica"`) {
		t.Fatalf("search on the replica:\n%s", out)
	}

	c.store = ru
	_, errOut, code := c.run("status")
	if code == 0 || !strings.Contains(errOut, "read-only replica") || strings.Contains(errOut, pw) {
		t.Fatalf("a replica as the store: exit %d: %s", code, errOut)
	}
}

func mustURL(t *testing.T, u string) *url.URL {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
