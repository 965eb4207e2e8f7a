// Package install adds gno to, removes it from, and reports it in the MCP
// configs of agent clients (Claude Desktop, Claude Code, Codex). Edits
// keep every other key of the client's JSON config, in order, write
// atomically, and leave a backup of the previous file.
//
// It owns those client config files; it must not touch the index.
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// Target is an MCP client.
type Target string

// The supported clients.
const (
	ClaudeDesktop Target = "claude-desktop"
	ClaudeCode    Target = "claude-code"
	Codex         Target = "codex"
)

// Scope is where a client config lives: the user's, or the project's
// (the current folder).
type Scope string

// The scopes.
const (
	User    Scope = "user"
	Project Scope = "project"
)

// ServerName is gno's key under mcpServers.
const ServerName = "gno"

// Targets lists every (target, scope) pair, in display order.
var Targets = []struct {
	Target Target
	Scope  Scope
}{{ClaudeDesktop, User}, {ClaudeCode, User}, {ClaudeCode, Project}, {Codex, User}, {Codex, Project}}

// Env is what config locations depend on, so tests need not touch the
// real home folder.
type Env struct {
	GOOS          string
	Home          string
	CWD           string
	AppData       string // Windows %APPDATA%
	XDGConfigHome string
}

// ConfigPath returns the config file of target in scope.
func ConfigPath(env Env, t Target, s Scope) (string, error) {
	switch t {
	case ClaudeDesktop:
		if s != User {
			return "", gnoerr.New(gnoerr.InvalidInput, "claude-desktop has only the user scope")
		}
		switch env.GOOS {
		case "darwin":
			return filepath.Join(env.Home, "Library", "Application Support", "Claude", "claude_desktop_config.json"), nil
		case "windows":
			base := env.AppData
			if base == "" {
				base = filepath.Join(env.Home, "AppData", "Roaming")
			}
			return filepath.Join(base, "Claude", "claude_desktop_config.json"), nil
		default:
			base := env.XDGConfigHome
			if base == "" || !filepath.IsAbs(base) {
				base = filepath.Join(env.Home, ".config")
			}
			return filepath.Join(base, "Claude", "claude_desktop_config.json"), nil
		}
	case ClaudeCode:
		switch s {
		case User:
			return filepath.Join(env.Home, ".claude.json"), nil
		case Project:
			return filepath.Join(env.CWD, ".mcp.json"), nil
		}
	case Codex:
		switch s {
		case User:
			return filepath.Join(env.Home, ".codex.json"), nil
		case Project:
			return filepath.Join(env.CWD, ".codex", ".mcp.json"), nil
		}
	default:
		return "", gnoerr.New(gnoerr.InvalidInput, "unknown target %q: use claude-desktop, claude-code or codex", t)
	}
	return "", gnoerr.New(gnoerr.InvalidInput, "unknown scope %q: use user or project", s)
}

