package reliability

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

var fullFlag = flag.Bool("full", false, "run the full (long) versions of the harnesses")

// full reports whether the long versions run (-full or GNO_RELIABILITY_FULL=1).
func full() bool { return *fullFlag || os.Getenv("GNO_RELIABILITY_FULL") == "1" }

// pick returns the short or the full figure.
func pick(short, long int) int {
	if full() {
		return long
	}
	return short
}

// binDir holds the gno binary built by TestMain.
var binDir string

func gnoBin() string { return filepath.Join(binDir, "gno") }

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "gno-reliability-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	args := []string{"build", "-o", dir + "/"}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "./cmd/gno")
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build gno: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// modelsDir is the shared model cache the lead's `make models` fills.
func modelsDir() string {
	if d := os.Getenv("GNO_MODELS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "gno", "models")
}

// embedModel is the embedder the crash and concurrency harnesses use.
const embedModel = "bge-small-en-v1.5-q"

// haveEmbedder reports whether the real embedding model and ONNX Runtime
// are installed; without them the embed cases skip.
func haveEmbedder() bool {
	if _, err := os.Stat(filepath.Join(modelsDir(), embedModel, "model.onnx")); err != nil {
		return false
	}
	libs, _ := filepath.Glob(filepath.Join(modelsDir(), "onnxruntime", "libonnxruntime*"))
	return len(libs) > 0
}

func needEmbedder(t testing.TB) {
	t.Helper()
	if !haveEmbedder() {
		t.Skipf("embed cases skipped: model %s or ONNX Runtime not in %s (run `make setup models`)", embedModel, modelsDir())
	}
}

// env is one GNO_HOME with one collection "notes" over a folder of files.
type env struct {
	t     testing.TB
	dir   string // everything the test owns
	home  string // GNO_HOME
	notes string // the collection's folder
	store string // GNO_STORE_URL: "" (home's SQLite file) or pgtest.Store's
	vars  []string
}

// newEnv makes a GNO_HOME and a notes folder holding docs, and registers
// the folder as collection "notes" (without indexing it).
func newEnv(t testing.TB, docs map[string]string) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{t: t, dir: dir, home: filepath.Join(dir, "home"), notes: filepath.Join(dir, "notes"), store: pgtest.Store(t)}
	e.vars = append(append(os.Environ(), pgtest.Env(e.home, e.store)...), "GNO_MODELS_DIR="+modelsDir(), "NO_COLOR=1")
	if err := os.MkdirAll(e.notes, 0o755); err != nil {
		t.Fatal(err)
	}
	writeDocs(t, e.notes, docs)
	e.mustGno("collection", "add", e.notes, "--name", "notes")
	return e
}

func writeDocs(t testing.TB, root string, docs map[string]string) {
	t.Helper()
	for rel, body := range docs {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// dbFile is the index database of the default index.
func (e *env) dbFile() string { return filepath.Join(e.home, "data", "default", "index.sqlite") }

// indexDir holds the database, the vector export and the lock.
func (e *env) indexDir() string { return filepath.Join(e.home, "data", "default") }

// result is a finished gno process.
type result struct {
	stdout, stderr string
	code           int
	err            error
	took           time.Duration
	maxRSS         int64         // bytes
	cpu            time.Duration // user + system
}

func (r result) String() string {
	return fmt.Sprintf("exit %d (%v) stdout=%.500q stderr=%.500q", r.code, r.err, r.stdout, r.stderr)
}

// gno runs the gno binary to completion (killed after ten minutes: an embed on
// a loaded 2-core box runs at about one chunk a second).
func (e *env) gno(args ...string) result {
	return e.gnoIn(nil, args...)
}

func (e *env) gnoIn(stdin []byte, args ...string) result {
	return e.gnoFor(10*time.Minute, stdin, args...)
}

// gnoFor runs gno to completion, killed after limit.
func (e *env) gnoFor(limit time.Duration, stdin []byte, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, gnoBin(), args...)
	cmd.Env = e.vars
	cmd.Dir = e.dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), err: err, took: time.Since(start)}
	if cmd.ProcessState != nil {
		r.code = cmd.ProcessState.ExitCode()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.maxRSS = ru.Maxrss << 10
			r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return r
}

func (e *env) mustGno(args ...string) result {
	e.t.Helper()
	r := e.gno(args...)
	if r.err != nil {
		e.t.Fatalf("gno %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// start launches gno without waiting.
func (e *env) start(args ...string) *exec.Cmd {
	cmd := exec.Command(gnoBin(), args...)
	cmd.Env = e.vars
	cmd.Dir = e.dir
	cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &bytes.Buffer{}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	return cmd
}

// rssKB reads a process's resident set size from /proc (0 if unknown).
func rssKB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			n, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return n
		}
	}
	return 0
}

