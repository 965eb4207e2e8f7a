package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// Options describe an install.
type Options struct {
	Target Target
	Scope  Scope
	// Command is the gno binary to run (absolute path).
	Command string
	// Args are the arguments, e.g. ["mcp", "--enable-write"].
	Args []string
	// TokenEnv, if set, is the environment variable holding a team
	// server's access token (an entry running gno mcp --remote): the
	// entry has the client pass it to gno, in the client's own syntax;
	// the token itself is never written (remote.go).
	TokenEnv string
	Force    bool
	DryRun   bool
}

// Result says what an install or uninstall did (or would do).
type Result struct {
	Target     Target `json:"target"`
	Scope      Scope  `json:"scope"`
	ConfigPath string `json:"configPath"`
	// Action is installed, updated, unchanged, uninstalled or not-installed.
	Action string `json:"action"`
	DryRun bool   `json:"dryRun,omitempty"`
	Entry  *Entry `json:"entry,omitempty"`
	Backup string `json:"backup,omitempty"`
}

// editor is one config file's syntax: the JSON(C) or TOML editor.
type editor interface {
	get() (map[string]any, bool)
	set([]field) error
	remove() bool
	bytes() []byte
}

// load reads a config file; a missing or empty file is an empty config.
// A file that cannot be parsed is refused with its position.
func load(f *format, path string) (editor, []byte, fs.FileMode, error) {
	perm := fs.FileMode(0o600) // client configs may hold API keys
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return nil, nil, 0, fmt.Errorf("read %s: %w", path, err)
	default:
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm()
		}
	}
	var ed editor
	if f.toml {
		ed, err = parseTOMLDoc(f, path, data)
	} else {
		ed, err = parseJSONDoc(f, path, data)
	}
	return ed, data, perm, err
}

// Install adds gno to the client's config. An existing, different gno
// entry is replaced only with Force. Nothing else in the file changes.
func Install(env Env, o Options) (*Result, error) {
	c, err := resolve(o.Target, o.Scope)
	if err != nil {
		return nil, err
	}
	path := pick(c.paths(env, o.Scope))
	entry := Entry{Command: o.Command, Args: nonNil(o.Args)}
	res := &Result{Target: o.Target, Scope: o.Scope, ConfigPath: path, DryRun: o.DryRun, Entry: &entry}
	ed, old, perm, err := load(c.format, path)
	if err != nil {
		return nil, err
	}
	fields, err := remoteFields(o.Target, o, c.format.shape(entry))
	if err != nil {
		return nil, err
	}
	if have, ok := ed.get(); ok {
		if sameEntry(have, fields) {
			res.Action = "unchanged"
			return res, nil
		}
		if !o.Force {
			return nil, gnoerr.New(gnoerr.Duplicate, "%s already has a different %q server in %s; use --force to replace it", o.Target, ServerName, path)
		}
		res.Action = "updated"
	} else {
		res.Action = "installed"
	}
	if err := ed.set(fields); err != nil {
		return nil, err
	}
	if o.DryRun {
		return res, nil
	}
	res.Backup, err = save(path, old, ed.bytes(), perm)
	return res, err
}

// Uninstall removes gno from the client's config, and nothing else.
func Uninstall(env Env, t Target, s Scope, dryRun bool) (*Result, error) {
	c, err := resolve(t, s)
	if err != nil {
		return nil, err
	}
	path := pick(c.paths(env, s))
	res := &Result{Target: t, Scope: s, ConfigPath: path, DryRun: dryRun, Action: "not-installed"}
	ed, old, perm, err := load(c.format, path)
	if err != nil {
		return nil, err
	}
	if _, ok := ed.get(); !ok || !ed.remove() {
		return res, nil
	}
	if td, ok := ed.(*tomlDoc); ok {
		if err := td.checkRemoved(); err != nil {
			return nil, err
		}
	}
	res.Action = "uninstalled"
	if dryRun {
		return res, nil
	}
	res.Backup, err = save(path, old, ed.bytes(), perm)
	return res, err
}

// StatusEntry is gno's state in one client config.
type StatusEntry struct {
	Target     Target `json:"target"`
	Scope      Scope  `json:"scope"`
	ConfigPath string `json:"configPath"`
	Configured bool   `json:"configured"`
	Entry      *Entry `json:"entry,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Status reports gno in every config matching target and scope ("" or
// "all" for any).
func Status(env Env, target, scope string) ([]StatusEntry, error) {
	if target != "" && target != "all" && lookup(Target(target)) == nil {
		return nil, gnoerr.New(gnoerr.InvalidInput, "unknown target %q: use %s or all", target, strings.Join(TargetNames(), ", "))
	}
	if scope != "" && scope != "all" && scope != string(User) && scope != string(Project) {
		return nil, gnoerr.New(gnoerr.InvalidInput, "unknown scope %q: use user, project or all", scope)
	}
	var out []StatusEntry
	for _, ts := range Targets {
		if (target != "" && target != "all" && Target(target) != ts.Target) || (scope != "" && scope != "all" && Scope(scope) != ts.Scope) {
			continue
		}
		c := lookup(ts.Target)
		path := pick(c.paths(env, ts.Scope))
		st := StatusEntry{Target: ts.Target, Scope: ts.Scope, ConfigPath: path}
		ed, _, _, err := load(c.format, path)
		if err != nil {
			st.Error = err.Error()
		} else if have, ok := ed.get(); ok {
			st.Configured = true
			e := c.format.decode(have)
			st.Entry = &e
		}
		out = append(out, st)
	}
	return out, nil
}

// save writes data atomically, first copying the old file to path.bak.
// A symlinked config (dotfiles) is written through the link.
func save(path string, old, data []byte, perm fs.FileMode) (string, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	backup := ""
	if old != nil {
		if bytes.Equal(old, data) {
			return "", nil
		}
		backup = path + ".bak"
		if err := config.WriteFileAtomic(backup, old, perm); err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
	}
	if err := config.WriteFileAtomic(path, data, perm); err != nil {
		return "", err
	}
	return backup, nil
}
