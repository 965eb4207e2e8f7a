package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/answer"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/mark3labs/mcp-go/mcp"
)

const askInputSchema = `{
  "type": "object",
  "properties": {
    "question": {"type": "string", "description": "The question, in plain words"},
    "collection": {"type": "string", "description": "Optional collection to answer from"},
    "tagsAny": {"type": "array", "items": {"type": "string"}, "description": "Filter: documents with ANY of these tags (OR)"},
    "tagsAll": {"type": "array", "items": {"type": "string"}, "description": "Filter: documents with ALL of these tags (AND)"},
    "mode": {"type": "string", "enum": ["fast", "default", "thorough"], "description": "Retrieval mode and time budget", "default": "default"},
    "passages": {"type": "integer", "description": "How many passages the model reads (1-20)", "default": 6, "minimum": 1, "maximum": 20}
  },
  "required": ["question"]
}`

var askOutput = outputSchema("ask@1.0", `"question": {"type": "string"}, "answer": {"type": "string"},
  "citations": {"type": "array", "items": {"type": "object", "required": ["docid", "uri", "lines", "passage"], "properties": {
    "docid": {"type": "string"}, "uri": {"type": "string"}, "lines": `+lineRangeSchema+`, "passage": {"type": "integer"}}}},
  "passages": {"type": "array", "items": {"type": "object", "required": ["n", "docid", "uri", "lines", "text"], "properties": {
    "n": {"type": "integer"}, "docid": {"type": "string"}, "uri": {"type": "string"}, "title": {"type": "string"},
    "lines": `+lineRangeSchema+`, "score": {"type": "number"}, "text": {"type": "string"}}}},
  "meta": {"type": "object", "required": ["mode", "answered"], "properties": {
    "mode": {"type": "string"}, "model": {"type": "string"}, "answered": {"type": "boolean"}, "dropped": `+stringsSchema+`,
    "uncited": {"type": "integer"}, "notes": `+stringsSchema+`, "timings": {"type": "object"}, "search": {"type": "object"}}}`,
	"question", "answer", "citations", "passages", "meta")

func askTool() toolDef {
	return toolDef{name: "gno_ask", title: "Answer a question", input: askInputSchema, output: askOutput,
		desc:     "Answer a question from the user's documents: hybrid retrieval, then a local LLM (models.answer: Ollama or OpenAI-compatible) writes an answer citing every claim as [#docid:start-end]; citations are checked against the passages. Without an answer model it returns the top passages.",
		readOnly: true, run: (*Server).ask}
}

func (s *Server) ask(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	ans, err := s.answer(ctx, a, nil)
	if err != nil {
		return nil, "", err
	}
	return ans, FormatAnswer(ans), nil
}

// answer runs gno_ask with arguments its schema has checked.
func (s *Server) answer(ctx context.Context, a args, onToken func(string)) (*answer.Answer, error) {
	q := a.str("question")
	if len(q) > retrieval.MaxQueryBytes {
		return nil, gnoerr.New(gnoerr.InvalidInput, "question is too long (%d bytes; at most %d)", len(q), retrieval.MaxQueryBytes)
	}
	e, err := s.engine(ctx)
	if err != nil {
		return nil, err
	}
	return answer.Ask(ctx, e, askRequest(a), onToken)
}

// askRequest reads gno_ask arguments (as validated by its schema).
func askRequest(a map[string]any) answer.Request {
	ar := args(a)
	return answer.Request{Question: ar.str("question"), Collection: ar.str("collection"), TagsAny: ar.strs("tagsAny"),
		TagsAll: ar.strs("tagsAll"), Mode: ar.str("mode"), Passages: ar.int("passages", 0)}
}

// FormatAnswer is the human text of an answer: the text, its sources and
// the notes.
func FormatAnswer(a *answer.Answer) string {
	var b strings.Builder
	b.WriteString(a.Answer)
	if len(a.Citations) > 0 {
		b.WriteString("\n\nSources:")
		for _, c := range a.Citations {
			fmt.Fprintf(&b, "\n- %s:%d-%d %s", c.DocID, c.Lines.Start, c.Lines.End, c.URI)
		}
	}
	for _, n := range a.Meta.Notes {
		fmt.Fprintf(&b, "\n\nNote: %s", n)
	}
	return strings.TrimSpace(b.String())
}
