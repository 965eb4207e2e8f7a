package pkgdocs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
	"github.com/gnosearch/gno/pkgdocs/packages"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// AddOptions tune Add.
type AddOptions struct {
	// All indexes transitive dependencies too.
	All bool
	// NoFetch indexes only what is installed (or fetched earlier);
	// Offline lets the clients fetch from their local caches only.
	NoFetch bool
	Offline bool
	// Force re-runs discovery and re-extracts every version.
	Force bool
	// Ecosystems restricts discovery; nil means all.
	Ecosystems []string
	// NoStdlib leaves out the standard libraries of the project's
	// ecosystems (indexed by default, once per toolchain version; see
	// stdlib.go). Options.NoStdlib turns them off for every add.
	NoStdlib bool
	// Progress, when set, is told what the run is doing (from several
	// goroutines at once).
	Progress func(Progress)

	// refresh is a read's re-index: it re-runs only when the fingerprint
	// changed (missing packages are not retried) and keeps the options
	// the project was added with.
	refresh bool
}

// Progress is one step of an Add.
type Progress struct {
	// Stage is "discover", "fetch" or "index".
	Stage string `json:"stage"`
	// Done and Total count package versions (index stage).
	Done  int `json:"done,omitempty"`
	Total int `json:"total,omitempty"`
	// Line says what happens ("npm pack: 5 to fetch", a package key).
	Line string `json:"line,omitempty"`
}

// Missing is a dependency that could not be indexed, and why.
type Missing struct {
	Ref
	Reason string `json:"reason"`
}

// AddResult says what an Add did.
type AddResult struct {
	// Project is the project folder (absolute, symlinks resolved).
	Project string `json:"project"`
	// Unchanged is set when the fingerprint matched: nothing was read.
	Unchanged bool `json:"unchanged"`
	// Packages is how many versions the project uses now.
	Packages int `json:"packages"`
	// Indexed are the versions extracted and stored by this run; Reused
	// counts those already stored (by this or another project).
	Indexed []Ref `json:"indexed"`
	Reused  int   `json:"reused"`
	// Missing are declared dependencies not indexed (not installed and
	// not fetched, or unreadable), each with its reason.
	Missing    []Missing `json:"missing"`
	Warnings   []string  `json:"warnings,omitempty"`
	Ecosystems []string  `json:"ecosystems"`
	DurationMS float64   `json:"durationMs"`
}

// projectState is what pkg_projects.state keeps of a run, for list and
// for deciding whether a re-run must retry.
type projectState struct {
	Missing    []Missing `json:"missing,omitempty"`
	Warnings   []string  `json:"warnings,omitempty"`
	Ecosystems []string  `json:"ecosystems,omitempty"`
}

// bulkVersions is how many versions to store from which FTS merging is
// put off to the end (as a notes sync of 1,000 files does): merging while
// units arrive took a third of a 100-package add's CPU.
const bulkVersions = 10

// maxWarnings bounds the warnings kept per project.
const maxWarnings = 100

// realDir is a project folder as discovery names it: absolute, symlinks
// resolved.
func realDir(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", gnoerr.Wrap(gnoerr.PathNotFound, err, "project folder %s not found", dir)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", gnoerr.New(gnoerr.InvalidPath, "project %s is not a folder", dir)
	}
	return real, nil
}

func (o AddOptions) discovery(x *Index) packages.Options {
	opt := packages.Options{All: o.All, Offline: o.Offline, Fetch: !o.NoFetch, CacheDir: x.opt.CacheDir, Env: x.opt.Env,
		Stdlib: !o.NoStdlib && !x.opt.NoStdlib}
	for _, e := range o.Ecosystems {
		opt.Ecosystems = append(opt.Ecosystems, packages.Ecosystem(e))
	}
	if o.Progress != nil {
		p := o.Progress
		opt.Progress = func(eco packages.Ecosystem, line string) {
			p(Progress{Stage: "fetch", Line: string(eco) + ": " + line})
		}
	}
	return opt
}

// sameSet reports whether two option sets select the same packages.
func (o AddOptions) sameSet(p AddOptions) bool {
	a, b := slices.Clone(o.Ecosystems), slices.Clone(p.Ecosystems)
	slices.Sort(a)
	slices.Sort(b)
	return o.All == p.All && o.NoStdlib == p.NoStdlib && slices.Equal(a, b)
}

