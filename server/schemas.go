package server

import (
	"encoding/json"
	"fmt"
	"sync"
)

// Input schemas follow gno-mcp-spec.md word for word, plus the additions of
// the spec README (tag filters, tags, change feed). They are the single
// source of truth for argument checking: validateArgs enforces them.

const searchInput = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "Search query text"},
    "collection": {"type": "string", "description": "Optional collection name to filter results"},
    "limit": {"type": "integer", "description": "Maximum number of results (1-100)", "default": 5, "minimum": 1, "maximum": 100},
    "minScore": {"type": "number", "description": "Minimum score threshold (0-1)", "minimum": 0, "maximum": 1},
    "lang": {"type": "string", "description": "%s"},
    "tagsAny": {"type": "array", "items": {"type": "string"}, "description": "Filter: documents with ANY of these tags (OR)"},
    "tagsAll": {"type": "array", "items": {"type": "string"}, "description": "Filter: documents with ALL of these tags (AND)"}%s
  },
  "required": ["query"]
}`

const queryExtra = `,
    "expand": {"type": "boolean", "description": "Enable query expansion (slower, better recall)", "default": false},
    "rerank": {"type": "boolean", "description": "Enable cross-encoder reranking", "default": true},
    "fast": {"type": "boolean", "description": "Fast mode: skip expansion and reranking (~0.7s)", "default": false},
    "thorough": {"type": "boolean", "description": "Thorough mode: enable expansion (~5-8s)", "default": false}`

var (
	searchInputSchema  = fmt.Sprintf(searchInput, "Language filter (BCP-47 code)", "")
	vsearchInputSchema = fmt.Sprintf(searchInput, "Language hint for query (BCP-47 code)", "")
	queryInputSchema   = fmt.Sprintf(searchInput, "Language hint for query (BCP-47 code)", queryExtra)
)

const getInputSchema = `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "description": "Document reference: gno:// URI, collection/path, or #docid"},
    "fromLine": {"type": "integer", "description": "Start at line number (1-indexed)", "minimum": 1},
    "lineCount": {"type": "integer", "description": "Number of lines to return", "minimum": 1},
    "lineNumbers": {"type": "boolean", "description": "Include line numbers in content", "default": true},
    "depth": {"type": "integer", "minimum": 0, "maximum": 1, "default": 0, "description": "0 = document only, 1 = also the documents linking to and linked from it (up to 20 each, content truncated to 200 characters; the document's own content to 10,000)"}
  },
  "required": ["ref"]
}`

const multiGetInputSchema = `{
  "type": "object",
  "properties": {
    "refs": {"type": "array", "description": "Array of document references", "items": {"type": "string"}},
    "pattern": {"type": "string", "description": "Glob pattern to match documents (alternative to refs)"},
    "maxBytes": {"type": "integer", "description": "Maximum bytes per document before truncation", "default": 10240},
    "lineNumbers": {"type": "boolean", "description": "Include line numbers in content", "default": true}
  }
}`

const emptyInputSchema = `{"type": "object", "properties": {}}`

const listTagsInputSchema = `{
  "type": "object",
  "properties": {
    "collection": {"type": "string", "description": "Filter by collection"},
    "prefix": {"type": "string", "description": "Filter by tag prefix (e.g., project/)"}
  }
}`

const changesInputSchema = `{
  "type": "object",
  "properties": {
    "collection": {"type": "string", "description": "Only changes in this collection"},
    "since": {"type": "integer", "description": "Generation last seen (0 for everything)", "default": 0, "minimum": 0},
    "diff": {"type": "boolean", "default": false, "description": "Add each added or modified document's unified diff since that generation"},
    "maxTokens": {"type": "integer", "minimum": 200, "maximum": 100000, "default": 8000, "description": "Token budget of the diffs (with diff: true)"}
  }
}`

const captureInputSchema = `{
  "type": "object",
  "properties": {
    "collection": {"type": "string", "description": "Target collection name"},
    "content": {"type": "string", "description": "Document content (markdown)"},
    "title": {"type": "string", "description": "Optional title used for filename generation"},
    "path": {"type": "string", "description": "Optional relative path within the collection"},
    "overwrite": {"type": "boolean", "description": "Overwrite existing file if true", "default": false}
  },
  "required": ["collection", "content"]
}`

const addCollectionInputSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Absolute or ~-expanded folder path"},
    "name": {"type": "string", "description": "Optional collection name (defaults to folder name)"},
    "pattern": {"type": "string", "description": "Glob pattern (default: every document format gno converts, **/*.{md,markdown,mdx,txt,html,htm,pdf,docx,pptx,xlsx,eml,mbox,epub})"},
    "include": {"type": "array", "items": {"type": "string"}, "description": "Additional include patterns"},
    "exclude": {"type": "array", "items": {"type": "string"}, "description": "Exclude patterns"},
    "gitPull": {"type": "boolean", "description": "Run git pull before indexing", "default": false}
  },
  "required": ["path"]
}`

