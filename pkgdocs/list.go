package pkgdocs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// ProjectInfo is one indexed project and the versions it uses.
type ProjectInfo struct {
	Dir        string        `json:"dir"`
	Packages   []PackageInfo `json:"packages"`
	Missing    []Missing     `json:"missing"`
	Warnings   []string      `json:"warnings,omitempty"`
	Ecosystems []string      `json:"ecosystems"`
	IndexedAt  string        `json:"indexedAt"`
}

// List describes the indexed projects among dirs (every indexed project
// when dirs is empty). A folder never added is a NotFound error.
func (x *Index) List(ctx context.Context, dirs []string) ([]ProjectInfo, error) {
	if !x.pk.Exists() && len(dirs) == 0 {
		return []ProjectInfo{}, nil
	}
	ctx, end, err := x.pk.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	all, err := x.pk.Projects(ctx)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, d := range dirs {
		real, err := realDir(d)
		if err != nil {
			return nil, err
		}
		want[real] = true
	}
	out := []ProjectInfo{}
	for _, p := range all {
		if len(dirs) > 0 && !want[p.Dir] {
			continue
		}
		delete(want, p.Dir)
		var st projectState
		_ = json.Unmarshal([]byte(p.State), &st)
		pi := ProjectInfo{Dir: p.Dir, Packages: []PackageInfo{}, Missing: st.Missing, Warnings: st.Warnings, Ecosystems: st.Ecosystems,
			IndexedAt: time.Unix(0, p.UpdatedNS).UTC().Format(time.RFC3339)}
		if pi.Missing == nil {
			pi.Missing = []Missing{}
		}
		if pi.Ecosystems == nil {
			pi.Ecosystems = []string{}
		}
		vs, err := x.pk.ProjectVersions(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			pi.Packages = append(pi.Packages, info(v))
		}
		out = append(out, pi)
	}
	for d := range want {
		return nil, gnoerr.New(gnoerr.NotFound, "project %s was never added: run `gno packages add %s`", d, d)
	}
	return out, nil
}

// ListText is the human form of a list.
func ListText(ps []ProjectInfo) string {
	var b strings.Builder
	if len(ps) == 0 {
		return "No projects: add one with `gno packages add [DIR]`."
	}
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s (%d packages, indexed %s)\n", p.Dir, len(p.Packages), p.IndexedAt)
		for _, pk := range p.Packages {
			dep := ""
			if !pk.Direct {
				dep = "  (transitive)"
			}
			fmt.Fprintf(&b, "  %-6s %s %s  %d units%s\n", pk.Ecosystem, pk.Name, pk.Version, pk.Units, dep)
		}
		for _, m := range p.Missing {
			fmt.Fprintf(&b, "  %-6s %s %s  missing: %s\n", m.Ecosystem, m.Name, m.Version, m.Reason)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Refresh re-indexes every added project whose manifests, lockfiles or
// installs changed (one fingerprint each when nothing did), with the
// options it was added with; missing packages are not retried unless the
// project changed. Projects whose folder is gone are skipped. It is what
// a watcher or daemon calls: `gno watch` does every RefreshInterval.
func (x *Index) Refresh(ctx context.Context) ([]*AddResult, error) {
	if !x.pk.Exists() {
		return nil, nil
	}
	ps, err := x.pk.Projects(ctx)
	if err != nil {
		return nil, err
	}
	var out []*AddResult
	for _, p := range ps {
		if fi, err := os.Stat(p.Dir); err != nil || !fi.IsDir() {
			continue
		}
		opt := parseStored(p.Options)
		opt.refresh = true
		res, err := x.Add(ctx, p.Dir, opt)
		if err != nil {
			return out, fmt.Errorf("refresh %s: %w", p.Dir, err)
		}
		if !res.Unchanged {
			out = append(out, res)
		}
	}
	return out, nil
}

// RefreshInterval is how often a watcher calls Refresh.
const RefreshInterval = 10 * time.Second

// Watch calls Refresh every interval until ctx ends, telling report of
// each project re-indexed and of each failure.
func (x *Index) Watch(ctx context.Context, interval time.Duration, report func(*AddResult, error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			res, err := x.Refresh(ctx)
			for _, r := range res {
				report(r, nil)
			}
			if err != nil && ctx.Err() == nil {
				report(nil, err)
			}
		}
	}
}

// Embed computes the vectors the stored units lack with the index's
// embedder (resumable: each batch is committed), standard libraries
// left out (see stdlib.go; EmbedStdlib does them). It returns nil when
// none lack one, without opening the model.
func (x *Index) Embed(ctx context.Context, progress func(done, total int)) (*retrieval.EmbedResult, error) {
	return x.embed(ctx, progress, false)
}
