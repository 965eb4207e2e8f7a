package answer

import (
	"fmt"
	"strings"

	"github.com/gnosearch/gno/inference"
)

// systemPrompt tells the model to answer from the passages alone and cite
// them in the one form Check understands.
const systemPrompt = `You answer questions using ONLY the numbered passages from the user's own documents given below.
Rules:
- Every sentence that states a fact must end with at least one citation in square brackets, copied exactly from the passage header, e.g. [#a1b2c3:12-18]. Cite several as [#a1b2c3:12-18][#d4e5f6:3-9].
- You may cite a narrower line range inside a passage, never lines outside it.
- If the passages do not contain the answer, say so plainly and do not guess.
- Be concise. Answer in the language of the question.`

// Prompt is the chat sent to the model: the rules, then the passages and
// the question.
func Prompt(question string, ps []Passage) []inference.ChatMessage {
	var b strings.Builder
	b.WriteString("Passages:\n\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "[%d] [%s] %s\n", p.N, p.Tag(), p.URI)
		if p.Title != "" {
			fmt.Fprintf(&b, "Title: %s\n", p.Title)
		}
		b.WriteString(strings.TrimSpace(p.Text))
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "Question: %s", question)
	return []inference.ChatMessage{{Role: "system", Content: systemPrompt}, {Role: "user", Content: b.String()}}
}
