package skill

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Name is the skill's name and folder: lowercase letters, as every
// client requires (OpenCode: ^[a-z0-9]+(-[a-z0-9]+)*$, matching the
// folder).
const Name = "gno"

// Input is what the skill is generated from: the CLI's command tree and
// the MCP tool registry, read at run time.
type Input struct {
	// Version is gno's version, recorded in each file's marker.
	Version string
	// Commands is every command but the root, parents before children.
	Commands    []Command
	GlobalFlags []Flag
	Tools       []Tool
}

// Tool is one MCP tool as tools/list shows it: the fields of
// server.ToolInfo, which callers convert (Tool(info)). The skill has its
// own type so that it sits beside server, not under it.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema is the tool's JSON Schema for its arguments.
	InputSchema json.RawMessage
	// ReadOnly is the tool's readOnlyHint annotation.
	ReadOnly bool
	// NeedsWrite says the tool is registered only with --enable-write.
	NeedsWrite bool
}

// Command is one CLI command.
type Command struct {
	// Path is the full command line, e.g. "gno collection add".
	Path string
	// Use is cobra's usage line, e.g. "add PATH".
	Use   string
	Short string
	Flags []Flag
}

// Name is the top-level command a command belongs to ("collection").
func (c Command) top() string {
	f := strings.Fields(c.Path)
	if len(f) < 2 {
		return ""
	}
	return f[1]
}

func (c Command) depth() int { return len(strings.Fields(c.Path)) - 1 }

// Flag is one command-line flag.
type Flag struct {
	Name, Shorthand, Type, Default, Usage string
}

// File is one generated file, relative to the skill folder.
type File struct {
	Path    string
	Content []byte
}

// Missing lists registered tools and top-level commands that have no
// hand-written line in guide.go, and guide lines naming a tool or
// command that does not exist: what the drift tests check.
func Missing(in Input) []string {
	var out []string
	tools := map[string]bool{}
	for _, t := range in.Tools {
		tools[t.Name] = true
		if toolGuide[t.Name] == "" {
			out = append(out, "tool "+t.Name+": no line in toolGuide")
		}
		if _, ok := toolCLI[t.Name]; !ok {
			out = append(out, "tool "+t.Name+": no entry in toolCLI")
		}
	}
	for name := range toolGuide {
		if !tools[name] {
			out = append(out, "toolGuide names "+name+", which is not registered")
		}
	}
	paths := map[string]bool{}
	tops := map[string]bool{}
	for _, c := range in.Commands {
		paths[c.Path] = true
		if c.depth() == 1 {
			tops[c.top()] = true
			if commandGuide[c.top()] == "" {
				out = append(out, "command gno "+c.top()+": no line in commandGuide")
			}
		}
	}
	for name := range commandGuide {
		if !tops[name] {
			out = append(out, "commandGuide names gno "+name+", which does not exist")
		}
	}
	for tool, cmd := range toolCLI {
		if cmd != "" && !paths[cmd] {
			out = append(out, "toolCLI maps "+tool+" to "+cmd+", which does not exist")
		}
	}
	sort.Strings(out)
	return out
}

// Generate writes the skill: SKILL.md (front matter, when to use which
// tool or command, the retry strategy, recipes) and references/ with
// every tool's arguments and every command's flags.
func Generate(in Input) []File {
	files := []File{
		{"SKILL.md", skillMD(in)},
		{"references/mcp-tools.md", toolsMD(in)},
		{"references/cli.md", cliMD(in)},
	}
	for i := range files {
		files[i].Content = seal(files[i].Content, in.Version)
	}
	return files
}

func skillMD(in Input) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\n---\n\n", Name, description)
	b.WriteString(intro)
	b.WriteString("\n## Which tool\n\n| when you need to | MCP tool | CLI |\n| --- | --- | --- |\n")
	for _, t := range in.Tools {
		name := "`" + t.Name + "`"
		if t.NeedsWrite {
			name += " ✎"
		}
		cli := "—"
		if c := toolCLI[t.Name]; c != "" {
			cli = "`" + c + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", guideOr(toolGuide[t.Name], firstSentence(t.Description)), name, cli)
	}
	b.WriteString("\n✎ write tools: registered only when the server runs with `--enable-write`.\n")
	b.WriteString("Use them only when the user asks for a change.\n\n")
	b.WriteString("Other commands:\n\n")
	used := map[string]bool{}
	for _, c := range toolCLI {
		if f := strings.Fields(c); len(f) > 1 {
			used[f[1]] = true
		}
	}
	for _, c := range in.Commands {
		if c.depth() == 1 && !used[c.top()] {
			fmt.Fprintf(&b, "- `gno %s`: %s\n", c.top(), guideOr(commandGuide[c.top()], lower(c.Short)))
		}
	}
	b.WriteString("\n")
	b.WriteString(strategy)
	b.WriteString("\n")
	b.WriteString(recipes)
	b.WriteString("\n## References\n\n")
	b.WriteString("- [references/mcp-tools.md](references/mcp-tools.md): every tool and its arguments.\n")
	b.WriteString("- [references/cli.md](references/cli.md): every command and its flags.\n")
	return []byte(b.String())
}

func guideOr(g, fallback string) string {
	if g != "" {
		return g
	}
	return fallback
}

