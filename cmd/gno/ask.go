package main

import (
	"fmt"
	"strings"

	"github.com/gnosearch/gno/answer"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newAskCmd) }

// newAskCmd is `gno ask`: an answer from the index with citations.
func newAskCmd(a *app) *cobra.Command {
	var req answer.Request
	var fast, thorough bool
	cmd := &cobra.Command{
		Use:   "ask QUESTION",
		Short: "Answer a question from your documents, citing them (needs models.answer)",
		Long: `Answer a question from the index: hybrid retrieval finds passages, then a
chat model (models.answer in the config: Ollama or any OpenAI-compatible
server) answers from them alone, citing every claim as [#docid:start-end].
Citations are checked against the passages; ones that match none are
dropped. Without an answer model, gno ask prints the top passages.

  models:
    answer: {kind: ollama, url: http://127.0.0.1:11434, model: qwen3:4b}

The answer streams on a terminal. Budgets: --fast 20s, default 60s,
--thorough 120s; the model must start writing within a third of it.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Question = strings.Join(args, " ")
			switch {
			case fast && thorough:
				return fmt.Errorf("--fast and --thorough exclude each other")
			case fast:
				req.Mode = "fast"
			case thorough:
				req.Mode = "thorough"
			}
			e, err := a.engine(cmd.Context())
			if err != nil {
				return err
			}
			stream := a.tty() && !a.json
			var onToken func(string)
			if stream {
				onToken = func(s string) { fmt.Fprint(a.stdout, s) }
			}
			ans, err := answer.Ask(cmd.Context(), e, req, onToken)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(ans)
			}
			printAnswer(a, ans, stream && ans.Meta.Answered)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&req.Collection, "collection", "c", "", "answer from this collection only")
	f.StringSliceVar(&req.TagsAny, "tags-any", nil, "only documents with any of these tags")
	f.StringSliceVar(&req.TagsAll, "tags-all", nil, "only documents with all of these tags")
	f.IntVarP(&req.Passages, "passages", "n", 6, "passages the model reads (1-20)")
	f.BoolVar(&fast, "fast", false, "fast retrieval, 20 s budget")
	f.BoolVar(&thorough, "thorough", false, "thorough retrieval (query expansion), 120 s budget")
	return cmd
}

// printAnswer prints the checked answer (unless it was already streamed),
// its sources and notes.
func printAnswer(a *app, ans *answer.Answer, streamed bool) {
	w := a.stdout
	if streamed {
		fmt.Fprintln(w)
		if len(ans.Meta.Dropped) > 0 {
			fmt.Fprintf(w, "\n(checked: dropped %d citation(s) that matched no passage: %s)\n", len(ans.Meta.Dropped), strings.Join(ans.Meta.Dropped, " "))
		}
	} else {
		fmt.Fprintln(w, ans.Answer)
	}
	if len(ans.Citations) > 0 {
		fmt.Fprintln(w, "\nSources:")
		for _, c := range ans.Citations {
			fmt.Fprintf(w, "  %s:%d-%d  %s\n", c.DocID, c.Lines.Start, c.Lines.End, c.URI)
		}
	}
	for _, n := range ans.Meta.Notes {
		fmt.Fprintf(a.stderr, "Note: %s\n", n)
	}
}
