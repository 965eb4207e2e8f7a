package web

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/gnosearch/gno/inference/ollama/ollamatest"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// sseEvents reads a server-sent event stream into (event, data) pairs.
func sseEvents(t *testing.T, url string) [][2]string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var out [][2]string
	var name string
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			out = append(out, [2]string{name, strings.TrimPrefix(line, "data: ")})
		}
	}
	return out
}

// TestAskStreams: the answer streams as token events from the stand-in
// Ollama, then a done event with checked citations of real lines.
func TestAskStreams(t *testing.T) {
	llm := ollamatest.New(ollamatest.CitingReply)
	defer llm.Close()
	v := newEnv(t, Options{}, func(c *config.Config) {
		c.Models.Answer = config.Backend{Kind: "ollama", URL: llm.URL, Model: "qwen3:1.7b"}
	})
	evs := sseEvents(t, v.ts.URL+"/api/ask/stream?question=where+do+foxes+live&mode=fast")
	var tokens int
	var done struct {
		Answer    string
		HTML      string
		Citations []struct {
			DocID string
			Lines struct{ Start, End int }
		}
		Meta struct {
			Answered bool
			Dropped  []string
		}
	}
	for _, ev := range evs {
		switch ev[0] {
		case "token":
			tokens++
		case "done":
			if err := json.Unmarshal([]byte(ev[1]), &done); err != nil {
				t.Fatal(err)
			}
		case "error":
			t.Fatalf("error event: %s", ev[1])
		}
	}
	if tokens < 2 || !done.Meta.Answered || len(done.Citations) == 0 || len(done.Meta.Dropped) != 1 {
		t.Fatalf("tokens=%d done=%+v", tokens, done)
	}
	if !strings.Contains(done.HTML, `class="cite"`) || strings.Contains(done.Answer, "#ffffff") {
		t.Fatalf("answer html: %s", done.HTML)
	}
	// Each citation's link opens the cited lines of a real document.
	for _, c := range done.Citations {
		code, body := v.get(t, citeHref(c.DocID, c.Lines.Start, c.Lines.End))
		if code != 200 || !strings.Contains(body, `class="ln hit"`) {
			t.Fatalf("citation %+v: %d", c, code)
		}
	}
}

// TestAskDeadLLM: a dead model gives a clear note and the passages. (It
// asserts no time: on busy cores a fast answer can take seconds; the
// refused connection is answered at once, with no retry to wait for.)
func TestAskDeadLLM(t *testing.T) {
	v := newEnv(t, Options{}, func(c *config.Config) {
		c.Models.Answer = config.Backend{Kind: "ollama", URL: "http://127.0.0.1:1", Model: "m"}
	})
	code, body := v.get(t, "/api/ask?question=foxes&mode=fast")
	validate(t, v.srv, "gno_ask", body)
	if code != 200 || !strings.Contains(body, "did not answer: connection refused") {
		t.Fatalf("%d: %s", code, body)
	}
}

// TestAskStreamInternalErrorLogged: a question failing inside the index
// database streams an "error" event saying only gnoerr.Internal ("see
// the server's log"), and the server's log has the detail with the
// request's method and path.
func TestAskStreamInternalErrorLogged(t *testing.T) {
	llm := ollamatest.New(ollamatest.CitingReply)
	defer llm.Close()
	var logs syncBuffer
	v := newEnv(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, func(c *config.Config) {
		c.Models.Answer = config.Backend{Kind: "ollama", URL: llm.URL, Model: "qwen3:1.7b"}
	})
	dropTable(t, "chunks")
	var errEv string
	for _, ev := range sseEvents(t, v.ts.URL+"/api/ask/stream?question=where+do+foxes+live&mode=fast") {
		if ev[0] == "error" {
			errEv = ev[1]
		}
	}
	if !strings.Contains(errEv, gnoerr.Internal) {
		t.Fatalf("error event %q, want %q", errEv, gnoerr.Internal)
	}
	log := logs.String()
	for _, want := range []string{"request failed", "method=GET", "path=/api/ask/stream", "chunks"} {
		if !strings.Contains(log, want) {
			t.Errorf("server's log lacks %q:\n%s", want, log)
		}
	}
}
