package server

// Schemas of the graph and note tools (graph-tools-schema.md with gno's
// names: REFs instead of node ids, camelCase arguments).

const linksInputSchema = `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "description": "Document reference: gno:// URI, collection/path, or #docid"},
    "direction": {"type": "string", "enum": ["in", "out", "both"], "default": "both", "description": "in = links to this document, out = links from it, both = all"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 20, "description": "Maximum links per direction"},
    "includeContent": {"type": "boolean", "default": false, "description": "Include each linked document's content, truncated to 500 characters"},
    "unresolved": {"type": "boolean", "default": false, "description": "Only outgoing links that name no indexed document"}
  },
  "required": ["ref"]
}`

const findPathInputSchema = `{
  "type": "object",
  "properties": {
    "source": {"type": "string", "description": "Start document reference"},
    "target": {"type": "string", "description": "End document reference"},
    "undirected": {"type": "boolean", "default": false, "description": "Follow links both ways"},
    "maxDepth": {"type": "integer", "minimum": 1, "maximum": 50, "default": 12, "description": "Longest path searched, in links"}
  },
  "required": ["source", "target"]
}`

const hubsInputSchema = `{
  "type": "object",
  "properties": {
    "metric": {"type": "string", "enum": ["in_degree", "out_degree", "pagerank"], "default": "in_degree", "description": "Centrality metric"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10, "description": "Maximum results"},
    "includeContent": {"type": "boolean", "default": false, "description": "Include content truncated to 500 characters"}
  }
}`

const resolveInputSchema = `{
  "type": "object",
  "properties": {
    "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 1000, "description": "Names to resolve to existing documents"},
    "strategy": {"type": "string", "enum": ["exact", "fuzzy", "semantic"], "default": "fuzzy", "description": "exact: case-insensitive equality with a title, file name or alias. fuzzy: trigram Dice similarity (typos). semantic: embedding similarity (synonyms; needs vectors from gno index)."},
    "threshold": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.7, "description": "Minimum similarity (0-1). Ignored for exact."}
  },
  "required": ["names"]
}`

const relatedInputSchema = `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "description": "Document reference"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10, "description": "Maximum related notes"}
  },
  "required": ["ref"]
}`

const updateNoteInputSchema = `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "description": "Document reference"},
    "content": {"type": "string", "description": "New body (replaces everything after the front matter; content with its own front matter replaces the whole file)"},
    "tags": {"type": "array", "items": {"type": "string"}, "description": "New front-matter tags (replaces existing)"}
  },
  "required": ["ref"]
}`

const deleteNoteInputSchema = `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "description": "Document reference"}
  },
  "required": ["ref"]
}`

const renameNoteInputSchema = `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "description": "Document reference"},
    "newPath": {"type": "string", "description": "New path relative to the collection root"},
    "updateLinks": {"type": "boolean", "default": false, "description": "Rewrite links in other notes that would break; without it a rename that breaks links fails with LINK_INTEGRITY"}
  },
  "required": ["ref", "newPath"]
}`

const noteRefProps = `"uri": {"type": "string"}, "docid": {"type": "string"}, "title": {"type": "string"}`

var noteRefSchema = `{"type": "object", "required": ["uri", "docid", "title"], "properties": {` + noteRefProps + `}}`

var nodeSchema = `{"type": "object", "required": ["uri", "docid", "title"], "properties": {` + noteRefProps + `,
  "content": {"type": "string"}, "tags": ` + stringsSchema + `}}`

var linkInfoSchema = `{"type": "object", "required": ["target", "kind", "line", "resolved"], "properties": {` + noteRefProps + `,
  "target": {"type": "string"}, "fragment": {"type": "string"}, "alias": {"type": "string"},
  "kind": {"type": "string", "enum": ["wiki", "embed", "markdown", "uri"]}, "line": {"type": "integer"},
  "resolved": {"type": "boolean"}, "attachment": {"type": "boolean"}, "content": {"type": "string"}}}`

var neighbourProps = `"incomingNeighbors": {"type": "array", "items": ` + nodeSchema + `},
  "outgoingNeighbors": {"type": "array", "items": ` + nodeSchema + `},
  "incomingCount": {"type": "integer"}, "outgoingCount": {"type": "integer"}`

var (
	linksOutput = outputSchema("links@1.0", noteRefProps+`, "outgoing": {"type": "array", "items": `+linkInfoSchema+`},
  "incoming": {"type": "array", "items": `+linkInfoSchema+`}, "outgoingCount": {"type": "integer"}, "incomingCount": {"type": "integer"}`,
		"uri", "outgoing", "incoming", "outgoingCount", "incomingCount")
	pathOutput = outputSchema("path@1.0", `"found": {"type": "boolean"}, "path": {"type": "array", "items": `+noteRefSchema+`}, "length": {"type": "integer"}`,
		"found", "path", "length")
	hubsOutput = outputSchema("hubs@1.0", `"metric": {"type": "string", "enum": ["in_degree", "out_degree", "pagerank"]},
  "hubs": {"type": "array", "items": {"type": "object", "required": ["uri", "docid", "title", "score"], "properties": {`+noteRefProps+`,
    "score": {"type": "number"}, "inDegree": {"type": "integer"}, "outDegree": {"type": "integer"}, "content": {"type": "string"}}}}`,
		"metric", "hubs")
	resolveOutput = outputSchema("resolve@1.0", `"results": {"type": "array", "items": {"type": "object", "required": ["query", "score"], "properties": {
    "query": {"type": "string"}, "match": {"type": "string"}, "docid": {"type": "string"}, "title": {"type": "string"}, "score": {"type": "number"}}}}`,
		"results")
	relatedOutput = outputSchema("related@1.0", noteRefProps+`, "vectorsUsed": {"type": "boolean"},
  "related": {"type": "array", "items": {"type": "object", "required": ["uri", "docid", "title", "score", "linked"], "properties": {`+noteRefProps+`,
    "score": {"type": "number"}, "linked": {"type": "boolean"}, "linkRank": {"type": "integer"}, "vectorRank": {"type": "integer"}}}}`,
		"uri", "related", "vectorsUsed")
	noteOutput = outputSchema("mcp-note-result@1.0", `"uri": {"type": "string"}, "docid": {"type": "string"}, "absPath": {"type": "string"},
  "deleted": {"type": "boolean"}, "from": {"type": "string"}, "linksUpdated": {"type": "integer"},
  "filesUpdated": `+stringsSchema+`, "brokenLinks": {"type": "integer"}, "indexed": {"type": "boolean"}`,
		"uri", "indexed")
)