const syncInputSchema = `{
  "type": "object",
  "properties": {
    "collection": {"type": "string", "description": "Collection to sync (all if omitted)"},
    "gitPull": {"type": "boolean", "description": "Run git pull before indexing", "default": false},
    "runUpdateCmd": {"type": "boolean", "description": "Run updateCmd before indexing (default: false for MCP)", "default": false}
  }
}`

const removeCollectionInputSchema = `{
  "type": "object",
  "properties": {
    "collection": {"type": "string", "description": "Collection name to remove"}
  },
  "required": ["collection"]
}`

const tagInputSchema = `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "description": "Document URI or docid"},
    "tag": {"type": "string", "description": "Tag string"},
    "action": {"type": "string", "enum": ["add", "remove"], "description": "add or remove (default: add)", "default": "add"}
  },
  "required": ["ref", "tag"]
}`

const jobStatusInputSchema = `{
  "type": "object",
  "properties": {
    "jobId": {"type": "string", "description": "Job identifier"}
  },
  "required": ["jobId"]
}`

const listJobsInputSchema = `{
  "type": "object",
  "properties": {
    "limit": {"type": "integer", "description": "Max recent jobs to return", "default": 10, "minimum": 1, "maximum": 100}
  }
}`

// Output schemas. Each allows either the tool's result or, for a result
// with isError: true, {"error": {"code", "message"}}: MCP clients validate
// structuredContent against outputSchema even on errors.

const errorSchema = `{"type": "object", "required": ["code", "message"], "properties": {
  "code": {"type": "string", "description": "NOT_FOUND, DUPLICATE, CONFLICT, HAS_REFERENCES, INVALID_PATH, PATH_NOT_FOUND, JOB_CONFLICT, LOCKED, INVALID_INPUT, UNAVAILABLE or RUNTIME"},
  "message": {"type": "string"}}}`

const lineRangeSchema = `{"type": "object", "required": ["start", "end"], "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}}}`

const stringsSchema = `{"type": "array", "items": {"type": "string"}}`

const sourceSchema = `{"type": "object", "required": ["absPath", "relPath", "mime", "ext"], "properties": {
  "absPath": {"type": "string"}, "relPath": {"type": "string"}, "mime": {"type": "string"}, "ext": {"type": "string"},
  "modifiedAt": {"type": "string"}, "sizeBytes": {"type": "integer"}}}`

var resultSchema = `{"type": "object", "required": ["docid", "score", "uri", "snippet", "source"], "properties": {
  "docid": {"type": "string"}, "score": {"type": "number"}, "uri": {"type": "string"}, "title": {"type": "string"},
  "collection": {"type": "string"}, "snippet": {"type": "string"}, "lines": ` + lineRangeSchema + `,
  "headings": {"type": "string"}, "page": {"type": "integer", "minimum": 1}, "source": ` + sourceSchema + `, "tags": ` + stringsSchema + `,
  "lang": {"type": "string"}, "context": ` + stringsSchema + `, "content": {"type": "string"}, "explain": {"type": "object"}}}`

const metaSchema = `{"type": "object", "required": ["query", "mode", "totalResults"], "properties": {
  "query": {"type": "string"}, "mode": {"type": "string", "enum": ["bm25", "vector", "hybrid", "bm25_only"]},
  "expanded": {"type": "boolean"}, "reranked": {"type": "boolean"}, "vectorsUsed": {"type": "boolean"},
  "vectorIndex": {"type": "string", "enum": ["graph", "store"]}, "totalResults": {"type": "integer"}, "notes": {"type": "array", "items": {"type": "string"}},
  "timings": {"type": "object"}, "rerankModel": {"type": "string"},
  "embedded": {"type": "object", "required": ["vectors", "chunks"], "properties": {"vectors": {"type": "integer"}, "chunks": {"type": "integer"}}},
  "replica": {"type": "object", "required": ["lagSeconds", "lagBytes"], "properties": {"lagSeconds": {"type": "number"}, "lagBytes": {"type": "integer"}}}}}`

