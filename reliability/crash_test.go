package reliability

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// crashStats are the figures the crash harness reports.
type crashStats struct {
	mu                  sync.Mutex
	kills, completed    map[string]int
	bytesLost, tempLeft int
}

func (s *crashStats) add(kind string, killed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if killed {
		s.kills[kind]++
	} else {
		s.completed[kind]++
	}
}

// killer kills a process after a random delay drawn from [0, est), where
// est follows the runs that finished before their kill, so kills spread
// over the whole of an operation rather than its start-up.
type killer struct {
	est map[string]time.Duration
}

func (k *killer) delay(rng *rand.Rand, kind string) time.Duration {
	est := k.est[kind]
	if est == 0 {
		est = 500 * time.Millisecond
		if kind == "embed" {
			est = 3 * time.Second // the model alone takes about a second to load
		}
	}
	return time.Duration(rng.Int64N(int64(est)))
}

func (k *killer) finished(kind string, took time.Duration) {
	if took > k.est[kind] {
		k.est[kind] = took + took/5
	}
}

// killAt starts gno args and SIGKILLs it after d. It reports whether the
// process was killed (rather than finished first) and how long it ran.
func killAt(t testing.TB, e *env, d time.Duration, args ...string) (bool, time.Duration) {
	t.Helper()
	start := time.Now()
	cmd := e.start(args...)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return false, time.Since(start)
	case <-time.After(d):
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled(), time.Since(start)
}

// TestCrash kills gno update, gno embed, the MCP write tools and gno
// daemon at random points over many seeds and checks, after every kill, that the index is
// whole, and at the end of each seed, that one more sync converges to a
// clean build of the same files and no user file lost a byte.
//
// Short: 1 seed, 4 kills. Full (-full): 30 seeds, 200+ kills.
func TestCrash(t *testing.T) {
	pgtest.SkipOnPostgres(t, "each history is checked against the rows of the SQLite file (takeSnapshot), which an index on Postgres does not have")
	seeds := pick(1, 30)
	if n, err := strconv.Atoi(os.Getenv("GNO_CRASH_SEEDS")); err == nil && n > 0 {
		seeds = n // a shorter full run
	}
	rounds := pick(1, 2)
	docs := pick(8, 12)
	embed := haveEmbedder()
	if !embed {
		t.Logf("embed cases skipped: model %s or ONNX Runtime not in %s", embedModel, modelsDir())
	}
	st := &crashStats{kills: map[string]int{}, completed: map[string]int{}}
	k := &killer{est: map[string]time.Duration{}}
	start := time.Now()
	for seed := range seeds {
		crashSeed(t, uint64(seed), rounds, docs, embed, k, st)
		if t.Failed() {
			break
		}
	}
	total := 0
	var parts []string
	for kind, n := range st.kills {
		total += n
		parts = append(parts, kind+"="+strconv.Itoa(n))
	}
	sort.Strings(parts)
	t.Logf("crash: %d seeds, %d kills (%s), %d runs finished before their kill, %d bytes of user data lost, %d temp files left by killed writes, %s",
		seeds, total, strings.Join(parts, " "), sum(st.completed), st.bytesLost, st.tempLeft, time.Since(start).Round(time.Second))
	if full() && total < 200 {
		t.Errorf("only %d kills injected; the full run needs at least 200", total)
	}
}

func crashSeed(t *testing.T, seed uint64, rounds, docs int, embed bool, k *killer, st *crashStats) {
	rng := rand.New(rand.NewPCG(seed, 42))
	e := newEnv(t, corpus(seed, docs))
	for r := range rounds {
		if r > 0 {
			mutate(t, rng, e.notes, r)
		}
		// A sync killed anywhere: from process start to the last commit.
		// A sync that finished first is given new work and tried again
		// with a delay inside its run time.
		d := k.delay(rng, "update")
		for try := 0; try < 3; try++ {
			killed, took := killAt(t, e, d, "update", "--no-update-cmd")
			st.add("update", killed)
			checkWhole(t, e)
			if killed {
				break
			}
			k.finished("update", took)
			mutate(t, rng, e.notes, 100*r+try)
			d = time.Duration(rng.Int64N(int64(took)))
		}
		if embed {
			killed, took := killAt(t, e, k.delay(rng, "embed"), "embed")
			st.add("embed", killed)
			if !killed {
				k.finished("embed", took)
			}
			checkWhole(t, e)
		}
		for _, op := range writeOps {
			killWrite(t, e, rng, op, k, st)
			checkWhole(t, e)
		}
		killDaemon(t, e, rng, r, embed, k, st) // crashdaemon_test.go
		if t.Failed() {
			return
		}
	}
	// The daemon over the killed one's files converges and stops cleanly.
	daemonConverges(t, e, embed)
	// Converge: one uninterrupted sync (and embed) must give exactly what
	// a clean build of the same files gives.
	e.mustGno("update", "--no-update-cmd")
	if embed {
		e.mustGno("embed")
		e.mustGno("vsearch", "crash recovery", "--json")
		checkExportMatches(t, e)
	}
	checkWhole(t, e)
	got := takeSnapshot(t, e.dbFile())
	if embed && got.Vectors != got.Chunks {
		t.Fatalf("seed %d: after kills and one embed, %d of %d chunks have vectors", seed, got.Vectors, got.Chunks)
	}
	// Vectors are compared by presence above; the clean build need not
	// embed again.
	got.Vectors = 0
	want := cleanBuild(t, e.notes, false)
	if got != want {
		t.Fatalf("seed %d: after kills and one sync the index is %v; a clean build is %v", seed, got, want)
	}
	temps, _ := filepath.Glob(filepath.Join(e.notes, "*", ".*.tmp*"))
	top, _ := filepath.Glob(filepath.Join(e.notes, ".*.tmp*"))
	st.mu.Lock()
	st.tempLeft += len(temps) + len(top)
	st.mu.Unlock()
}

