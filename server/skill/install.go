package skill

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server/install"
)

// Target is an agent client that reads skills.
type Target string

// The supported clients.
const (
	Claude   Target = "claude"
	Codex    Target = "codex"
	OpenCode Target = "opencode"
)

// targets is the one table of skill folders; sources in the package doc.
var targets = []struct {
	target Target
	name   string
	dir    func(e install.Env, s install.Scope) string
}{
	{Claude, "Claude Code", func(e install.Env, s install.Scope) string {
		if s == install.Project {
			return filepath.Join(e.CWD, ".claude", "skills", Name)
		}
		return filepath.Join(e.Home, ".claude", "skills", Name)
	}},
	{Codex, "Codex", func(e install.Env, s install.Scope) string {
		if s == install.Project {
			return filepath.Join(e.CWD, ".agents", "skills", Name)
		}
		return filepath.Join(e.Home, ".agents", "skills", Name)
	}},
	{OpenCode, "OpenCode", func(e install.Env, s install.Scope) string {
		if s == install.Project {
			return filepath.Join(e.CWD, ".opencode", "skills", Name)
		}
		return filepath.Join(e.XDGConfigDir(), "opencode", "skills", Name)
	}},
}

// TargetNames lists the target ids, in display order.
func TargetNames() []string {
	var out []string
	for _, t := range targets {
		out = append(out, string(t.target))
	}
	return out
}

// DisplayName is a target's name for people.
func DisplayName(t Target) string {
	for _, x := range targets {
		if x.target == t {
			return x.name
		}
	}
	return string(t)
}

// Expand turns a -t value into targets ("all" is every one) and checks
// the scope.
func Expand(target string, scope install.Scope) ([]Target, error) {
	if scope != install.User && scope != install.Project {
		return nil, gnoerr.New(gnoerr.InvalidInput, "unknown scope %q: use user or project", scope)
	}
	if target == "all" {
		var out []Target
		for _, t := range targets {
			out = append(out, t.target)
		}
		return out, nil
	}
	for _, t := range targets {
		if string(t.target) == target {
			return []Target{t.target}, nil
		}
	}
	return nil, gnoerr.New(gnoerr.InvalidInput, "unknown target %q: use %s or all", target, strings.Join(TargetNames(), ", "))
}

// Dir is the skill's folder for target in scope.
func Dir(env install.Env, t Target, s install.Scope) (string, error) {
	ts, err := Expand(string(t), s)
	if err != nil || len(ts) != 1 {
		return "", gnoerr.New(gnoerr.InvalidInput, "unknown target %q", t)
	}
	for _, x := range targets {
		if x.target == t {
			return x.dir(env, s), nil
		}
	}
	return "", nil
}

// Options describe an install or uninstall.
type Options struct {
	Target Target
	Scope  install.Scope
	// Force overwrites (or removes) files the user changed, keeping a
	// FILE.bak copy of each.
	Force  bool
	DryRun bool
}

// FileResult is what happened to one file.
type FileResult struct {
	Path string `json:"path"`
	// Action is created, updated, unchanged, removed, kept (a modified
	// file left alone) or absent.
	Action string `json:"action"`
	Backup string `json:"backup,omitempty"`
}

// Result says what an install or uninstall did (or would do).
type Result struct {
	Target Target        `json:"target"`
	Scope  install.Scope `json:"scope"`
	Dir    string        `json:"dir"`
	// Action is installed, updated, unchanged, uninstalled or
	// not-installed.
	Action string       `json:"action"`
	DryRun bool         `json:"dryRun,omitempty"`
	Files  []FileResult `json:"files"`
	// Left are files in the folder gno did not write, kept on uninstall.
	Left []string `json:"left,omitempty"`
}

// Install writes the generated skill into the target's folder. Files
// gno wrote before are replaced; a file the user changed (its marker
// hash no longer matches) is refused unless Force, which first copies
// it to FILE.bak.
func Install(env install.Env, in Input, o Options) (*Result, error) {
	dir, err := Dir(env, o.Target, o.Scope)
	if err != nil {
		return nil, err
	}
	res := &Result{Target: o.Target, Scope: o.Scope, Dir: dir, DryRun: o.DryRun}
	files := Generate(in)
	var modified []string
	created, changed := 0, 0
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		fr := FileResult{Path: path}
		old, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fr.Action = "created"
			created++
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", path, err)
		case bytes.Equal(old, f.Content):
			fr.Action = "unchanged"
		case sealed(old):
			fr.Action = "updated"
			changed++
		default:
			modified = append(modified, path)
			fr.Action = "updated"
			fr.Backup = path + ".bak"
			changed++
		}
		res.Files = append(res.Files, fr)
	}
	if len(modified) > 0 && !o.Force {
		return nil, gnoerr.New(gnoerr.Conflict, "you edited %s since gno wrote it (%s): nothing was written; use --force to replace it, keeping your version as FILE.bak",
			dir, strings.Join(modified, ", "))
	}
	switch {
	case created == len(files):
		res.Action = "installed"
	case created+changed == 0:
		res.Action = "unchanged"
	default:
		res.Action = "updated"
	}
	if o.DryRun {
		return res, nil
	}
	for i, f := range files {
		fr := &res.Files[i]
		if fr.Action == "unchanged" {
			continue
		}
		if fr.Backup != "" {
			old, _ := os.ReadFile(fr.Path)
			if err := config.WriteFileAtomic(fr.Backup, old, 0o644); err != nil {
				return res, fmt.Errorf("back up %s: %w", fr.Path, err)
			}
		}
		if err := config.WriteFileAtomic(fr.Path, f.Content, 0o644); err != nil {
			return res, err
		}
	}
	return res, nil
}