// corpus generates n Markdown notes of several shapes (front matter with
// aliases, nested lists, code, CJK, links) from seed. Every note starts
// with its BEGIN marker and ends with its END marker, so a reader can tell
// a whole document from a partial one.
func corpus(seed uint64, n int) map[string]string {
	rng := rand.New(rand.NewPCG(seed, 1))
	docs := map[string]string{}
	for i := range n {
		rel := fmt.Sprintf("d%02d/note-%03d.md", i%7, i)
		docs[rel] = note(rng, i, 0)
	}
	return docs
}

var words = strings.Fields(`sqlite journal checkpoint vector graph hnsw embedding lexical ranking fusion
	reciprocal rank snippet chunk heading markdown front matter yaml tag collection folder sync generation
	crash recovery atomic rename fsync durability lock writer reader agent protocol request latency
	throughput memory garbage goroutine channel context deadline cancel retry backoff index search query`)

// note renders note i, version v.
func note(rng *rand.Rand, i, v int) string {
	var b strings.Builder
	if i%3 == 0 {
		fmt.Fprintf(&b, "---\ntitle: Note %d v%d\ntags: [t%d, area/%d]\naliases: [alias-%d]\n---\n", i, v, i%5, i%3, i)
	}
	fmt.Fprintf(&b, "BEGIN-%d\n\n# Note %d version %d\n\n", i, i, v)
	sections := 1 + rng.IntN(6)
	for s := range sections {
		fmt.Fprintf(&b, "## Section %d\n\n", s)
		paras := 1 + rng.IntN(4)
		for range paras {
			nw := 20 + rng.IntN(120)
			for w := range nw {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[rng.IntN(len(words))])
			}
			b.WriteString(".\n\n")
		}
		if rng.IntN(4) == 0 {
			b.WriteString("- item one\n  - nested item\n    - deeper item\n- item two\n\n")
		}
		if rng.IntN(6) == 0 {
			b.WriteString("```go\nfunc main() { println(\"hi\") }\n```\n\n")
		}
		if rng.IntN(8) == 0 {
			b.WriteString("中文段落：全文检索与向量搜索的融合。\n\n")
		}
	}
	// Links to notes that may or may not exist (and may come and go with
	// mutate): a kill must leave no link list disagreeing with its note.
	fmt.Fprintf(&b, "See [[note-%03d]], [[note-%03d#Section 0|another]], [[alias-%d]] and [a note](../d%02d/note-%03d.md).\n\n",
		rng.IntN(40), rng.IntN(40), 3*rng.IntN(13), rng.IntN(7), rng.IntN(40))
	fmt.Fprintf(&b, "END-%d\n", i)
	return b.String()
}

// keepDir holds notes mutate never touches: a test that embeds once
// keeps some vectors however many rounds of edits and deletions follow.
const keepDir = "keep"

// mutate changes the notes folder the way a person does: edits, new
// notes, deletions and renames (never under keepDir). It returns how many
// files it touched.
func mutate(t testing.TB, rng *rand.Rand, root string, round int) int {
	t.Helper()
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == keepDir {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	touched := 0
	for range 1 + rng.IntN(6) {
		switch op := rng.IntN(10); {
		case op < 5 && len(files) > 0: // edit
			p := files[rng.IntN(len(files))]
			var i int
			fmt.Sscanf(filepath.Base(p), "note-%d.md", &i)
			if err := writeAtomic(p, note(rng, i, round)); err != nil {
				t.Fatal(err)
			}
		case op < 7: // add
			i := 1000 + rng.IntN(100000)
			p := filepath.Join(root, fmt.Sprintf("d%02d", i%7), fmt.Sprintf("note-%03d.md", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := writeAtomic(p, note(rng, i, round)); err != nil {
				t.Fatal(err)
			}
		case op < 9 && len(files) > 3: // delete
			os.Remove(files[rng.IntN(len(files))])
		case len(files) > 0: // rename
			p := files[rng.IntN(len(files))]
			os.Rename(p, filepath.Join(filepath.Dir(p), fmt.Sprintf("renamed-%d-%s", round, filepath.Base(p))))
		}
		touched++
	}
	return touched
}

// writeAtomic replaces a file the way editors do, so the test itself never
// shows gno a half-written source file.
func writeAtomic(p, body string) error {
	tmp := p + ".part"
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// copyTree copies a folder of regular files.
func copyTree(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// treeDigest maps every file under root to its contents, for "nothing
// written" checks.
func treeDigest(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.Type()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "symlink:" + target
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = string(b)
		return nil
	})
	return out
}

func sameTree(a, b map[string]string) string {
	for k, v := range a {
		if w, ok := b[k]; !ok {
			return "removed " + k
		} else if w != v {
			return "changed " + k
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return "added " + k
		}
	}
	return ""
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }

func bg() context.Context { return context.Background() }

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
