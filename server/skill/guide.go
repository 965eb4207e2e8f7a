package skill

// The hand-written part of the skill: when an agent should reach for
// each tool and command. Everything else (names, descriptions, arguments,
// flags) is read from the registry and the command tree. Every
// registered tool and every top-level command needs a line here: Missing
// reports those without one, and the drift tests fail on them.

// toolGuide says when to use each MCP tool.
var toolGuide = map[string]string{
	"gno_query":               "Find anything: the first search to run (hybrid, reranked).",
	"gno_search":              "Exact words, names, identifiers, error messages, quoted phrases.",
	"gno_vsearch":             "A concept the documents may phrase in other words.",
	"gno_get":                 "Read a result (or a line range of it) before quoting it.",
	"gno_multi_get":           "Read several results at once, or a folder by glob.",
	"gno_status":              "See the collections, document counts and whether vectors are ready.",
	"gno_list_tags":           "Discover tags before filtering with tagsAny/tagsAll.",
	"gno_changes":             "Re-read only what changed since a generation you saw.",
	"gno_links":               "A note's outgoing links and its backlinks.",
	"gno_find_path":           "How two notes connect through links.",
	"gno_hubs":                "The central notes of a vault: where to start exploring.",
	"gno_resolve":             "Which note a name means, before writing [[links]] to it.",
	"gno_related":             "Notes near the one you are reading (links and meaning).",
	"gno_ask":                 "A short answer with checked citations, written by the user's local model.",
	"gno_capture":             "Save a new note the user asked for.",
	"gno_add_collection":      "Index a new folder the user named.",
	"gno_sync":                "Re-index after files changed outside gno.",
	"gno_remove_collection":   "Stop indexing a folder (its files stay).",
	"gno_tag":                 "Add or remove a tag on a document.",
	"gno_job_status":          "Follow a gno_sync or gno_add_collection job.",
	"gno_list_jobs":           "See running and recent jobs.",
	"gno_update":              "Change a note's body or tags, atomically.",
	"gno_delete":              "Delete a note the user asked to delete.",
	"gno_rename":              "Move or rename a note; updateLinks keeps links to it whole.",
	"gno_search_package_docs": "How to do something with a dependency of the project, at its installed version.",
	"gno_describe_package":    "A dependency's summary, install, usage and API signatures; symbol for one item.",
	"gno_get_package_doc":     "Read a dependency's README, docs or one API item within a token budget.",
	"gno_package_changes":     "What changed in a dependency between two versions (API and changelog), before an upgrade.",
	"gno_affected":            "Which notes (governing specs, linking notes) a branch or recent change touches.",
	"gno_diff":                "What changed in the files a note governs, minus what you already reconciled.",
	"gno_mark_reconciled":     "After bringing a note in line with its files, record them so the next diff skips them.",
	"gno_clear_reconciled":    "Start reconciling from scratch (forget your cursor's cache).",
}

// toolCLI is the command that does a tool's job, for agents with a shell
// but no MCP server ("" when there is none). The drift test checks each
// names a real command.
var toolCLI = map[string]string{
	"gno_query":               "gno query",
	"gno_search":              "gno search",
	"gno_vsearch":             "gno vsearch",
	"gno_get":                 "gno get",
	"gno_multi_get":           "gno multi-get",
	"gno_status":              "gno status",
	"gno_list_tags":           "gno tags",
	"gno_changes":             "gno changes",
	"gno_links":               "gno links",
	"gno_find_path":           "gno path",
	"gno_hubs":                "gno hubs",
	"gno_resolve":             "gno resolve",
	"gno_related":             "gno related",
	"gno_ask":                 "gno ask",
	"gno_capture":             "",
	"gno_add_collection":      "gno collection add",
	"gno_sync":                "gno update",
	"gno_remove_collection":   "gno collection remove",
	"gno_tag":                 "gno tag",
	"gno_job_status":          "",
	"gno_list_jobs":           "",
	"gno_update":              "gno note update",
	"gno_delete":              "gno note rm",
	"gno_rename":              "gno note mv",
	"gno_search_package_docs": "gno packages search",
	"gno_describe_package":    "gno packages describe",
	"gno_get_package_doc":     "gno get",
	"gno_package_changes":     "gno packages diff",
	"gno_affected":            "gno affected",
	"gno_diff":                "gno diff",
	"gno_mark_reconciled":     "gno reconcile mark",
	"gno_clear_reconciled":    "gno reconcile clear",
}

