package answer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/inference/ollama"
	"github.com/gnosearch/gno/inference/ollama/ollamatest"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

var docs = map[string]string{
	"foxes.md":   "# Foxes\n\nFoxes live in dens dug into hillsides.\nA red fox hunts at dusk and at dawn.\nFoxes eat mice, rabbits and berries.\n",
	"rabbits.md": "# Rabbits\n\nRabbits live in warrens.\nThey are hunted by foxes and hawks.\n",
	"tea.md":     "# Tea\n\nGreen tea is steamed; black tea is oxidised.\n",
}

// newEngine indexes docs into a temp GNO_HOME.
func newEngine(t *testing.T) *retrieval.Engine {
	t.Helper()
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	for rel, body := range docs {
		p := filepath.Join(notes, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pgtest.Home(t, filepath.Join(dir, "home"))
	ctx := context.Background()
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "notes", Path: notes})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Update(ctx, retrieval.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestAskCitesRealLines(t *testing.T) {
	e := newEngine(t)
	srv := ollamatest.New(ollamatest.CitingReply)
	defer srv.Close()
	ch, err := ollama.NewChatter(ollama.ChatConfig{URL: srv.URL, Model: "qwen3:1.7b"})
	if err != nil {
		t.Fatal(err)
	}
	var streamed strings.Builder
	a, err := Ask(context.Background(), e, Request{Question: "where do foxes live", Mode: "fast", Chatter: ch}, func(s string) { streamed.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	if !a.Meta.Answered || a.Meta.Model != "ollama:qwen3:1.7b" {
		t.Fatalf("not answered: %+v", a.Meta)
	}
	if !strings.Contains(streamed.String(), "[#ffffff:1-2]") {
		t.Fatalf("stream should carry the raw reply, got %q", streamed.String())
	}
	if strings.Contains(a.Answer, "#ffffff") || len(a.Meta.Dropped) != 1 {
		t.Fatalf("invented citation kept: %q dropped=%v", a.Answer, a.Meta.Dropped)
	}
	if len(a.Citations) == 0 {
		t.Fatal("no citations")
	}
	// Every citation points at real lines of a real document.
	for _, c := range a.Citations {
		d, err := e.Get(context.Background(), retrieval.GetRequest{Ref: c.DocID, FromLine: c.Lines.Start, LineCount: c.Lines.End - c.Lines.Start + 1})
		if err != nil {
			t.Fatalf("citation %+v: %v", c, err)
		}
		if d.ReturnedLines != c.Lines {
			t.Fatalf("citation %+v: document has lines %+v", c, d.ReturnedLines)
		}
		if c.Passage < 1 || c.Passage > len(a.Passages) || !strings.Contains(a.Passages[c.Passage-1].Text, strings.Split(d.Content, "\n")[0]) {
			t.Fatalf("citation %+v does not match its passage", c)
		}
	}
	if a.Meta.Timings["firstToken"] <= 0 {
		t.Fatalf("no first-token time: %v", a.Meta.Timings)
	}
	// The model was sent the passages with their tags.
	chats := srv.Chats()
	if len(chats) != 1 || !strings.Contains(chats[0].Messages[1].Content, a.Passages[0].Tag()) {
		t.Fatalf("prompt lacks passage tags: %+v", chats)
	}
}

func TestAskWithoutModelGivesPassages(t *testing.T) {
	e := newEngine(t)
	a, err := Ask(context.Background(), e, Request{Question: "green tea", Mode: "fast"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Meta.Answered || len(a.Passages) == 0 || !strings.Contains(a.Meta.Notes[0], "no answer model configured") {
		t.Fatalf("want passages and a note, got %+v", a)
	}
	if !strings.Contains(a.Answer, a.Passages[0].Tag()) {
		t.Fatalf("fallback answer should cite the passages: %q", a.Answer)
	}
}

func TestAskDeadOrSlowModel(t *testing.T) {
	e := newEngine(t)
	for _, tc := range []struct {
		name, url, want string
		stall           time.Duration
	}{
		{"dead", "http://127.0.0.1:1", "connection refused", 0},
		{"slow", "", "wrote nothing within", 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.url
			if url == "" {
				srv := ollamatest.New(ollamatest.CitingReply)
				defer srv.Close()
				srv.Stall(tc.stall)
				url = srv.URL
			}
			ch, err := ollama.NewChatter(ollama.ChatConfig{URL: url, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			budget := 1500 * time.Millisecond
			start := time.Now()
			a, err := Ask(context.Background(), e, Request{Question: "foxes", Mode: "fast", Chatter: ch, Budget: budget}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el > budget+500*time.Millisecond {
				t.Fatalf("took %v, budget %v", el, budget)
			}
			if a.Meta.Answered || len(a.Meta.Notes) == 0 || !strings.Contains(a.Meta.Notes[0], tc.want) || len(a.Passages) == 0 {
				t.Fatalf("want a clear note with %q and passages, got %+v", tc.want, a.Meta)
			}
			t.Log(a.Meta.Notes[0])
		})
	}
}

func TestCheck(t *testing.T) {
	ps := []Passage{{N: 1, DocID: "#abc123", URI: "gno://n/a.md", Lines: retrieval.LineRange{Start: 3, End: 8}},
		{N: 2, DocID: "#def456", URI: "gno://n/b.md", Lines: retrieval.LineRange{Start: 1, End: 4}}}
	for _, tc := range []struct{ in, want string }{
		{"A [#abc123:3-8].", "A [#abc123:3-8]."},
		{"A [#abc123:1-5].", "A [#abc123:3-5]."}, // clamped into the passage
		{"A [#abc123:20-30].", "A."},             // outside: dropped
		{"A [#abc123:4-5; #def456:2].", "A [#abc123:4-5][#def456:2-2]."},
		{"A [2].", "A [#def456:1-4]."}, // passage number
		{"A [#zzzz99:1-2] and [7].", "A  and."},
		{"x[0] y", "x y"}, // passage 0 does not exist       // unknown doc, bad number
	} {
		got, _, _ := Check(tc.in, ps)
		if got != tc.want {
			t.Errorf("Check(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
