package server

// Schemas of the package-docs tools (the spec README's
// gno_search_package_docs, gno_describe_package, gno_get_package_doc),
// with maxTokens on each: an answer never exceeds it, and says when it
// was cut.

const pkgCommonInput = `
    "ecosystem": {"type": "string", "enum": ["go", "npm", "python", "rust", "swift"], "description": "Only this ecosystem (when a name exists in several)"},
    "project": {"type": "string", "description": "Project folder whose dependencies are read (default: the client's roots, else the server's working folder)"},
    "maxTokens": {"type": "integer", "minimum": 200, "maximum": 100000, "default": 5000, "description": "Token budget of the answer; what does not fit is cut and marked truncated"}`

const searchPackageDocsInput = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "A question or an identifier, e.g. \"flag every subcommand inherits\" or \"PersistentFlags\""},
    "package": {"type": "string", "description": "Only this package: its name or short name (cobra, github.com/spf13/cobra, @scope/name, requests)"},
    "path": {"type": "string", "description": "The file you are editing (src/main.rs, app/models.py, package.json): without ecosystem, its language narrows the search to that ecosystem's packages and standard library"},
    "limit": {"type": "integer", "description": "Maximum number of results (1-50)", "default": 5, "minimum": 1, "maximum": 50},
    "mode": {"type": "string", "enum": ["search", "fast", "query"], "default": "fast", "description": "search: keywords (BM25); fast: keywords and meaning fused; query: fast plus reranking"},` + pkgCommonInput + `
  },
  "required": ["query"]
}`

const describePackageInput = `{
  "type": "object",
  "properties": {
    "package": {"type": "string", "description": "Package name or short name (cobra, github.com/spf13/cobra, zod, requests, serde)"},
    "version": {"type": "string", "description": "A version other than the project's (one stored for another project)"},
    "symbol": {"type": "string", "description": "One API item as you would write it: qualified or not, any case, with . :: / # or () (Command.PersistentFlags, PersistentFlags, cobra.Command.PersistentFlags()); returns its signature, doc and examples"},` + pkgCommonInput + `
  },
  "required": ["package"]
}`

const getPackageDocInput = `{
  "type": "object",
  "properties": {
    "package": {"type": "string", "description": "Package name or short name"},
    "version": {"type": "string", "description": "A version other than the project's"},
    "section": {"type": "string", "description": "A README or doc heading (Installation, Usage...) or a hit's heading path (User Guide > Working with Flags > Persistent Flags), a unit path (readme.md, docs/guide.md, api/Command.Execute), a search hit's URI (with #L<line>: the whole section around that line) or an API item; default: the README"},
    "query": {"type": "string", "description": "Return the package's units that best match this instead"},` + pkgCommonInput + `
  },
  "required": ["package"]
}`

const pkgRefSchema = `{"type": "object", "required": ["ecosystem", "name", "version"], "properties": {
  "ecosystem": {"type": "string"}, "name": {"type": "string"}, "version": {"type": "string"}}}`

const symbolSchema = `{"type": "object", "required": ["name", "kind"], "properties": {
  "name": {"type": "string"}, "kind": {"type": "string"}, "signature": {"type": "string"}}}`

const pkgInfoSchema = `{"type": "object", "required": ["ecosystem", "name", "version", "uri"], "properties": {
  "ecosystem": {"type": "string"}, "name": {"type": "string"}, "version": {"type": "string"}, "summary": {"type": "string"},
  "license": {"type": "string"}, "homepage": {"type": "string"}, "repository": {"type": "string"}, "direct": {"type": "boolean"},
  "units": {"type": "integer"}, "uri": {"type": "string"}}}`

const apiItemSchema = `{"type": "object", "required": ["name", "kind", "uri"], "properties": {
  "name": {"type": "string"}, "kind": {"type": "string"}, "signature": {"type": "string"}, "uri": {"type": "string"}}}`

const unitRefSchema = `{"type": "object", "required": ["path", "kind", "uri"], "properties": {
  "path": {"type": "string"}, "title": {"type": "string"}, "kind": {"type": "string"}, "uri": {"type": "string"}}}`

const notesSchema = `{"type": "array", "items": {"type": "string"}}`

var pkgResultSchema = `{"type": "object", "required": ["docid", "score", "uri", "snippet", "package"], "properties": {
  "docid": {"type": "string"}, "score": {"type": "number"}, "uri": {"type": "string"}, "title": {"type": "string"},
  "collection": {"type": "string"}, "snippet": {"type": "string"}, "lines": ` + lineRangeSchema + `,
  "headings": {"type": "string"}, "source": {"type": "object"}, "explain": {"type": "object"},
  "package": ` + pkgRefSchema + `, "symbol": ` + symbolSchema + `}}`

var (
	searchPackageDocsOutput = outputSchema("package-search-results@1.0", `"results": {"type": "array", "items": `+pkgResultSchema+`},
  "meta": `+metaSchema+`,
  "scope": {"type": "object", "required": ["projects", "packages"], "properties": {"projects": `+stringsSchema+`, "packages": {"type": "integer"}}},
  "truncated": {"type": "boolean"}`, "results", "meta", "scope")
	describePackageOutput = outputSchema("package-description@1.0", `"package": `+pkgInfoSchema+`,
  "install": {"type": "string"}, "usage": {"type": "string"},
  "api": {"type": "array", "items": `+apiItemSchema+`}, "apiTotal": {"type": "integer"},
  "docs": {"type": "array", "items": `+unitRefSchema+`},
  "symbol": {"type": "object", "required": ["name", "kind", "uri"], "properties": {"name": {"type": "string"}, "kind": {"type": "string"},
    "signature": {"type": "string"}, "uri": {"type": "string"}, "doc": {"type": "string"}, "examples": `+stringsSchema+`,
    "file": {"type": "string"}, "line": {"type": "integer"}}},
  "matches": {"type": "array", "items": `+apiItemSchema+`},
  "truncated": {"type": "boolean"}, "notes": `+notesSchema, "package", "api", "apiTotal")
	getPackageDocOutput = outputSchema("package-doc@1.0", `"package": `+pkgInfoSchema+`,
  "section": {"type": "string"}, "content": {"type": "string"},
  "units": {"type": "array", "items": `+unitRefSchema+`}, "sections": `+stringsSchema+`,
  "truncated": {"type": "boolean"}, "totalTokens": {"type": "integer"}, "notes": `+notesSchema,
		"package", "section", "content", "units", "totalTokens")
)
