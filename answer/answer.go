// Package answer is `gno ask`: it retrieves passages with the engine's
// hybrid pipeline, has a chat model answer from them alone, and checks
// that every citation in the answer points at a passage it was given. It
// sits above retrieval (beside server) and owns the prompt, the citation
// check and the answer's shape; it must not search or open models itself
// (the engine and its Models part do).
//
// Passages are numbered and tagged #docid:start-end in the prompt; the
// model cites them as [#docid:start-end]. Citations to unknown documents,
// or to lines outside the passages, are dropped from the answer and listed
// in meta, so a citation a reader follows always lands on the text the
// model saw. With no chat model configured, or one that fails, the answer
// is the top passages and meta says why.
package answer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// Default budgets for a whole answer (retrieval plus writing) per mode.
// The model must start writing within a third of it, so a dead or stuck
// server is reported well before the end.
var defaultBudgets = map[string]time.Duration{
	"fast":     20 * time.Second,
	"default":  60 * time.Second,
	"thorough": 120 * time.Second,
}

// maxPassageBytes bounds one passage in the prompt.
const maxPassageBytes = 2000

// Request is one question.
type Request struct {
	Question   string
	Collection string
	TagsAny    []string
	TagsAll    []string
	// Mode is "fast", "default" (or empty) or "thorough": the retrieval
	// mode and the answer budget.
	Mode string
	// Passages is how many passages the model gets (default 6, at most 20).
	Passages int
	// Budget overrides the mode's budget.
	Budget time.Duration
	// Chatter overrides the configured model (tests, callers that cache
	// one); nil uses models.answer from the config.
	Chatter inference.Chatter
}

// Passage is one retrieved text the model may cite.
type Passage struct {
	N     int                 `json:"n"`
	DocID string              `json:"docid"`
	URI   string              `json:"uri"`
	Title string              `json:"title,omitempty"`
	Lines retrieval.LineRange `json:"lines"`
	Score float64             `json:"score"`
	Text  string              `json:"text"`
}

// Tag is how the passage is named in the prompt and cited: #docid:start-end.
func (p Passage) Tag() string {
	return fmt.Sprintf("%s:%d-%d", p.DocID, p.Lines.Start, p.Lines.End)
}

// Citation is one checked citation of the answer.
type Citation struct {
	DocID   string              `json:"docid"`
	URI     string              `json:"uri"`
	Lines   retrieval.LineRange `json:"lines"`
	Passage int                 `json:"passage"`
}

// Meta says how the answer was made.
type Meta struct {
	Mode string `json:"mode"`
	// Model is the chat model, empty when none answered.
	Model string `json:"model,omitempty"`
	// Answered is false when the answer is only the passages.
	Answered bool `json:"answered"`
	// Dropped lists citations removed because they matched no passage.
	Dropped []string `json:"dropped,omitempty"`
	// Uncited counts answer sentences without a citation.
	Uncited int      `json:"uncited"`
	Notes   []string `json:"notes,omitempty"`
	// Timings in milliseconds: retrieve, firstToken, total.
	Timings map[string]float64 `json:"timings"`
	// Search is the retrieval's own meta.
	Search retrieval.Meta `json:"search"`
}

// Answer is the result of Ask.
type Answer struct {
	Question  string     `json:"question"`
	Answer    string     `json:"answer"`
	Citations []Citation `json:"citations"`
	Passages  []Passage  `json:"passages"`
	Meta      Meta       `json:"meta"`
}

// Budget is the time a mode's answer may take.
func Budget(mode string) time.Duration {
	if d, ok := defaultBudgets[mode]; ok {
		return d
	}
	return defaultBudgets["default"]
}

// errFirstToken marks a model that wrote nothing in time.
var errFirstToken = errors.New("no first token")