// killWrite starts an MCP server with write tools, sends one call of op
// and SIGKILLs the server at a random point of it; the files it touched
// must then be in one of op's allowed states.
func killWrite(t *testing.T, e *env, rng *rand.Rand, op writeOp, k *killer, st *crashStats) {
	t.Helper()
	before := readNotes(t, e.notes)
	rel, old := pickNote(t, rng, before)
	args, allowed := op.plan(rng, rel, old)
	c := startStdio(t, e, "--enable-write")
	d := k.delay(rng, op.name)
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := tool(context.Background(), c, op.tool, args)
		done <- err
	}()
	killed := false
	select {
	case <-done:
		k.finished(op.name, time.Since(start))
	case <-time.After(d):
		killed = true
	}
	c.kill()
	st.add(op.name, killed)
	same := func(a, b string) bool { return a == b }
	if op.relinks {
		same = func(a, b string) bool { return a == b || blankLinks(a) == blankLinks(b) }
	}
	lost := checkFiles(t, e.notes, allowed, same)
	// Every other note is untouched (or, for a rename, relinked only).
	after := readNotes(t, e.notes)
	for rel, b := range before {
		if inStates(allowed, rel) {
			continue
		}
		if a, ok := after[rel]; !ok || !same(a, b) {
			t.Errorf("killed %s changed %s beyond its links (%d bytes before, %d now)", op.name, rel, len(b), len(a))
			lost += len(b)
		}
	}
	if lost > 0 {
		st.mu.Lock()
		st.bytesLost += lost
		st.mu.Unlock()
	}
}

// inStates reports whether rel is one of the files the allowed states
// name.
func inStates(allowed []fileState, rel string) bool {
	for _, s := range allowed {
		if _, ok := s[rel]; ok {
			return true
		}
	}
	return false
}

// readNotes returns every note under root (temp files left out) by
// slash-separated path.
func readNotes(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.HasPrefix(d.Name(), ".") {
			if b, err := os.ReadFile(p); err == nil {
				rel, _ := filepath.Rel(root, p)
				out[filepath.ToSlash(rel)] = string(b)
			}
		}
		return nil
	})
	return out
}

// pickNote returns a random note of notes (from readNotes) and its
// content.
func pickNote(t testing.TB, rng *rand.Rand, notes map[string]string) (string, string) {
	t.Helper()
	if len(notes) == 0 {
		t.Fatal("no notes left")
	}
	rels := make([]string, 0, len(notes))
	for rel := range notes {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	rel := rels[rng.IntN(len(rels))]
	return rel, notes[rel]
}

// checkFiles fails unless the files match one allowed state; it returns
// the bytes lost (a truncated or mixed file counts all its old bytes).
func checkFiles(t testing.TB, root string, allowed []fileState, same func(a, b string) bool) int {
	t.Helper()
	got := fileState{}
	for _, s := range allowed {
		for rel := range s {
			if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
				got[rel] = some(string(b))
			} else {
				got[rel] = nil
			}
		}
	}
next:
	for _, s := range allowed {
		for rel, want := range s {
			g := got[rel]
			if (g == nil) != (want == nil) || g != nil && !same(*g, *want) {
				continue next
			}
		}
		return 0
	}
	lost := 0
	for rel, g := range got {
		n := 0
		if g != nil {
			n = len(*g)
		}
		t.Errorf("killed write left %s in no allowed state (%d bytes now)", rel, n)
		if s := allowed[0][rel]; s != nil {
			lost += len(*s)
		}
	}
	return lost
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
