package reliability

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	_ "github.com/gnosearch/gno/retrieval/store/postgres" // postgres:// locations
	"github.com/gnosearch/gno/server/auth"
)

// Several servers over one PostgreSQL index (issue 31, "Several
// servers"): two `gno serve --listen-any` (TLS, access tokens), each with
// a GNO_HOME of its own as on two machines, and one syncing `gno daemon`
// share one Postgres database. While the daemon syncs edits, requests of
// every read kind (search, query fast, get, links, status; REST and MCP
// over HTTP) go to both servers: none may fail, and every document a
// search returns is gettable or NOT_FOUND by its ref (removed since),
// never a driver error. Before that, a token made in one home counts on
// both servers (and, revoked in the other, on neither), and a sync job
// started on one server is followed to its end from the other. The
// daemon is then SIGKILLed mid-sync, and `gno
// update` from the other home takes the writer lock and converges to the
// files. `make pg-multi` runs the full version (the Obsidian developer
// docs, 20,000 requests); the short one runs with the reliability tests
// when a Postgres server can be reached.

var (
	pgVault      = flag.String("pgvault", "/work/shared/eval/obsidian-developer-docs/vault", "pg-multi: the corpus of the full version (a folder of notes)")
	pgRequests   = flag.Int("pgrequests", 0, "pg-multi: requests across the servers (default 20000 with -full, 300 without)")
	pgThroughput = flag.Bool("pgthroughput", false, "TestPGThroughput: measure one server against two (bench/RESULTS.md)")
)

// driverText is what no error may carry: SQL, driver or server text (an
// answer's documents may say anything).
var driverText = regexp.MustCompile(`(?i)sqlstate|pgx|pgconn|sql: |syntax error at|relation "|duplicate key|violates|sqlite`)

var serveURLRE = regexp.MustCompile(`gno serve: (https://[^ \n]+?)/?\n`)

// pgServer is one `gno serve --listen-any` and a client pinned to it.
type pgServer struct {
	base   string
	proc   *exec.Cmd
	client *http.Client
	mcp    *httpConn
	log    *lockedBuf
}

type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// pgWorld is the homes, the index and the token of a several-servers run.
type pgWorld struct {
	t      *testing.T
	a, b   *env // two machines' homes over one notes folder
	url    string
	token  string
	served []*pgServer
}

// newPGWorld indexes the corpus into a fresh Postgres database from home
// a, creates a read token there, and registers the same folder in home b.
func newPGWorld(t *testing.T, vault string) *pgWorld {
	u := pgtest.Fresh(t) // skips, saying why, without a server
	var a *env
	if vault != "" {
		if _, err := os.Stat(vault); err != nil {
			t.Skipf("corpus %s: %v", vault, err)
		}
		a = newEnv(t, nil)
		copyTree(t, vault, a.notes)
	} else {
		a = newEnv(t, corpus(31, 120))
	}
	w := &pgWorld{t: t, a: a, url: u}
	a.vars = append(a.vars, "GNO_STORE_URL="+u)
	b := &env{t: t, dir: t.TempDir(), notes: a.notes}
	b.home = filepath.Join(b.dir, "home")
	b.vars = append(os.Environ(), "GNO_HOME="+b.home, "GNO_MODELS_DIR="+modelsDir(), "NO_COLOR=1", "GNO_STORE_URL="+u)
	b.mustGno("collection", "add", a.notes, "--name", "notes")
	w.b = b
	a.mustGno("update")
	var created struct{ Token string }
	if err := json.Unmarshal([]byte(a.mustGno("token", "create", "--read", "--name", "pg-multi", "--json").stdout), &created); err != nil {
		t.Fatal(err)
	}
	w.token = created.Token
	return w
}

