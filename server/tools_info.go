package server

import "encoding/json"

// ToolInfo describes one MCP tool as a client sees it in tools/list: what
// `gno skill` documents, so the skill is generated from the registry and
// cannot drift from it.
type ToolInfo struct {
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

// Tools lists every tool a server can register, in registration order,
// the write tools included (marked NeedsWrite).
func Tools() []ToolInfo {
	var out []ToolInfo
	add := func(defs []toolDef, write bool) {
		for _, d := range defs {
			out = append(out, ToolInfo{Name: d.name, Title: d.title, Description: d.desc,
				InputSchema: json.RawMessage(d.input), ReadOnly: d.readOnly, NeedsWrite: write})
		}
	}
	add(readTools(), false)
	add(graphTools(), false)
	add([]toolDef{askTool()}, false)
	add(packageTools(), false)
	add(reconcileTools(), false)
	add(writeTools(), true)
	add(noteTools(), true)
	return out
}
