package install

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// Entry is gno's server entry, whatever the client's shape of it.
type Entry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// Describe is a one-line summary of an entry for people.
func (e *Entry) Describe() string {
	return strings.TrimSpace(e.Command + " " + strings.Join(e.Args, " "))
}

// field is one member of a client's entry for gno. Fields that are not
// compared (env, enabled) may differ in an installed entry without making
// it "different": the user may have set them.
type field struct {
	key     string
	value   any
	compare bool
}

// format is how one family of clients stores MCP servers: the file
// syntax, the key holding the servers and the shape of one server.
type format struct {
	toml bool
	// container is the top-level key holding the servers.
	container string
	// strict refuses comments and trailing commas: the client reads the
	// file with a plain JSON parser and would fail on them.
	strict bool
	shape  func(Entry) []field
	decode func(map[string]any) Entry
}

func commandArgs(e Entry) []field {
	return []field{{"command", e.Command, true}, {"args", nonNil(e.Args), true}}
}

func nonNil(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

func decodeCommandArgs(m map[string]any) Entry {
	e := Entry{}
	e.Command, _ = m["command"].(string)
	e.Args = strs(m["args"])
	return e
}

func strs(v any) []string {
	a, _ := v.([]any)
	out := []string{}
	for _, x := range a {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// The formats. Each client of the table in targets.go names one.
var (
	// mcpServersJSON is Claude Desktop's: {"mcpServers": {"gno": {command, args}}}.
	mcpServersJSON = &format{container: "mcpServers", strict: true, shape: commandArgs, decode: decodeCommandArgs}
	// mcpServersJSONC is the same shape in files whose readers accept
	// comments (Cursor, Gemini CLI, Windsurf).
	mcpServersJSONC = &format{container: "mcpServers", shape: commandArgs, decode: decodeCommandArgs}
	// claudeCodeJSON adds "type": "stdio", as `claude mcp add` writes it.
	claudeCodeJSON = &format{container: "mcpServers", strict: true, decode: decodeCommandArgs, shape: func(e Entry) []field {
		return append([]field{{"type", "stdio", true}}, commandArgs(e)...)
	}}
	// vscodeJSONC is VS Code's mcp.json: {"servers": {"gno": {"type": "stdio", command, args}}}.
	vscodeJSONC = &format{container: "servers", decode: decodeCommandArgs, shape: func(e Entry) []field {
		return append([]field{{"type", "stdio", true}}, commandArgs(e)...)
	}}
	// zedJSONC is Zed's settings.json: {"context_servers": {"gno": {"source": "custom", command, args, env}}}.
	zedJSONC = &format{container: "context_servers", decode: decodeCommandArgs, shape: func(e Entry) []field {
		return append(append([]field{{"source", "custom", false}}, commandArgs(e)...), field{"env", map[string]string{}, false})
	}}
	// opencodeJSONC is OpenCode's: {"mcp": {"gno": {"type": "local", "command": [cmd, args...], "enabled": true}}}.
	opencodeJSONC = &format{container: "mcp", shape: func(e Entry) []field {
		return []field{{"type", "local", true}, {"command", append([]string{e.Command}, e.Args...), true}, {"enabled", true, false}}
	}, decode: func(m map[string]any) Entry {
		cmd := strs(m["command"])
		if len(cmd) == 0 {
			return Entry{Args: []string{}}
		}
		return Entry{Command: cmd[0], Args: cmd[1:]}
	}}
	// codexTOML is Codex's config.toml: [mcp_servers.gno] command, args.
	codexTOML = &format{toml: true, container: "mcp_servers", shape: commandArgs, decode: decodeCommandArgs}
)

// sameEntry reports whether an installed entry has every compared field
// of want.
func sameEntry(have map[string]any, want []field) bool {
	for _, f := range want {
		if !f.compare {
			continue
		}
		v, ok := have[f.key]
		if !ok || !jsonEqual(v, f.value) {
			return false
		}
	}
	return true
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var xa, ya any
	json.Unmarshal(x, &xa)
	json.Unmarshal(y, &ya)
	x, _ = json.Marshal(xa)
	y, _ = json.Marshal(ya)
	return bytes.Equal(x, y)
}

// orderedJSON renders fields as a JSON object in their order, with the
// given line prefix and indent unit ("" unit: on one line).
func orderedJSON(fields []field, prefix, unit string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
			if unit == "" {
				b.WriteByte(' ')
			}
		}
		if unit != "" {
			b.WriteString("\n" + prefix + unit)
		}
		k, _ := marshal(f.key)
		b.Write(k)
		b.WriteString(": ")
		b.Write(inlineJSON(f.value))
	}
	if unit != "" && len(fields) > 0 {
		b.WriteString("\n" + prefix)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal is json.Marshal without HTML escaping: paths keep their & < >.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// inlineJSON renders a value on one line, string lists as ["a", "b"] and
// string maps as {"k": "v"}.
// Its strings are valid TOML basic strings too.
func inlineJSON(v any) []byte {
	if m, ok := v.(map[string]string); ok && len(m) > 0 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		q := make([]string, len(keys))
		for i, k := range keys {
			ek, _ := marshal(k)
			ev, _ := marshal(m[k])
			q[i] = string(ek) + ": " + string(ev)
		}
		return []byte("{" + strings.Join(q, ", ") + "}")
	}
	if s, ok := v.([]string); ok {
		q := make([]string, len(s))
		for i, x := range s {
			e, _ := marshal(x)
			q[i] = string(e)
		}
		return []byte("[" + strings.Join(q, ", ") + "]")
	}
	b, _ := marshal(v)
	return b
}