// commandGuide says what each top-level command is for, from an
// agent's point of view. Commands for people (set-up, servers) say so.
var commandGuide = map[string]string{
	"search":     "exact words and names (BM25)",
	"vsearch":    "meaning, other words (vectors)",
	"query":      "best results: hybrid, reranked; start here",
	"ask":        "cited answer from the user's local model",
	"get":        "read one document or a line range",
	"multi-get":  "read several documents",
	"ls":         "list indexed documents",
	"status":     "collections, counts, health",
	"tags":       "tags in use",
	"tag":        "add or remove a tag",
	"changes":    "what changed since a generation",
	"links":      "links and backlinks; broken links",
	"path":       "how two notes connect",
	"hubs":       "central notes",
	"orphans":    "notes with no links",
	"related":    "notes near a note",
	"resolve":    "which note a name means",
	"note":       "edit notes safely: update, rm, mv",
	"collection": "list, add, remove, rename collections",
	"context":    "attach guidance to a collection or path",
	"update":     "re-index changed files (BM25)",
	"embed":      "embed the backlog (vectors)",
	"index":      "update, then embed",
	"watch":      "keep collections in sync (for people; long-running)",
	"cleanup":    "drop removed collections' data, vacuum",
	"init":       "create an index (set-up, for people)",
	"setup":      "fetch the runtime and default model (set-up, for people)",
	"models":     "list, pull, remove models (set-up, for people)",
	"doctor":     "diagnose the index, runtime and models",
	"mcp":        "MCP server for agents; `gno mcp install` adds it to a client",
	"skill":      "install this skill into agent clients",
	"serve":      "web app and REST API (for people)",
	"packages":   "dependencies' docs and API at the installed versions; add, search, describe",
	"daemon":     "keep the index synced, embedded and warm (for people; long-running)",
	"token":      "access tokens for sharing an index (for people)",
	"store":      "copy an index between SQLite and PostgreSQL (for people)",
	"affected":   "notes a branch or change touches (governs globs, links)",
	"diff":       "diff of what a note governs, minus what was reconciled",
	"reconcile":  "the reconcile cache: mark files reconciled, clear a cursor",
}

// description is the skill's front matter description: what clients
// show and match a request against (at most 1,024 characters).
// It stays a plain YAML scalar: no ": ", no " #", one line.
const description = "Search, read and cite the user's own documents indexed by gno (notes, docs, " +
	"Markdown and Obsidian vaults, PDFs, Office files) with keyword, semantic and hybrid search, " +
	"links and backlinks between notes, tags and a change feed. Use when the user asks about their " +
	"notes, documents or knowledge base, wants an answer grounded in and citing their files, or " +
	"wants to find, link, tag or safely edit notes indexed by gno."

// intro, strategy and recipes are the hand-written body of SKILL.md.
const intro = `# gno: search the user's documents

gno indexes folders the user chose (collections) for keyword, semantic
and hybrid search. When an answer may be in the user's own files, search
them instead of guessing, read what you cite, and cite it.

Two ways in:
- **MCP tools** ` + "`gno_*`" + `, when the gno server is connected (` + "`gno mcp install`" + `).
  Prefer them: results are structured.
- **CLI**, from a shell: ` + "`gno <command> --json`" + ` prints JSON; exit codes are
  0 ok, 2 bad input, 3 not found, 4 index busy (retry shortly), 1 other.
`