var documentProps = `
  "docid": {"type": "string"}, "uri": {"type": "string"}, "title": {"type": "string"}, "collection": {"type": "string"},
  "content": {"type": "string"}, "totalLines": {"type": "integer"}, "returnedLines": ` + lineRangeSchema + `,
  "truncated": {"type": "boolean"}, "source": ` + sourceSchema + `, "tags": ` + stringsSchema + `,
  "lang": {"type": "string"}, "context": ` + stringsSchema + `, "generation": {"type": "integer"},
  "package": ` + pkgRefSchema + `, "symbol": ` + symbolSchema

var documentSchema = `{"type": "object", "required": ["docid", "uri", "content", "totalLines", "returnedLines", "source"], "properties": {` + documentProps + `}}`

const progressSchema = `{"type": "object", "properties": {"collection": {"type": "string"}, "done": {"type": "integer"}, "total": {"type": "integer"}}}`

var jobProps = `
  "jobId": {"type": "string"}, "type": {"type": "string", "enum": ["sync", "add_collection", "embed"]},
  "status": {"type": "string", "enum": ["running", "completed", "failed", "cancelled"]},
  "collections": ` + stringsSchema + `, "createdAt": {"type": "string"}, "finishedAt": {"type": "string"},
  "progress": ` + progressSchema + `, "result": {"type": "object"}, "error": ` + errorSchema

var jobSchema = `{"type": "object", "required": ["jobId", "type", "status", "createdAt"], "properties": {` + jobProps + `}}`

var changeSchema = `{"type": "array", "items": {"type": "object", "required": ["uri", "docid", "generation"], "properties": {
  "uri": {"type": "string"}, "docid": {"type": "string"}, "generation": {"type": "integer"}, "diff": {"type": "string"}, "diffNote": {"type": "string"}}}}`

var collectionSchema = `{"type": "object", "required": ["name", "path"], "properties": {
  "name": {"type": "string"}, "path": {"type": "string"}, "pattern": {"type": "string"},
  "include": ` + stringsSchema + `, "exclude": ` + stringsSchema + `}}`

// outputSchema builds a tool's output schema: id names it (with its
// version), props are the result's properties (a JSON object's members),
// required the fields every successful result has. A job's own "error"
// member has the same shape as the tool error, so it is shared.
func outputSchema(id, props string, required ...string) func() json.RawMessage {
	// Built on first use, not at start-up: every gno command (a search
	// included) initialises this package, and only MCP serving needs these.
	return sync.OnceValue(func() json.RawMessage {
		var p map[string]json.RawMessage
		if err := json.Unmarshal([]byte("{"+props+"}"), &p); err != nil {
			panic(fmt.Sprintf("output schema %s: %v", id, err)) // a bug in this file
		}
		if _, ok := p["error"]; !ok {
			p["error"] = json.RawMessage(errorSchema)
		}
		s := map[string]any{
			"$id":        "gno://schemas/" + id,
			"type":       "object",
			"properties": p,
			"anyOf":      []any{map[string]any{"required": required}, map[string]any{"required": []string{"error"}}},
		}
		out, err := json.Marshal(s)
		if err != nil {
			panic(fmt.Sprintf("output schema %s: %v", id, err))
		}
		return out
	})
}