// serve starts `gno serve --listen-any` in home e on 127.0.0.2 and dials
// it, pinning the certificate by its printed fingerprint.
func (w *pgWorld) serve(e *env) *pgServer {
	t := w.t
	t.Helper()
	// --enable-write: the read token still writes nothing; a write token
	// starts the jobs of the cross-server check.
	cmd := exec.Command(gnoBin(), "-v", "serve", "--listen-any", "--enable-write", "--addr", "127.0.0.2:0")
	cmd.Env = e.vars
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &pgServer{proc: cmd, log: &lockedBuf{}}
	type found struct{ url, fp string }
	fc := make(chan found, 1)
	go func() {
		r := bufio.NewReader(pr)
		var f found
		for {
			line, err := r.ReadString('\n')
			s.log.Write([]byte(line))
			if m := sharedFPRE.FindStringSubmatch(line); m != nil {
				f.fp = m[1]
			}
			if m := serveURLRE.FindStringSubmatch(line); m != nil && f.url == "" {
				f.url = m[1]
				fc <- f
			}
			if err != nil {
				return
			}
		}
	}()
	var f found
	select {
	case f = <-fc:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("gno serve --listen-any did not report its address: %s", s.log)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); pw.Close() })
	pin := &tls.Config{InsecureSkipVerify: true, VerifyConnection: func(cs tls.ConnectionState) error {
		if got := auth.Fingerprint(cs.PeerCertificates[0].Raw); got != f.fp {
			return fmt.Errorf("server certificate %s is not the printed %s", got, f.fp)
		}
		return nil
	}}
	s.base = f.url
	s.client = &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{TLSClientConfig: pin, MaxIdleConnsPerHost: 16}}
	s.mcp = &httpConn{url: f.url + "/mcp", bearer: w.token, proc: cmd, client: s.client}
	if err := initialize(bg(), s.mcp); err != nil {
		t.Fatalf("MCP over %s: %v\n%s", f.url, err, s.log)
	}
	w.served = append(w.served, s)
	return s
}

// answer is one REST answer: status, error code, body.
type answer struct {
	status int
	code   string
	body   []byte
}

func (s *pgServer) rest(ctx context.Context, token, path string, q url.Values) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path+"?"+q.Encode(), nil)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := s.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	a := answer{status: resp.StatusCode, body: b}
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil {
		a.code = e.Error.Code
	}
	return a, nil
}

// hits are the refs of a search answer's results.
func hits(body []byte) []string {
	var r struct {
		Results []struct{ URI, Docid string } `json:"results"`
	}
	json.Unmarshal(body, &r)
	var out []string
	for _, h := range r.Results {
		out = append(out, h.URI)
	}
	return out
}

// pgLoad is a mix of read requests against the servers, checked.
type pgLoad struct {
	w      *pgWorld
	mu     sync.Mutex
	refs   []string // refs seen in results, for get and links
	counts sync.Map // kind -> *atomic.Int64
	failed atomic.Int64
	errs   []string
}

func (l *pgLoad) fail(format string, args ...any) {
	l.failed.Add(1)
	l.mu.Lock()
	if len(l.errs) < 20 {
		l.errs = append(l.errs, fmt.Sprintf(format, args...))
	}
	l.mu.Unlock()
}

func (l *pgLoad) count(kind string) {
	v, _ := l.counts.LoadOrStore(kind, &atomic.Int64{})
	v.(*atomic.Int64).Add(1)
}

func (l *pgLoad) pick(rng *rand.Rand) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.refs) == 0 {
		return "gno://notes/none.md"
	}
	return l.refs[rng.IntN(len(l.refs))]
}

func (l *pgLoad) remember(refs []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range refs {
		if len(l.refs) < 5000 {
			l.refs = append(l.refs, r)
		} else {
			l.refs[len(l.refs)%5000] = r
		}
	}
}

var pgQueries = strings.Fields(`plugin settings vault workspace editor markdown view command modal
	theme css api event file folder link metadata frontmatter search sqlite journal checkpoint vector`)

