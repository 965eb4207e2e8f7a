package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/inference/ollama/ollamatest"
)

// askFixture indexes two notes and returns the CLI and the config file.
func askFixture(t *testing.T) (cli, string) {
	c := newCLI(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "foxes.md"), []byte("# Foxes\n\nFoxes live in dens dug into hillsides.\nA red fox hunts at dusk.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "tea.md"), []byte("# Tea\n\nGreen tea is steamed.\n"), 0o644)
	c.ok("init")
	c.ok("collection", "add", root, "--name", "notes")
	c.ok("update")
	var st struct {
		ConfigPath string `json:"configPath"`
	}
	if err := json.Unmarshal([]byte(c.ok("status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	return c, st.ConfigPath
}

// setAnswerModel points models.answer at url.
func setAnswerModel(t *testing.T, cfg, url string) {
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if i := strings.Index(s, "  answer:\n"); i >= 0 { // replace an earlier entry
		rest := strings.SplitAfterN(s[i:], "\n", 5)
		s = s[:i] + rest[len(rest)-1]
	}
	entry := "  answer:\n    kind: ollama\n    url: " + url + "\n    model: qwen3:1.7b\n"
	if strings.Contains(s, "\nmodels:\n") {
		s = strings.Replace(s, "\nmodels:\n", "\nmodels:\n"+entry, 1)
	} else {
		s += "models:\n" + entry
	}
	if err := os.WriteFile(cfg, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAskCLI(t *testing.T) {
	c, cfg := askFixture(t)
	// No model: the passages, and a note saying why.
	out, errOut, code := c.run("ask", "where do foxes live", "--fast")
	if code != 0 || !strings.Contains(out, "Foxes") || !strings.Contains(errOut, "no answer model configured") {
		t.Fatalf("no model: %d %q %q", code, out, errOut)
	}
	llm := ollamatest.New(ollamatest.CitingReply)
	defer llm.Close()
	setAnswerModel(t, cfg, llm.URL)
	out = c.ok("ask", "where do foxes live", "--fast", "--json")
	var ans struct {
		Answer    string
		Citations []struct {
			DocID string
			Lines struct{ Start, End int }
		}
		Meta struct{ Answered bool }
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatal(err)
	}
	if !ans.Meta.Answered || len(ans.Citations) == 0 || strings.Contains(ans.Answer, "#ffffff") {
		t.Fatalf("answer: %s", out)
	}
	// The cited lines are real lines of the cited document.
	for _, ct := range ans.Citations {
		got := c.ok("get", ct.DocID, "--from", itoa(ct.Lines.Start), "-l", itoa(ct.Lines.End-ct.Lines.Start+1))
		if strings.TrimSpace(got) == "" {
			t.Fatalf("citation %+v reads nothing", ct)
		}
	}
	out = c.ok("ask", "where do foxes live", "--fast")
	if !strings.Contains(out, "Sources:") {
		t.Fatalf("text answer: %s", out)
	}
	// A dead model: a clear note and the passages. "connection refused"
	// (not a deadline) shows the model was given up at once, not waited
	// for; a wall-clock bound would only measure the machine's load.
	setAnswerModel(t, cfg, "http://127.0.0.1:1")
	out, errOut, code = c.run("ask", "foxes", "--fast")
	if code != 0 || !strings.Contains(errOut, "connection refused") || !strings.Contains(out, "Foxes") {
		t.Fatalf("dead model: %d %q %q", code, out, errOut)
	}
}

func itoa(n int) string { return jsonNum(n) }

func jsonNum(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestServeCLI starts `gno serve` on a free
// port and reads a page and the API.
func TestServeCLI(t *testing.T) {
	c, _ := askFixture(t)
	cmd := exec.Command(gnoBin, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(c.env(), "GNO_MODELS_DIR="+filepath.Join(c.home, "no-models"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "gno serve: http://127.0.0.1:") {
		t.Fatalf("banner %q: %v", line, err)
	}
	base := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "gno serve: "), "/")
	for _, p := range []string{"/?q=foxes", "/api/search?q=foxes"} {
		res, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), "foxes.md") {
			t.Fatalf("%s: %d %s", p, res.StatusCode, body)
		}
	}
	if _, errOut, code := c.run("serve", "--addr", "0.0.0.0:0"); code == 0 || !strings.Contains(errOut, "--listen-any") {
		t.Fatalf("non-loopback without --listen-any: %d %s", code, errOut)
	}
}