var (
	searchOutput = outputSchema("search-results@1.0", `"results": {"type": "array", "items": `+resultSchema+`}, "meta": `+metaSchema, "results", "meta")
	getOutput    = outputSchema("get@1.0", documentProps+`,
  `+neighbourProps, "docid", "uri", "content", "totalLines", "returnedLines", "source")
	multiOutput = outputSchema("multi-get@1.0", `"documents": {"type": "array", "items": `+documentSchema+`},
  "skipped": {"type": "array", "items": {"type": "object", "required": ["ref", "reason"], "properties": {"ref": {"type": "string"}, "reason": {"type": "string"}}}},
  "meta": {"type": "object", "required": ["requested", "returned", "skipped"], "properties": {"requested": {"type": "integer"}, "returned": {"type": "integer"}, "skipped": {"type": "integer"}}}`,
		"documents", "skipped", "meta")
	statusOutput = outputSchema("status@1.0", `"indexName": {"type": "string"}, "configPath": {"type": "string"}, "dbPath": {"type": "string"},
  "collections": {"type": "array", "items": {"type": "object", "required": ["name", "documentCount", "chunkCount", "embeddedCount"], "properties": {
    "name": {"type": "string"}, "path": {"type": "string"}, "documentCount": {"type": "integer"}, "chunkCount": {"type": "integer"},
    "embeddedCount": {"type": "integer"}, "available": {"type": "boolean"},
    "skipped": {"type": "object", "additionalProperties": {"type": "integer"}}}}},
  "totalDocuments": {"type": "integer"}, "totalChunks": {"type": "integer"}, "embeddingBacklog": {"type": "integer"},
  "generation": {"type": "integer"}, "links": {"type": "integer"}, "unresolvedLinks": {"type": "integer"},
  "embedModel": {"type": "string"}, "rerankModel": {"type": "string"},
  "healthy": {"type": "boolean"}, "issues": `+stringsSchema+`,
  "embedding": {"type": "object", "required": ["model", "done", "total"], "properties": {"model": {"type": "string"}, "pid": {"type": "integer"},
    "done": {"type": "integer"}, "total": {"type": "integer"}, "doneBytes": {"type": "integer"}, "totalBytes": {"type": "integer"},
    "chunksPerSec": {"type": "number"}, "etaSec": {"type": "number"}, "updated": {"type": "integer"}}},
  "server": {"type": "object", "required": ["server", "version", "schema"], "properties": {"server": {"type": "string"},
    "version": {"type": "string"}, "vector": {"type": "string"}, "tls": {"type": "string"}, "schema": {"type": "string"},
    "lockHolder": {"type": "string"},
    "replica": {"type": "object", "required": ["server", "standby", "lagBytes", "lagSeconds"], "properties": {"server": {"type": "string"},
      "version": {"type": "string"}, "tls": {"type": "string"}, "standby": {"type": "boolean"}, "lagBytes": {"type": "integer"},
      "lagSeconds": {"type": "number"}, "problem": {"type": "string"}}}}}`,
		"indexName", "collections", "totalDocuments", "totalChunks", "embeddingBacklog", "healthy")
	listTagsOutput = outputSchema("tags@1.0", `"tags": {"type": "array", "items": {"type": "object", "required": ["tag", "count"], "properties": {"tag": {"type": "string"}, "count": {"type": "integer"}}}}`, "tags")
	changesOutput  = outputSchema("changes@1.0", `"since": {"type": "integer"}, "generation": {"type": "integer"}, "added": `+changeSchema+`, "modified": `+changeSchema+`, "removed": `+changeSchema,
		"since", "generation", "added", "modified", "removed")
	captureOutput = outputSchema("mcp-capture-result@1.0", `"uri": {"type": "string"}, "docid": {"type": "string"}, "collection": {"type": "string"},
  "relPath": {"type": "string"}, "absPath": {"type": "string"}, "sizeBytes": {"type": "integer"},
  "created": {"type": "boolean"}, "overwritten": {"type": "boolean"}, "indexed": {"type": "boolean"}`,
		"uri", "collection", "relPath", "absPath", "created", "overwritten", "indexed")
	addCollectionOutput = outputSchema("mcp-add-collection-result@1.0", `"jobId": {"type": "string"}, "status": {"type": "string", "enum": ["running", "completed", "failed", "cancelled"]},
  "collection": `+collectionSchema+`, "job": `+jobSchema, "jobId", "status", "collection")
	syncOutput = outputSchema("mcp-sync-result@1.0", `"jobId": {"type": "string"}, "status": {"type": "string", "enum": ["running", "completed", "failed", "cancelled"]},
  "collections": `+stringsSchema+`, "job": `+jobSchema, "jobId", "status", "collections")
	removeOutput = outputSchema("mcp-remove-result@1.0", `"collection": {"type": "string"}, "removed": {"type": "boolean"}, "note": {"type": "string"}`, "collection", "removed")
	tagOutput    = outputSchema("mcp-tag-result@1.0", `"docid": {"type": "string"}, "uri": {"type": "string"}, "tags": `+stringsSchema, "docid", "uri", "tags")
	jobOutput    = outputSchema("mcp-job-status@1.0", jobProps, "jobId", "type", "status", "createdAt")
	jobsOutput   = outputSchema("mcp-job-list@1.0", `"active": {"type": "array", "items": `+jobSchema+`}, "recent": {"type": "array", "items": `+jobSchema+`}`, "active", "recent")
)