func lower(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// schema is the part of a JSON Schema the reference shows.
type schema struct {
	Type        any                `json:"type"`
	Description string             `json:"description"`
	Default     any                `json:"default"`
	Enum        []any              `json:"enum"`
	Minimum     *float64           `json:"minimum"`
	Maximum     *float64           `json:"maximum"`
	Items       *schema            `json:"items"`
	Properties  map[string]*schema `json:"properties"`
	Required    []string           `json:"required"`
	OneOf       []*schema          `json:"oneOf"`
	AnyOf       []*schema          `json:"anyOf"`
}

func toolsMD(in Input) []byte {
	var b strings.Builder
	b.WriteString("# gno MCP tools\n\nGenerated from gno's tool registry. Every tool returns a text summary and\n")
	b.WriteString("`structuredContent`; a failure is `isError: true` with `structuredContent.error`\n")
	b.WriteString("`{code, message}` (codes such as INVALID_INPUT, NOT_FOUND, LOCKED). The reconcile\n")
	b.WriteString("tools (gno_affected, gno_diff, gno_mark_reconciled, gno_clear_reconciled) fail instead\n")
	b.WriteString("with a JSON-RPC error, -32602 (invalid params) or -32603 (internal), whose `data` is\n")
	b.WriteString("the same `{code, message}`. Documents are also readable as resources\n")
	b.WriteString("`gno://collection/path`.\n")
	for _, t := range in.Tools {
		fmt.Fprintf(&b, "\n## %s", t.Name)
		if t.Title != "" {
			fmt.Fprintf(&b, ": %s", t.Title)
		}
		b.WriteString("\n\n")
		switch {
		case t.NeedsWrite:
			b.WriteString("Write tool (needs `gno mcp --enable-write`). ")
		case t.ReadOnly:
			b.WriteString("Read-only. ")
		}
		b.WriteString(t.Description + "\n")
		var s schema
		if json.Unmarshal(t.InputSchema, &s) != nil || len(s.Properties) == 0 {
			b.WriteString("\nNo arguments.\n")
			continue
		}
		req := map[string]bool{}
		for _, r := range s.Required {
			req[r] = true
		}
		b.WriteString("\n| argument | type | |\n| --- | --- | --- |\n")
		for _, name := range propOrder(t.InputSchema, s.Properties) {
			p := s.Properties[name]
			arg := "`" + name + "`"
			if req[name] {
				arg += " (required)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", arg, typeOf(p), cell(describe(p)))
		}
	}
	return []byte(b.String())
}

// propOrder lists properties in the schema's own order (the order its
// author chose), which a map loses.
func propOrder(raw json.RawMessage, props map[string]*schema) []string {
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	json.Unmarshal(raw, &top)
	dec := json.NewDecoder(strings.NewReader(string(top.Properties)))
	var out []string
	seen := map[string]bool{}
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			k, _ := tok.(string)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				break
			}
			if _, ok := props[k]; ok && !seen[k] {
				out = append(out, k)
				seen[k] = true
			}
		}
	}
	var rest []string
	for k := range props {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func typeOf(p *schema) string {
	if p == nil {
		return ""
	}
	var alts []*schema
	alts = append(alts, p.OneOf...)
	alts = append(alts, p.AnyOf...)
	if len(alts) > 0 {
		var ts []string
		for _, a := range alts {
			ts = append(ts, typeOf(a))
		}
		return strings.Join(ts, " or ")
	}
	var t string
	switch v := p.Type.(type) {
	case string:
		t = v
	case []any:
		var ts []string
		for _, x := range v {
			ts = append(ts, fmt.Sprint(x))
		}
		t = strings.Join(ts, " or ")
	}
	if t == "array" && p.Items != nil {
		t = typeOf(p.Items) + "[]"
	}
	return t
}

func describe(p *schema) string {
	d := p.Description
	var extra []string
	if len(p.Enum) > 0 {
		var vs []string
		for _, e := range p.Enum {
			vs = append(vs, fmt.Sprintf("`%v`", e))
		}
		extra = append(extra, "one of "+strings.Join(vs, ", "))
	}
	if p.Minimum != nil && p.Maximum != nil && !strings.Contains(d, fmt.Sprint(*p.Maximum)) {
		extra = append(extra, fmt.Sprintf("%v–%v", *p.Minimum, *p.Maximum))
	}
	if p.Default != nil {
		extra = append(extra, fmt.Sprintf("default `%v`", p.Default))
	}
	if len(extra) > 0 {
		if d != "" {
			d += "; "
		}
		d += strings.Join(extra, "; ")
	}
	return d
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func cliMD(in Input) []byte {
	var b strings.Builder
	b.WriteString("# gno CLI\n\nGenerated from gno's command tree. A query that starts with `-` goes after `--`.\n\n")
	b.WriteString("Global flags (any command):\n\n")
	writeFlags(&b, in.GlobalFlags)
	for _, c := range in.Commands {
		fmt.Fprintf(&b, "\n%s `%s`\n\n%s\n", strings.Repeat("#", min(c.depth()+1, 4)), usage(c), c.Short)
		if len(c.Flags) > 0 {
			b.WriteString("\n")
			writeFlags(&b, c.Flags)
		}
	}
	return []byte(b.String())
}

// usage is the full usage line: the parent path and cobra's Use.
func usage(c Command) string {
	f := strings.Fields(c.Path)
	return strings.Join(f[:len(f)-1], " ") + " " + c.Use
}

func writeFlags(b *strings.Builder, flags []Flag) {
	for _, f := range flags {
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + ", " + name
		}
		if f.Type != "bool" && f.Type != "" {
			name += " " + f.Type
		}
		line := fmt.Sprintf("- `%s`: %s", name, f.Usage)
		if f.Default != "" && f.Default != "false" && f.Default != "[]" && f.Default != "0" {
			line += fmt.Sprintf(" (default `%s`)", f.Default)
		}
		b.WriteString(strings.ReplaceAll(line, "\n", " ") + "\n")
	}
}