// Add indexes the dependencies of the project in dir: discovery (with
// fetches through each client unless NoFetch), extraction of the versions
// not stored yet, and the project's set of versions. An unchanged project
// (same fingerprint, same options, nothing missing last time) costs one
// fingerprint. Broken files and unreadable packages are reported in the
// result, never fail the run; an error means the project folder is
// unusable, the index cannot be written, or ctx ended.
func (x *Index) Add(ctx context.Context, dir string, opt AddOptions) (*AddResult, error) {
	start := time.Now()
	real, err := realDir(dir)
	if err != nil {
		return nil, err
	}
	dopt := opt.discovery(x)
	res := &AddResult{Project: real, Indexed: []Ref{}, Missing: []Missing{}, Ecosystems: []string{}}
	prev, err := x.pk.Project(ctx, real)
	if err != nil {
		return nil, err
	}
	if !opt.Force && prev != nil {
		if done, err := x.unchanged(ctx, prev, opt, dopt, res); err != nil || done {
			res.DurationMS = ms(time.Since(start))
			return res, err
		}
	}
	if opt.Progress != nil {
		opt.Progress(Progress{Stage: "discover", Line: real})
	}
	proj, err := packages.Discover(ctx, real, dopt)
	if err != nil {
		if errors.Is(err, packages.ErrNoProject) {
			return nil, gnoerr.Wrap(gnoerr.InvalidPath, err, "%s is not a project folder", dir)
		}
		return nil, err
	}
	for _, e := range proj.Ecosystems {
		res.Ecosystems = append(res.Ecosystems, string(e))
	}
	for _, w := range proj.Warnings {
		res.warn(w.String())
	}
	w, err := x.pk.Writer(ctx, x.opt.LockWait)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	keys, err := x.store(ctx, w, proj, opt, res)
	if err != nil {
		return nil, err
	}
	state, _ := json.Marshal(projectState{Missing: res.Missing, Warnings: res.Warnings, Ecosystems: res.Ecosystems})
	stored := opt.stored()
	if opt.refresh && prev != nil {
		stored = prev.Options
	}
	p := &retrieval.PackageProject{Dir: real, Fingerprint: proj.Fingerprint, Options: stored, State: string(state)}
	if err := w.SetProject(ctx, p, keys); err != nil {
		return nil, err
	}
	res.Packages = len(keys)
	res.DurationMS = ms(time.Since(start))
	return res, nil
}

// unchanged reports (and fills res from the stored run) when the project
// was indexed with the same fingerprint and options and nothing was
// missing then.
func (x *Index) unchanged(ctx context.Context, prev *retrieval.PackageProject, opt AddOptions, dopt packages.Options, res *AddResult) (bool, error) {
	if !opt.sameSet(parseStored(prev.Options)) {
		return false, nil
	}
	var st projectState
	if json.Unmarshal([]byte(prev.State), &st) != nil || retried(st.Missing) && !opt.refresh {
		return false, nil // the network or an install may have come back
	}
	fp, err := packages.Fingerprint(ctx, prev.Dir, dopt)
	if err != nil || fp != prev.Fingerprint {
		return false, nil
	}
	vs, err := x.pk.ProjectVersions(ctx, prev.ID)
	if err != nil {
		return false, err
	}
	for _, v := range vs {
		if v.Extractor < extractorVersion {
			return false, nil
		}
	}
	res.Unchanged = true
	res.Packages = len(vs)
	res.Reused = len(vs)
	res.Warnings = st.Warnings
	res.Missing = append(res.Missing, st.Missing...)
	if st.Ecosystems != nil {
		res.Ecosystems = st.Ecosystems
	}
	return true, nil
}

// typesCurrent says whether a stored version's docs are as good as the
// @types package now paired with it would make them: apidoc notes the
// one it read in the version's warnings. A version is shared by every
// project resolving to it, and projects may pair it with different
// @types versions or none; re-extracting whenever they differ made two
// such projects re-read it in turn at each add, each leaving the other
// with its reading. So the reading only improves: a version read
// without types is re-read when types are paired, one read from @types
// is re-read when a newer @types is, and is kept otherwise (types
// removed or older: the stored docs of the same version say where their
// types came from).
func typesCurrent(v *retrieval.PackageVersion, p packages.Package) bool {
	from := ""
	for _, w := range v.Warnings {
		if f, ok := strings.CutPrefix(w, apidoc.TypesNote); ok {
			from, _, _ = strings.Cut(f, ":")
		}
	}
	switch {
	case from == p.TypesFrom || p.TypesFrom == "":
		return true
	case from == "":
		return false
	}
	at := func(s string) string { return s[strings.LastIndexByte(s, '@')+1:] }
	return apidoc.CompareVersions(at(from), at(p.TypesFrom)) >= 0
}

// extracted is one package version read by a worker.
type extracted struct {
	pkg   packages.Package
	docs  *apidoc.Docs
	err   error
	index int
}

