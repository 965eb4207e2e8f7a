package server

// Schemas of gno_package_changes: what changed in a dependency between
// two versions, within maxTokens.

const packageChangesInput = `{
  "type": "object",
  "properties": {
    "package": {"type": "string", "description": "Package name or short name (cobra, commander, httpx, tokio)"},
    "from": {"type": "string", "description": "The older version (default: the installed one, or the newest other stored one)"},
    "to": {"type": "string", "description": "The newer version, e.g. the one you consider upgrading to, or \"latest\" (default: the installed one, or the newest other stored one)"},` + pkgCommonInput + `
  },
  "required": ["package"]
}`

const diffVersionSchema = `{"type": "object", "required": ["version", "installed", "uri"], "properties": {
  "version": {"type": "string"}, "installed": {"type": "boolean"}, "fetched": {"type": "boolean"}, "uri": {"type": "string"}}}`

const apiChangeSchema = `{"type": "array", "items": {"type": "object", "required": ["name", "kind", "uri"], "properties": {
  "name": {"type": "string"}, "kind": {"type": "string"}, "signature": {"type": "string"}, "before": {"type": "string"},
  "delta": {"type": "array", "items": {"type": "string"}}, "uri": {"type": "string"}}}}`

var packageChangesOutput = outputSchema("package-changes@1.0", `"ecosystem": {"type": "string"}, "name": {"type": "string"},
  "from": `+diffVersionSchema+`, "to": `+diffVersionSchema+`,
  "removed": `+apiChangeSchema+`, "changed": `+apiChangeSchema+`, "deprecated": `+apiChangeSchema+`, "added": `+apiChangeSchema+`,
  "counts": {"type": "object", "required": ["removed", "changed", "deprecated", "added", "changelog"], "properties": {
    "removed": {"type": "integer"}, "changed": {"type": "integer"}, "deprecated": {"type": "integer"}, "added": {"type": "integer"}, "changelog": {"type": "integer"}}},
  "changelog": {"type": "object", "required": ["file", "version", "known", "entries"], "properties": {
    "file": {"type": "string"}, "version": {"type": "string"}, "known": {"type": "boolean"},
    "entries": {"type": "array", "items": {"type": "object", "required": ["version", "title", "text"], "properties": {
      "version": {"type": "string"}, "title": {"type": "string"}, "text": {"type": "string"}}}}}},
  "truncated": {"type": "boolean"}, "cut": `+stringsSchema+`, "notes": `+notesSchema,
	"ecosystem", "name", "from", "to", "removed", "changed", "deprecated", "added", "counts")
