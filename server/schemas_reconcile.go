package server

// Schemas of the reconcile tools (reconcile-cache-mcp.md in gno's terms:
// REFs and URIs, camelCase arguments, a cursor per agent).

const affectedInputSchema = `{
  "type": "object",
  "properties": {
    "base": {"type": "string", "description": "Git base branch (e.g. main): the change is the work tree (committed or not, untracked files included) against the commit where the current branch left base (git diff --merge-base BASE), for collections inside a git work tree"},
    "since": {"type": "integer", "minimum": 0, "description": "Generation: the change is what the index saw after it (any collection). Give base or since."},
    "collection": {"type": "string", "description": "Only files changed in this collection"},
    "maxTokens": {"type": "integer", "minimum": 200, "maximum": 100000, "default": 8000, "description": "Token budget; notes' contents that do not fit are left out and marked"}
  }
}`

const diffInputSchema = `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "description": "A governing note (front matter governs: globs), or any document for its own diff"},
    "base": {"type": "string", "description": "Git base branch: git's own diff of the work tree (committed or not) against the merge base (git diff --merge-base BASE)"},
    "since": {"type": "integer", "minimum": 0, "description": "Generation: diff against the text each file had then. With neither base nor since, a governing note's answer lists in notDiffed the governed files whose content differs from the reconcile cache, without diffs"},
    "exclude": {"type": "array", "items": {"type": "string"}, "maxItems": 100, "description": "Globs of governed files to leave out (listed in excluded), e.g. [\"*.lock\"]"},
    "bypassCache": {"type": "boolean", "default": false, "description": "Diff every governed file, whatever the reconcile cache holds (the cache is not touched)"},
    "cursor": {"type": "string", "description": "Reconcile cache cursor (default \"default\"): one per agent or task"},
    "maxTokens": {"type": "integer", "minimum": 200, "maximum": 100000, "default": 8000, "description": "Token budget; diffs that do not fit are listed in omitted"}
  },
  "required": ["ref"]
}`

const markInputSchema = `{
  "type": "object",
  "properties": {
    "files": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 100000, "description": "Files reconciled: REFs (gno://collection/path, collection/path) or absolute paths inside a collection"},
    "cursor": {"type": "string", "description": "Reconcile cache cursor (default \"default\")"}
  },
  "required": ["files"]
}`

const clearInputSchema = `{
  "type": "object",
  "properties": {
    "cursor": {"type": "string", "description": "Reconcile cache cursor to forget (default \"default\")"}
  }
}`

var (
	changedFileSchema = `{"type": "array", "items": {"type": "object", "required": ["uri", "status"], "properties": {
  "uri": {"type": "string"}, "status": {"type": "string", "enum": ["added", "modified", "deleted"]}}}}`
	noteTextProps  = `"uri": {"type": "string"}, "title": {"type": "string"}, "content": {"type": "string"}`
	noteTextSchema = `{"type": "object", "required": ["uri", "title"], "properties": {` + noteTextProps + `}}`
	affectedOutput = outputSchema("mcp-affected@1.0", `"base": {"type": "string"}, "since": {"type": "integer"}, "generation": {"type": "integer"},
  "changed": `+changedFileSchema+`, "changedOmitted": {"type": "integer"},
  "notes": {"type": "array", "items": {"type": "object", "required": ["uri", "docid", "title", "why"], "properties": {
    "uri": {"type": "string"}, "docid": {"type": "string"}, "title": {"type": "string"}, "content": {"type": "string"}, "contentOmitted": {"type": "boolean"}, "whyOmitted": {"type": "integer"},
    "why": {"type": "array", "items": {"type": "object", "required": ["file", "by"], "properties": {
      "file": {"type": "string"}, "by": {"type": "string", "enum": ["governs", "links"]}, "glob": {"type": "string"}}}}}}},
  "warnings": `+stringsSchema, "generation", "changed", "notes", "warnings")
	diffOutput = outputSchema("mcp-diff@1.0", `"uri": {"type": "string"}, "title": {"type": "string"}, "base": {"type": "string"}, "since": {"type": "integer"},
  "cursor": {"type": "string"}, "diff": {"type": "string"}, "files": `+stringsSchema+`, "skipped": `+stringsSchema+`, "excluded": `+stringsSchema+`,
  "notDiffed": {"type": "array", "items": {"type": "object", "required": ["uri", "reason"], "properties": {"uri": {"type": "string"}, "reason": {"type": "string"}}}},
  "whole": {"type": "array", "items": `+noteTextSchema+`}, "specChanges": {"type": "array", "items": `+noteTextSchema+`},
  "system": {"anyOf": [{"type": "null"}, `+noteTextSchema+`]}, "omitted": `+stringsSchema+`, "message": {"type": "string"}, "warnings": `+stringsSchema,
		"uri", "cursor", "diff", "files", "skipped", "excluded", "notDiffed", "whole", "specChanges", "system", "omitted", "warnings")
	markOutput  = outputSchema("mcp-mark-reconciled@1.0", `"cursor": {"type": "string"}, "updated": {"type": "integer"}, "missing": `+stringsSchema, "cursor", "updated", "missing")
	clearOutput = outputSchema("mcp-clear-reconciled@1.0", `"cursor": {"type": "string"}, "cleared": {"type": "boolean"}, "files": {"type": "integer"}`, "cursor", "cleared", "files")
)