// store extracts the versions not stored yet (in parallel) and stores
// them (one transaction each, in discovery order), returning the keys the
// project uses.
func (x *Index) store(ctx context.Context, w *retrieval.PackagesWriter, proj *packages.Project, opt AddOptions, res *AddResult) (map[string]bool, error) {
	keys := map[string]bool{}
	var all []string
	for _, p := range proj.Packages {
		if p.Dir != "" {
			all = append(all, key(p))
		}
	}
	stored, err := x.pk.Versions(ctx, all)
	if err != nil {
		return nil, err
	}
	var todo []packages.Package
	for _, p := range proj.Packages {
		if p.Dir == "" {
			res.Missing = append(res.Missing, Missing{Ref: refOf(p), Reason: p.Missing})
			continue
		}
		if v := stored[key(p)]; v != nil && v.Extractor >= extractorVersion && !opt.Force && typesCurrent(v, p) {
			keys[key(p)] = keys[key(p)] || p.Direct
			res.Reused++
			continue
		}
		todo = append(todo, p)
	}
	if len(todo) >= bulkVersions || slices.ContainsFunc(todo, func(p packages.Package) bool { return p.IsStdlib() }) {
		end, err := w.Bulk(ctx)
		defer end()
		if err != nil {
			return nil, err
		}
	}
	jobs := make(chan int)
	out := make(chan extracted)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(todo))) {
		wg.Go(func() {
			for i := range jobs {
				p := todo[i]
				d, err := apidoc.Extract(ctx, apiPackage(p), x.opt.Limits)
				out <- extracted{pkg: p, docs: d, err: err, index: i}
			}
		})
	}
	go func() {
		defer close(jobs)
		for i := range todo {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()
	done := 0
	var firstErr error
	for r := range out {
		done++
		if firstErr != nil {
			continue // drain
		}
		if opt.Progress != nil {
			opt.Progress(Progress{Stage: "index", Done: done, Total: len(todo), Line: key(r.pkg)})
		}
		if r.err != nil {
			if ctx.Err() != nil {
				firstErr = ctx.Err()
				continue
			}
			res.Missing = append(res.Missing, Missing{Ref: refOf(r.pkg), Reason: "not readable: " + r.err.Error()})
			continue
		}
		x.extracted.Add(1)
		v, units := versionDocs(r.pkg, r.docs)
		for _, wn := range r.docs.Warnings {
			res.warn(key(r.pkg) + ": " + wn.String())
		}
		if err := w.Put(ctx, v, units); err != nil {
			firstErr = err
			continue
		}
		keys[v.Key] = keys[v.Key] || r.pkg.Direct
		res.Indexed = append(res.Indexed, refOf(r.pkg))
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(res.Indexed, func(a, b Ref) int { return strings.Compare(a.Ecosystem+a.Name+a.Version, b.Ecosystem+b.Name+b.Version) })
	return keys, nil
}

func (r *AddResult) warn(s string) {
	if len(r.Warnings) < maxWarnings {
		r.Warnings = append(r.Warnings, s)
	} else if len(r.Warnings) == maxWarnings {
		r.Warnings = append(r.Warnings, "more warnings left out")
	}
}

func key(p packages.Package) string {
	return retrieval.PackageKey(string(p.Ecosystem), p.Name, p.Version)
}

func refOf(p packages.Package) Ref {
	return Ref{Ecosystem: string(p.Ecosystem), Name: p.Name, Version: p.Version}
}

// apiPackage is what apidoc reads of a discovered package. A Python
// package's Dir is its import package; apidoc wants the site-packages
// folder holding the dist-info (it reads the files RECORD lists).
func apiPackage(p packages.Package) apidoc.Package {
	ap := apidoc.Package{Ecosystem: string(p.Ecosystem), Name: p.Name, Version: p.Version, Dir: p.Dir,
		TypesDir: p.TypesDir, TypesFrom: p.TypesFrom, Stdlib: p.IsStdlib(), Interpreter: p.Interpreter}
	if ap.Stdlib {
		return ap
	}
	if p.Ecosystem == packages.Python {
		if m, _ := filepath.Glob(filepath.Join(p.Dir, "*.dist-info")); len(m) == 0 {
			ap.Dir = filepath.Dir(p.Dir)
		}
	}
	return ap
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Remove forgets the project in dir; its versions stay until Cleanup.
// It reports whether the project was indexed.
func (x *Index) Remove(ctx context.Context, dir string) (bool, error) {
	real, err := realDir(dir)
	if err != nil {
		// A deleted project folder can still be forgotten by its path.
		if real, err = filepath.Abs(dir); err != nil {
			return false, err
		}
	}
	w, err := x.pk.Writer(ctx, x.opt.LockWait)
	if err != nil {
		return false, err
	}
	defer w.Close()
	return w.RemoveProject(ctx, real)
}

// Cleanup drops the versions no project uses and compacts the index. It
// does nothing (and creates nothing) when the index was never written.
func (x *Index) Cleanup(ctx context.Context) (int, error) {
	if !x.pk.Exists() {
		return 0, nil
	}
	w, err := x.pk.Writer(ctx, x.opt.LockWait)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	return w.Cleanup(ctx)
}