// one sends one request of a random kind to s and checks the answer.
func (l *pgLoad) one(ctx context.Context, rng *rand.Rand, s *pgServer) {
	q := pgQueries[rng.IntN(len(pgQueries))] + " " + pgQueries[rng.IntN(len(pgQueries))]
	kind := []string{"search", "search", "query-fast", "get", "get", "links", "status", "mcp-search"}[rng.IntN(8)]
	l.count(kind)
	var a answer
	var err error
	ref := ""
	switch kind {
	case "search":
		a, err = s.rest(ctx, l.w.token, "/api/search", url.Values{"query": {q}, "limit": {"8"}})
	case "query-fast":
		a, err = s.rest(ctx, l.w.token, "/api/query", url.Values{"query": {q}, "limit": {"8"}, "fast": {"true"}})
	case "get":
		ref = l.pick(rng)
		a, err = s.rest(ctx, l.w.token, "/api/get", url.Values{"ref": {ref}, "maxBytes": {"2000"}})
	case "status":
		a, err = s.rest(ctx, l.w.token, "/api/status", nil)
	case "links", "mcp-search":
		name, args := "gno_search", map[string]any{"query": q, "limit": 8}
		if kind == "links" {
			ref = l.pick(rng)
			name, args = "gno_links", map[string]any{"ref": ref}
		}
		r, terr := tool(ctx, s.mcp, name, args)
		if terr != nil {
			l.fail("%s %s: %v", kind, s.base, terr)
			return
		}
		text := r.text() + string(r.StructuredContent)
		if r.IsError && driverText.MatchString(text) {
			l.fail("%s %s: driver text: %.300s", kind, s.base, text)
		}
		if r.IsError && !(kind == "links" && strings.Contains(text, "NOT_FOUND")) {
			l.fail("%s %s %q: tool error %.300s", kind, s.base, ref, text)
		}
		if kind == "mcp-search" {
			var sc struct{ Results []struct{ URI string } }
			json.Unmarshal(r.StructuredContent, &sc)
			for _, h := range sc.Results {
				l.remember([]string{h.URI})
			}
		}
		return
	}
	if err != nil {
		l.fail("%s %s: %v", kind, s.base, err)
		return
	}
	if a.status != http.StatusOK && driverText.Match(a.body) {
		l.fail("%s %s: driver text: %.300s", kind, s.base, a.body)
		return
	}
	switch {
	case a.status == http.StatusOK:
		if kind == "search" || kind == "query-fast" {
			l.remember(hits(a.body))
		}
	case a.status == http.StatusNotFound && a.code == "NOT_FOUND" && kind == "get" && strings.Contains(string(a.body), strings.TrimPrefix(ref, "gno://")):
		// removed since a search returned it: a consistent answer.
	default:
		l.fail("%s %s %q: HTTP %d %.300s", kind, s.base, ref, a.status, a.body)
	}
}

// run sends n requests from workers goroutines, spread across servers.
func (l *pgLoad) run(ctx context.Context, n, workers int, servers []*pgServer) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for i := range workers {
		rng := newRand(uint64(1000 + i))
		wg.Go(func() {
			for {
				k := next.Add(1)
				if k > int64(n) || ctx.Err() != nil {
					return
				}
				l.one(ctx, rng, servers[int(k)%len(servers)])
			}
		})
	}
	wg.Wait()
}