const strategy = `## Search strategy (retry)

1. Start with ` + "`gno_query`" + ` (CLI ` + "`gno query \"...\"`" + `) in its default mode.
2. Results not relevant? First rephrase: it is free and often works. Use the
   words the documents would use, fewer words, a name or identifier. Try
   ` + "`gno_search`" + ` for exact terms, ` + "`gno_vsearch`" + ` for concepts.
3. Still nothing: retry ` + "`gno_query`" + ` with ` + "`thorough: true`" + ` (` + "`--thorough`" + `):
   query expansion, better recall, slower. ` + "`fast: true`" + ` (` + "`--fast`" + `) only when
   speed matters more than quality.
4. Narrow with ` + "`collection`" + `, ` + "`tagsAny`" + `/` + "`tagsAll`" + ` or ` + "`minScore`" + `; raise ` + "`limit`" + ` (max 100)
   to see more. ` + "`gno_status`" + ` lists the collections.
5. Read ` + "`meta`" + ` in results: it says when vectors or models were missing and
   the search fell back to keywords (then ` + "`gno_search`" + ` wording matters most).
`

const recipes = `## Recipes

**Find a note.** ` + "`gno_query`" + ` with the user's words; if they name a note, ` + "`gno_resolve`" + `
finds it by title, file name or alias (fuzzy for typos). Results carry a URI
(` + "`gno://collection/path`" + `) and a docid (` + "`#abc12345`" + `): keep them.

**Answer with citations.** Search, then ` + "`gno_get`" + ` each document you rely on
(` + "`fromLine`" + `/` + "`lineCount`" + ` for long ones; ` + "`lineNumbers: true`" + ` to cite lines). Answer
from what you read and cite each claim by URI and lines, e.g.
(gno://notes/plans/q3.md:12-18). Say so when the documents do not answer.
` + "`gno_ask`" + ` does this with the user's local model when one is configured.

**Follow links.** ` + "`gno_links`" + ` gives a note's links and backlinks (unresolved ones
too); ` + "`gno_related`" + ` the notes near it; ` + "`gno_find_path`" + ` how two notes connect;
` + "`gno_hubs`" + ` where a vault's structure centres.

**Edit safely** (write tools need ` + "`gno mcp --enable-write`" + `). Only when the user
asks. ` + "`gno_get`" + ` the note first; change it with ` + "`gno_update`" + ` (atomic; the rest of
the file is kept byte for byte); ` + "`gno_rename`" + ` with ` + "`updateLinks: true`" + ` so links to it
stay whole; ` + "`gno_resolve`" + ` names before writing ` + "`[[links]]`" + `; new notes with
` + "`gno_capture`" + `. Never edit indexed files behind gno's back when a tool does it.

**Check what changed.** ` + "`gno_changes`" + ` with the ` + "`since`" + ` generation you saw last
returns documents added, modified and removed, and the current generation:
re-read only those. After editing files yourself, ` + "`gno_sync`" + ` (or ` + "`gno update`" + `).

**Use a dependency of the project.** Before writing code against a library the
project depends on, ask gno about the version installed, not the one you
remember: ` + "`gno_search_package_docs`" + ` (CLI ` + "`gno packages search`" + `) finds the API
item or doc section, each hit naming its package version and symbol (pass
` + "`path`" + `, the file you are editing, so that a project of several languages
answers in that file's);
` + "`gno_describe_package`" + ` with ` + "`symbol`" + ` gives one item's signature, doc and
examples; ` + "`gno_get_package_doc`" + ` reads the README or a section within
` + "`maxTokens`" + `. Before upgrading one, ` + "`gno_package_changes`" + ` (CLI ` + "`gno packages diff`" + `)
with ` + "`to`" + ` lists the API items removed, changed, deprecated and added, and the
changelog entries in between. The project is the client's roots unless you pass ` + "`project`" + `.
`