// Entry is gno's server entry in a client config.
type Entry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// Options describe an install.
type Options struct {
	Target Target
	Scope  Scope
	// Command is the gno binary to run (absolute path).
	Command string
	// Args are the arguments, e.g. ["mcp", "--enable-write"].
	Args   []string
	Force  bool
	DryRun bool
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

// Install adds gno to the client's config. An existing, different gno
// entry is replaced only with Force.
func Install(env Env, o Options) (*Result, error) {
	path, err := ConfigPath(env, o.Target, o.Scope)
	if err != nil {
		return nil, err
	}
	entry := Entry{Command: o.Command, Args: o.Args}
	if o.Target == ClaudeCode {
		entry.Type = "stdio"
	}
	res := &Result{Target: o.Target, Scope: o.Scope, ConfigPath: path, DryRun: o.DryRun, Entry: &entry}
	doc, servers, perm, err := load(path)
	if err != nil {
		return nil, err
	}
	newRaw, _ := json.Marshal(entry)
	if old, ok := servers.get(ServerName); ok {
		if jsonEqual(old, newRaw) {
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
	servers.set(ServerName, newRaw)
	doc.set("mcpServers", servers.encode())
	if o.DryRun {
		return res, nil
	}
	res.Backup, err = save(path, doc, perm)
	return res, err
}

// Uninstall removes gno from the client's config.
func Uninstall(env Env, t Target, s Scope, dryRun bool) (*Result, error) {
	path, err := ConfigPath(env, t, s)
	if err != nil {
		return nil, err
	}
	res := &Result{Target: t, Scope: s, ConfigPath: path, DryRun: dryRun, Action: "not-installed"}
	doc, servers, perm, err := load(path)
	if err != nil {
		return nil, err
	}
	if !servers.del(ServerName) {
		return res, nil
	}
	res.Action = "uninstalled"
	doc.set("mcpServers", servers.encode())
	if dryRun {
		return res, nil
	}
	res.Backup, err = save(path, doc, perm)
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
	if target != "" && target != "all" && target != string(ClaudeDesktop) && target != string(ClaudeCode) && target != string(Codex) {
		return nil, gnoerr.New(gnoerr.InvalidInput, "unknown target %q: use claude-desktop, claude-code, codex or all", target)
	}
	if scope != "" && scope != "all" && scope != string(User) && scope != string(Project) {
		return nil, gnoerr.New(gnoerr.InvalidInput, "unknown scope %q: use user, project or all", scope)
	}
	var out []StatusEntry
	for _, ts := range Targets {
		if (target != "" && target != "all" && Target(target) != ts.Target) || (scope != "" && scope != "all" && Scope(scope) != ts.Scope) {
			continue
		}
		path, _ := ConfigPath(env, ts.Target, ts.Scope)
		st := StatusEntry{Target: ts.Target, Scope: ts.Scope, ConfigPath: path}
		_, servers, _, err := load(path)
		if err != nil {
			st.Error = err.Error()
		} else if raw, ok := servers.get(ServerName); ok {
			st.Configured = true
			var e Entry
			if json.Unmarshal(raw, &e) == nil {
				st.Entry = &e
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// load reads a config file; a missing file is an empty config.
func load(path string) (doc, servers *object, perm fs.FileMode, err error) {
	perm = 0o600 // client configs may hold API keys
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &object{}, &object{}, perm, nil
	}
	if err != nil {
		return nil, nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &object{}, &object{}, perm, nil
	}
	doc, err = parseObject(data)
	if err != nil {
		return nil, nil, 0, gnoerr.Wrap(gnoerr.InvalidInput, err, "%s is not a JSON object; fix or move it first", path)
	}
	servers = &object{}
	if raw, ok := doc.get("mcpServers"); ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if servers, err = parseObject(raw); err != nil {
			return nil, nil, 0, gnoerr.Wrap(gnoerr.InvalidInput, err, "mcpServers in %s is not a JSON object", path)
		}
	}
	return doc, servers, perm, nil
}

// save writes doc atomically, first copying the old file to path.bak.
func save(path string, doc *object, perm fs.FileMode) (string, error) {
	backup := ""
	if old, err := os.ReadFile(path); err == nil {
		backup = path + ".bak"
		if err := config.WriteFileAtomic(backup, old, perm); err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
	}
	var b bytes.Buffer
	if err := json.Indent(&b, doc.encode(), "", "  "); err != nil {
		return "", fmt.Errorf("encode %s: %w", path, err)
	}
	b.WriteByte('\n')
	if err := config.WriteFileAtomic(path, b.Bytes(), perm); err != nil {
		return "", err
	}
	return backup, nil
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// object is a JSON object that keeps its members' order and raw values,
// so rewriting one member leaves the rest of a user's file as it was.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseObject(data []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	o := &object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		o.set(key, raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after the object")
	}
	return o, nil
}

func (o *object) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) set(k string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) bool {
	if _, ok := o.vals[k]; !ok {
		return false
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
	return true
}

func (o *object) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(bytes.TrimSpace(o.vals[k]))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Describe is a one-line summary of an entry for people.
func (e *Entry) Describe() string {
	return strings.TrimSpace(e.Command + " " + strings.Join(e.Args, " "))
}