func TestPGMulti(t *testing.T) {
	vault, n := "", pick(300, 20000)
	if full() {
		vault = *pgVault
	}
	if *pgRequests > 0 {
		n = *pgRequests
	}
	w := newPGWorld(t, vault)
	s1, s2 := w.serve(w.a), w.serve(w.b)

	// A token created on one machine counts on both servers at once;
	// revoked, it is refused by both.
	var extra struct{ Token, ID string }
	if err := json.Unmarshal([]byte(w.b.mustGno("token", "create", "--read", "--json").stdout), &extra); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*pgServer{s1, s2} {
		if a, err := s.rest(bg(), extra.Token, "/api/status", nil); err != nil || a.status != http.StatusOK {
			t.Fatalf("a token created in the other home, on %s: %d %s %v", s.base, a.status, a.body, err)
		}
	}
	w.a.mustGno("token", "revoke", extra.ID)
	for _, s := range []*pgServer{s1, s2} {
		if a, err := s.rest(bg(), extra.Token, "/api/status", nil); err != nil || a.status != http.StatusUnauthorized {
			t.Fatalf("a revoked token, on %s: %d %s %v", s.base, a.status, a.body, err)
		}
	}

	w.jobsAcross(t, s1, s2)

	// The daemon syncs the edits made while the servers answer.
	// (--no-embed: here it syncs; embedding is the crash harness's.)
	daemon := w.a.start("daemon", "--addr", "127.0.0.1:0", "--debounce", daemonDebounce, "--no-embed")
	daemonReady(t, w.a, daemon)
	ctx, cancel := context.WithCancel(bg())
	defer cancel()
	rng := newRand(31)
	edits := make(chan int, 1)
	go func() {
		rounds := 0
		for ctx.Err() == nil {
			rounds++
			mutate(t, rng, w.a.notes, 100+rounds)
			select {
			case <-ctx.Done():
			case <-time.After(150 * time.Millisecond): // pacing, not synchronisation
			}
		}
		edits <- rounds
	}()
	l := &pgLoad{w: w}
	start := time.Now()
	l.run(ctx, n, 8, []*pgServer{s1, s2})
	took := time.Since(start)
	cancel()
	rounds := <-edits
	var kinds []string
	l.counts.Range(func(k, v any) bool {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("%d requests across 2 servers in %v (%.0f/s) during %d edit rounds: %s; %d failed",
		n, took.Round(time.Millisecond), float64(n)/took.Seconds(), rounds, strings.Join(kinds, ", "), l.failed.Load())
	if f := l.failed.Load(); f > 0 {
		t.Fatalf("%d of %d requests failed:\n%s\nLOG1 %s\nLOG2 %s", f, n, strings.Join(l.errs, "\n"), s1.log, s2.log)
	}

	// The daemon has synced edits while the servers answered (it may
	// still be at its first when the load is short: wait for it).
	gen := w.generation(t)
	for deadline := time.Now().Add(2 * time.Minute); gen < 2 && time.Now().Before(deadline); gen = w.generation(t) {
		time.Sleep(50 * time.Millisecond)
	}
	if gen < 2 {
		t.Fatalf("the daemon synced nothing: %s", w.a.gno("daemon", "status"))
	}
	t.Logf("the daemon synced to generation %d: %s", gen, strings.Join(strings.Fields(w.a.gno("daemon", "status").stdout), " "))

	// Kill the daemon mid-sync; the other home's `gno update` takes the
	// lock and converges to the files.
	mutate(t, rng, w.a.notes, 9999)
	for i := range 50 {
		mutate(t, rng, w.a.notes, 10000+i)
	}
	done := make(chan error, 1)
	go func() { done <- daemon.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("the daemon exited by itself (%v): %s", err, daemon.Stderr)
	case <-time.After(time.Duration(30+rng.IntN(200)) * time.Millisecond):
	}
	daemon.Process.Signal(syscall.SIGKILL)
	<-done
	// The killed daemon's connections close with it; the server ends
	// their sessions and their advisory lock with them (update waits for
	// the writer lock up to --wait).
	r := w.b.gno("update", "--wait", "2m", "--json")
	if r.code != 0 {
		t.Fatalf("gno update after the kill: %s", r)
	}
	w.converged(t)
	t.Logf("after the kill, gno update in the other home: %s", strings.Join(strings.Fields(r.stdout), " "))
}

// jobsAcross starts a sync job over MCP on one server and follows it
// from the other: found at once, then completed with its result.
func (w *pgWorld) jobsAcross(t *testing.T, s1, s2 *pgServer) {
	t.Helper()
	var wt struct{ Token string }
	if err := json.Unmarshal([]byte(w.a.mustGno("token", "create", "--write", "--json").stdout), &wt); err != nil {
		t.Fatal(err)
	}
	session := func(s *pgServer) *httpConn {
		c := &httpConn{url: s.base + "/mcp", bearer: wt.Token, proc: s.proc, client: s.client}
		if err := initialize(bg(), c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c1, c2 := session(s1), session(s2)
	r, err := tool(bg(), c1, "gno_sync", map[string]any{})
	if err != nil || r.IsError {
		t.Fatalf("gno_sync on %s: %v %s", s1.base, err, r.text())
	}
	var started struct{ JobID string }
	json.Unmarshal(r.StructuredContent, &started)
	var job struct{ Status string }
	for deadline := time.Now().Add(2 * time.Minute); ; {
		r, err := tool(bg(), c2, "gno_job_status", map[string]any{"jobId": started.JobID})
		if err != nil || r.IsError {
			t.Fatalf("gno_job_status of %s's job %s on %s: %v %s", s1.base, started.JobID, s2.base, err, r.text())
		}
		json.Unmarshal(r.StructuredContent, &job)
		if job.Status != "running" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if job.Status != "completed" {
		t.Fatalf("the job seen from the other server: %s", job.Status)
	}
	r, err = tool(bg(), c2, "gno_list_jobs", map[string]any{})
	if err != nil || r.IsError || !strings.Contains(string(r.StructuredContent), started.JobID) {
		t.Fatalf("gno_list_jobs on %s lacks %s: %v %s", s2.base, started.JobID, err, r.text())
	}
	t.Logf("job %s started on one server, followed to %q on the other", started.JobID, job.Status)
}

// generation is the index's generation, read from the database.
func (w *pgWorld) generation(t *testing.T) int64 {
	t.Helper()
	st, err := store.OpenBackend(bg(), w.url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, err := st.Generation(bg())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// converged checks the index against the files: a second update finds
// nothing to do, every file is indexed with its content and nothing else
// is, and the store's own check finds no fault.
func (w *pgWorld) converged(t *testing.T) {
	t.Helper()
	var res struct {
		Collections []struct{ Added, Updated, Removed int }
	}
	r := w.a.mustGno("update", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Collections {
		if c.Added+c.Updated+c.Removed != 0 {
			t.Fatalf("the index had not converged: a second update changed %+v", c)
		}
	}
	ctx := bg()
	st, err := store.OpenBackend(ctx, w.url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if problems, err := st.Check(ctx); err != nil || len(problems) > 0 {
		t.Fatalf("index check: %v %v", problems, err)
	}
	states, err := st.DocStates(ctx, "notes")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	filepath.WalkDir(w.a.notes, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(w.a.notes, p)
			files[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	for rel, ds := range states {
		if !files[rel] {
			t.Errorf("indexed %s is not a file", rel)
			continue
		}
		want, _ := os.ReadFile(filepath.Join(w.a.notes, filepath.FromSlash(rel)))
		got, err := st.Content(ctx, ds.ID)
		if err != nil || got != string(want) {
			t.Errorf("%s: the index holds another content (%v)", rel, err)
		}
	}
	if len(states) != len(files) {
		missing := 0
		for rel := range files {
			if _, ok := states[rel]; !ok {
				missing++
			}
		}
		// A file gno skips (empty, unreadable) is not indexed; none of
		// these is.
		if missing > 0 {
			t.Errorf("%d files not indexed (%d indexed, %d files)", missing, len(states), len(files))
		}
	}
}

// cpuTicks is a process's user+system CPU in clock ticks (/proc).
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var u, sy int64
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &sy)
	return u + sy
}

// pgTicks is the CPU of every process of the Postgres server the test
// uses (the postmaster's children), found by its data folder.
func pgTicks() int64 {
	dir := os.Getenv("GNO_PG_DIR")
	if dir == "" {
		dir = filepath.Join("..", ".cache", "pg")
	}
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	var pm int
	fmt.Sscan(string(b), &pm)
	total := cpuTicks(pm)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(st)
		var ppid int
		fmt.Sscan(strings.Fields(s[strings.LastIndexByte(s, ')')+2:])[1], &ppid)
		if ppid == pm {
			total += cpuTicks(pid)
		}
	}
	return total
}

// selfTicks is this test process's CPU (the load generator).
func selfTicks() int64 { return cpuTicks(os.Getpid()) }

// TestPGThroughput measures a read-only load (REST search, query fast,
// get, status; MCP search and links) against one server, then the same
// against two, over one Postgres index, with each side's CPU: the
// servers', Postgres's, the load generator's. Figures go to
// bench/RESULTS.md; it asserts nothing about speed.
func TestPGThroughput(t *testing.T) {
	if !*pgThroughput {
		t.Skip("a measurement: run it with -pgthroughput (make pg-throughput)")
	}
	vault := *pgVault
	n := *pgRequests
	if n == 0 {
		n = 4000
	}
	w := newPGWorld(t, vault)
	s1, s2 := w.serve(w.a), w.serve(w.b)
	warm := &pgLoad{w: w}
	warm.run(bg(), 400, 8, []*pgServer{s1, s2})
	for _, workers := range []int{4, 8, 16} {
		for _, set := range [][]*pgServer{{s1}, {s1, s2}} {
			l := &pgLoad{w: w, refs: warm.refs}
			t0, p0, c0 := time.Now(), pgTicks(), selfTicks()
			var g0 int64
			for _, s := range set {
				g0 += cpuTicks(s.proc.Process.Pid)
			}
			l.run(bg(), n, workers, set)
			wall := time.Since(t0).Seconds()
			var g1 int64
			for _, s := range set {
				g1 += cpuTicks(s.proc.Process.Pid)
			}
			const hz = 100.0
			p1 := pgTicks()
			t.Logf("servers=%d workers=%d requests=%d failed=%d wall=%.1fs rate=%.0f/s cpu: gno %.1fs, postgres %.1fs, load generator %.1fs (per request: gno %.2f ms, postgres %.2f ms)",
				len(set), workers, n, l.failed.Load(), wall, float64(n)/wall, float64(g1-g0)/hz, float64(p1-p0)/hz, float64(selfTicks()-c0)/hz,
				float64(g1-g0)/hz/float64(n)*1000, float64(p1-p0)/hz/float64(n)*1000)
			if l.failed.Load() > 0 {
				t.Errorf("failures: %s", strings.Join(l.errs, "\n"))
			}
		}
	}
}