// Ask answers req.Question from the index. onToken (may be nil) receives
// the raw reply as it streams; the returned Answer holds the checked text.
// Only retrieval failures are errors: a missing or failing chat model
// gives the passages and a note.
func Ask(ctx context.Context, e *retrieval.Engine, req Request, onToken func(string)) (*Answer, error) {
	start := time.Now()
	q := strings.TrimSpace(req.Question)
	if q == "" {
		return nil, gnoerr.New(gnoerr.InvalidInput, "empty question")
	}
	mode := req.Mode
	switch mode {
	case "":
		mode = "default"
	case "fast", "default", "thorough":
	default:
		return nil, gnoerr.New(gnoerr.InvalidInput, "mode %q: want fast, default or thorough", req.Mode)
	}
	n := req.Passages
	if n <= 0 {
		n = 6
	}
	n = min(n, 20)
	budget := req.Budget
	if budget <= 0 {
		budget = Budget(mode)
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()

	res, err := e.Query(ctx, retrieval.QueryRequest{
		SearchRequest: retrieval.SearchRequest{Query: q, Collection: req.Collection, Limit: n, TagsAny: req.TagsAny, TagsAll: req.TagsAll},
		Fast:          mode == "fast", Thorough: mode == "thorough",
	})
	if err != nil {
		return nil, err
	}
	ans := &Answer{Question: q, Citations: []Citation{}, Meta: Meta{Mode: mode, Search: res.Meta, Timings: map[string]float64{}}}
	ans.Passages = passages(ctx, e, res.Results)
	ans.Meta.Timings["retrieve"] = ms(time.Since(start))

	ch := req.Chatter
	if ch == nil {
		ch, err = e.Models().Chatter()
		if err != nil {
			ans.Meta.Notes = append(ans.Meta.Notes, "no answer: "+err.Error()+"; showing the top passages")
			ans.Answer = passageList(ans.Passages)
			return finish(ans, start), nil
		}
		if c, ok := ch.(interface{ Close() error }); ok {
			defer c.Close()
		}
	}
	switch {
	case ch == nil:
		ans.Meta.Notes = append(ans.Meta.Notes, "no answer model configured (set models.answer in the config: kind ollama or openai, url, model); showing the top passages")
		ans.Answer = passageList(ans.Passages)
		return finish(ans, start), nil
	case len(ans.Passages) == 0:
		ans.Meta.Notes = append(ans.Meta.Notes, "nothing in the index matches the question, so there is nothing to answer from")
		return finish(ans, start), nil
	}

	raw, err := write(ctx, ch, q, ans, budget/3, start, onToken)
	ans.Meta.Model = ch.ModelID()
	if err != nil {
		ans.Meta.Notes = append(ans.Meta.Notes, failure(ch.ModelID(), err, budget, raw != ""))
		if raw == "" {
			ans.Answer = passageList(ans.Passages)
			return finish(ans, start), nil
		}
	}
	ans.Meta.Answered = strings.TrimSpace(raw) != ""
	ans.Answer, ans.Citations, ans.Meta.Dropped = Check(raw, ans.Passages)
	ans.Meta.Uncited = uncited(ans.Answer)
	if !ans.Meta.Answered {
		ans.Answer = passageList(ans.Passages)
	}
	return finish(ans, start), nil
}

// write streams the model's answer, failing with errFirstToken when
// nothing arrives within first.
func write(ctx context.Context, ch inference.Chatter, q string, ans *Answer, first time.Duration, start time.Time, onToken func(string)) (string, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(first, func() { cancel(errFirstToken) })
	defer timer.Stop()
	var b strings.Builder
	err := ch.Chat(ctx, Prompt(q, ans.Passages), func(tok string) error {
		if b.Len() == 0 {
			timer.Stop()
			ans.Meta.Timings["firstToken"] = ms(time.Since(start))
		}
		b.WriteString(tok)
		if onToken != nil {
			onToken(tok)
		}
		return nil
	})
	if err != nil && errors.Is(context.Cause(ctx), errFirstToken) {
		err = fmt.Errorf("%w after %s", errFirstToken, first.Round(time.Millisecond))
	}
	return b.String(), err
}

// failure explains a chat failure in one sentence.
func failure(model string, err error, budget time.Duration, partial bool) string {
	var r interface{ Reason() string }
	reason := err.Error()
	switch {
	case errors.Is(err, errFirstToken):
		reason = "it wrote nothing within " + strings.TrimPrefix(reason, errFirstToken.Error()+" after ") + " (slow or stuck server)"
	case errors.Is(err, context.DeadlineExceeded):
		reason = "the answer budget of " + budget.String() + " ran out"
	case errors.As(err, &r):
		reason = r.Reason()
	}
	if partial {
		return fmt.Sprintf("the answer model %s stopped: %s; the answer is cut short", model, reason)
	}
	return fmt.Sprintf("the answer model %s did not answer: %s; showing the top passages", model, reason)
}

func finish(a *Answer, start time.Time) *Answer {
	a.Meta.Timings["total"] = ms(time.Since(start))
	if a.Passages == nil {
		a.Passages = []Passage{}
	}
	return a
}

// passages reads each result's best chunk as a numbered passage.
func passages(ctx context.Context, e *retrieval.Engine, rs []retrieval.Result) []Passage {
	out := []Passage{}
	for _, r := range rs {
		lines := r.Lines
		if lines.Start < 1 {
			lines.Start = 1
		}
		req := retrieval.GetRequest{Ref: r.DocID, FromLine: lines.Start}
		if lines.End >= lines.Start {
			req.LineCount = lines.End - lines.Start + 1
		}
		d, err := e.Get(ctx, req)
		if err != nil {
			continue
		}
		text := d.Content
		end := d.ReturnedLines.End
		if len(text) > maxPassageBytes {
			// Cut at a line boundary so the line range stays exact.
			cut := strings.LastIndexByte(text[:maxPassageBytes], '\n')
			if cut > 0 {
				end = d.ReturnedLines.Start + strings.Count(text[:cut], "\n")
				text = text[:cut]
			}
		}
		start := d.ReturnedLines.Start
		if start == 0 {
			start, end = 1, d.TotalLines
		}
		out = append(out, Passage{N: len(out) + 1, DocID: r.DocID, URI: r.URI, Title: r.Title,
			Lines: retrieval.LineRange{Start: start, End: end}, Score: r.Score, Text: text})
	}
	return out
}

// passageList is the fallback answer: the passages, cited.
func passageList(ps []Passage) string {
	if len(ps) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range ps {
		title := p.Title
		if title == "" {
			title = p.URI
		}
		fmt.Fprintf(&b, "%d. %s [%s]\n   %s\n", p.N, title, p.Tag(), oneLine(p.Text, 240))
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