// Uninstall removes the files gno wrote, and the folder when nothing
// else is left in it. A file the user changed is kept unless Force,
// which moves it to FILE.bak.
func Uninstall(env install.Env, in Input, o Options) (*Result, error) {
	dir, err := Dir(env, o.Target, o.Scope)
	if err != nil {
		return nil, err
	}
	res := &Result{Target: o.Target, Scope: o.Scope, Dir: dir, DryRun: o.DryRun, Action: "not-installed"}
	var modified []string
	for _, f := range Generate(in) {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		fr := FileResult{Path: path, Action: "absent"}
		old, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", path, err)
		case sealed(old):
			fr.Action = "removed"
		default:
			modified = append(modified, path)
			fr.Action, fr.Backup = "removed", path+".bak"
		}
		if fr.Action == "removed" {
			res.Action = "uninstalled"
		}
		res.Files = append(res.Files, fr)
	}
	if len(modified) > 0 && !o.Force {
		return nil, gnoerr.New(gnoerr.Conflict, "you edited %s since gno wrote it (%s): nothing was removed; use --force to remove it, keeping your version as FILE.bak",
			dir, strings.Join(modified, ", "))
	}
	if o.DryRun {
		return res, nil
	}
	for _, fr := range res.Files {
		if fr.Action != "removed" {
			continue
		}
		if fr.Backup != "" {
			if err := os.Rename(fr.Path, fr.Backup); err != nil {
				return res, fmt.Errorf("back up %s: %w", fr.Path, err)
			}
			continue
		}
		if err := os.Remove(fr.Path); err != nil {
			return res, fmt.Errorf("remove %s: %w", fr.Path, err)
		}
	}
	// Drop the folders gno made if they are now empty; report the rest.
	os.Remove(filepath.Join(dir, "references"))
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				res.Left = append(res.Left, p)
			}
			return nil
		})
	}
	return res, nil
}

// StatusEntry is the skill's state in one client folder.
type StatusEntry struct {
	Target Target        `json:"target"`
	Scope  install.Scope `json:"scope"`
	Dir    string        `json:"dir"`
	// State is not-installed, current, stale (written by another gno
	// version or from other definitions: reinstall), or modified.
	State   string `json:"state"`
	Version string `json:"version,omitempty"`
}

// Status reports the skill in every folder matching target and scope
// ("all" for any).
func Status(env install.Env, in Input, target, scope string) ([]StatusEntry, error) {
	var scopes []install.Scope
	switch scope {
	case "", "all":
		scopes = []install.Scope{install.User, install.Project}
	default:
		scopes = []install.Scope{install.Scope(scope)}
	}
	if target == "" {
		target = "all"
	}
	files := Generate(in)
	var out []StatusEntry
	for _, s := range scopes {
		ts, err := Expand(target, s)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			dir, _ := Dir(env, t, s)
			st := StatusEntry{Target: t, Scope: s, Dir: dir, State: "not-installed"}
			current, present := true, false
			for _, f := range files {
				old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
				if err != nil {
					current = false
					continue
				}
				present = true
				if f.Path == "SKILL.md" {
					st.Version = markerVersion(old)
				}
				if !sealed(old) {
					st.State = "modified"
				} else if !bytes.Equal(old, f.Content) {
					current = false
				}
			}
			switch {
			case !present || st.State == "modified":
			case current:
				st.State = "current"
			default:
				st.State = "stale"
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// The marker is one HTML comment line in each file (after SKILL.md's
// front matter, which clients need first): gno's version and the
// SHA-256 of the file without that line. A file whose hash no longer
// matches was edited by someone, and gno leaves it alone.
var markerRE = regexp.MustCompile(`(?m)^<!-- generated by gno (\S+) from its command and tool definitions \(gno skill install\); sha256:([0-9a-f]{64}); edits are kept: gno will not overwrite this file without --force -->\n`)

func seal(content []byte, version string) []byte {
	if version == "" {
		version = "dev"
	}
	sum := sha256.Sum256(content)
	marker := fmt.Sprintf("<!-- generated by gno %s from its command and tool definitions (gno skill install); sha256:%s; edits are kept: gno will not overwrite this file without --force -->\n",
		strings.ReplaceAll(version, " ", "-"), hex.EncodeToString(sum[:]))
	at := 0
	if bytes.HasPrefix(content, []byte("---\n")) {
		if i := bytes.Index(content[4:], []byte("\n---\n")); i >= 0 {
			at = 4 + i + len("\n---\n")
		}
	}
	out := append([]byte{}, content[:at]...)
	out = append(out, marker...)
	return append(out, content[at:]...)
}

// sealed reports whether b still has its marker and the hash in it.
func sealed(b []byte) bool {
	loc := markerRE.FindSubmatchIndex(b)
	if loc == nil {
		return false
	}
	rest := append(append([]byte{}, b[:loc[0]]...), b[loc[1]:]...)
	sum := sha256.Sum256(rest)
	return hex.EncodeToString(sum[:]) == string(b[loc[4]:loc[5]])
}

func markerVersion(b []byte) string {
	if m := markerRE.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}
