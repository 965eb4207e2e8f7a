// Package corpus generates synthetic Markdown collections for the latency
// and throughput benchmarks: the real datasets are small (a few thousand
// short abstracts), while users index notes folders of 10k–50k files of a
// few kilobytes with front matter, headings, code, lists and links.
//
// Generation is deterministic: the same Options give byte-identical files,
// so runs on different machines index the same bytes. Every document is
// produced from its own random stream, so documents can be generated in
// parallel and one document can be regenerated without the others.
//
// It must not be imported by gno itself (bench is a tool).
package corpus

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// Options choose a corpus.
type Options struct {
	// Docs is the number of documents.
	Docs int
	// Seed picks the corpus; the benchmark uses a fixed seed.
	Seed uint64
	// MeanBytes is the mean document size (log-normal); 0 means 5,000,
	// or the real corpora's mean with Vocab.
	MeanBytes int
	// Vocab, when set, replaces the fixed synthetic vocabulary and size
	// spread with statistics of real corpora (LoadVocab), and gives a
	// share of documents a paragraph of Chinese.
	Vocab *Vocab
}

func (o Options) mean() float64 {
	switch {
	case o.MeanBytes > 0:
		return float64(o.MeanBytes)
	case o.Vocab != nil:
		return o.Vocab.MeanBytes
	}
	return 5000
}

func (o Options) sigma() float64 {
	if o.Vocab != nil {
		return o.Vocab.Sigma
	}
	return 0.8
}

// Stats describe a written corpus.
type Stats struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
}

// RelPath is document i's path inside the collection. Files are spread over
// two folder levels, like a real notes tree.
func RelPath(i int) string {
	return fmt.Sprintf("area-%02d/topic-%02d/%s.md", i%16, (i/16)%12, docName(i))
}

func docName(i int) string { return fmt.Sprintf("doc-%06d", i) }

// Doc is one generated document.
type Doc struct {
	RelPath string
	Body    []byte
	// Title is the title as written in front matter and the first heading.
	Title string
	// Rare holds a few low-frequency words of the body, which make good
	// known-item queries.
	Rare []string
}

// Document generates document i of the corpus o describes.
func Document(o Options, i int) Doc {
	g := newGen(o, i)
	return g.doc()
}

// Generate writes the corpus into dir (created if missing).
func Generate(ctx context.Context, dir string, o Options) (Stats, error) {
	if o.Docs <= 0 {
		return Stats{}, fmt.Errorf("generate corpus: want a positive document count, got %d", o.Docs)
	}
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan int)
	var (
		mu    sync.Mutex
		st    Stats
		first error
		wg    sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				d := Document(o, i)
				p := filepath.Join(dir, filepath.FromSlash(d.RelPath))
				err := os.MkdirAll(filepath.Dir(p), 0o755)
				if err == nil {
					err = os.WriteFile(p, d.Body, 0o644)
				}
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("generate corpus in %s: %w", dir, err)
				}
				st.Files++
				st.Bytes += int64(len(d.Body))
				mu.Unlock()
			}
		}()
	}
	var err error
feed:
	for i := 0; i < o.Docs; i++ {
		select {
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		case jobs <- i:
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		err = first
	}
	if err != nil {
		return Stats{}, err
	}
	return st, nil
}

// KnownItem is a query written from one document's words, with that
// document as its only relevant answer: a cheap quality signal on
// synthetic corpora, and a fixed query set for latency.
type KnownItem struct {
	ID    string
	Text  string
	DocID string // base name of the target document, without extension
}

// Queries returns n known-item queries for the corpus, deterministically.
func Queries(o Options, n int) []KnownItem {
	r := rand.New(rand.NewPCG(o.Seed^0x9e3779b97f4a7c15, 0xa11ce))
	out := make([]KnownItem, 0, n)
	for q := 0; q < n && o.Docs > 0; q++ {
		i := r.IntN(o.Docs)
		d := Document(o, i)
		words := strings.Fields(strings.ToLower(d.Title))
		r.Shuffle(len(words), func(a, b int) { words[a], words[b] = words[b], words[a] })
		// Two title words and at most one rare body word: specific enough to
		// have one right answer, vague enough that ranking matters.
		take := words[:min(len(words), 2)]
		if len(d.Rare) > 0 && r.IntN(2) == 0 {
			take = append(take, d.Rare[r.IntN(len(d.Rare))])
		}
		out = append(out, KnownItem{
			ID:    fmt.Sprintf("q%04d", q),
			Text:  strings.Join(take, " "),
			DocID: docName(i),
		})
	}
	return out
}

// gen writes one document from its own random stream.
type gen struct {
	o    Options
	i    int
	r    *rand.Rand
	zipf *rand.Zipf
	b    strings.Builder
	rare map[string]bool
	// rareList keeps rare words in order of first use, for determinism.
	rareList []string
}

func newGen(o Options, i int) *gen {
	r := rand.New(rand.NewPCG(o.Seed, uint64(i)))
	return &gen{
		o:    o,
		i:    i,
		r:    r,
		zipf: rand.NewZipf(r, 1.07, 2, uint64(len(vocab)-1)),
		rare: map[string]bool{},
	}
}

// word draws a word with a Zipf distribution over the vocabulary, so term
// statistics look like natural text (few very common words, a long tail).
func (g *gen) word() string {
	words := vocab
	var k int
	if v := g.o.Vocab; v != nil {
		words = v.Words
		k = v.draw(g.r.Float64())
	} else {
		k = int(g.zipf.Uint64())
	}
	w := words[k]
	if k > len(words)/3 && len(g.rareList) < 12 && !g.rare[w] {
		g.rare[w] = true
		g.rareList = append(g.rareList, w)
	}
	return w
}

func (g *gen) words(n int) []string {
	ws := make([]string, n)
	for j := range ws {
		ws[j] = g.word()
	}
	return ws
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (g *gen) title() string {
	ws := make([]string, 3+g.r.IntN(5))
	words, skip := vocab, len(commonWords)
	if g.o.Vocab != nil {
		words, skip = g.o.Vocab.Words, 150
	}
	for j := range ws {
		// Titles use mid-frequency words, like real titles do.
		ws[j] = words[skip+g.r.IntN(len(words)/4)]
	}
	for j := range ws {
		ws[j] = capitalize(ws[j])
	}
	return strings.Join(ws, " ")
}

func (g *gen) link() string {
	t := g.r.IntN(g.o.Docs)
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf("[%s](../../%s)", strings.Join(g.words(1+g.r.IntN(3)), " "), RelPath(t))
	case 1:
		return fmt.Sprintf("[[%s]]", docName(t))
	default:
		return fmt.Sprintf("[%s](https://example.org/%s/%s)", g.word(), g.word(), g.word())
	}
}

func (g *gen) sentence() string {
	n := 6 + g.r.IntN(16)
	ws := g.words(n)
	ws[0] = capitalize(ws[0])
	if g.r.IntN(9) == 0 {
		ws[g.r.IntN(n)] = g.link()
	}
	if g.r.IntN(12) == 0 {
		ws[g.r.IntN(n)] = "`" + g.word() + "_" + g.word() + "`"
	}
	return strings.Join(ws, " ") + "."
}

func (g *gen) paragraph() {
	n := 2 + g.r.IntN(5)
	for j := range n {
		if j > 0 {
			g.b.WriteByte(' ')
		}
		g.b.WriteString(g.sentence())
	}
	g.b.WriteString("\n\n")
}

func (g *gen) list() {
	n := 3 + g.r.IntN(5)
	ordered := g.r.IntN(3) == 0
	for j := range n {
		if ordered {
			fmt.Fprintf(&g.b, "%d. ", j+1)
		} else {
			g.b.WriteString("- ")
		}
		ws := g.words(3 + g.r.IntN(9))
		ws[0] = capitalize(ws[0])
		g.b.WriteString(strings.Join(ws, " "))
		g.b.WriteByte('\n')
		if !ordered && g.r.IntN(5) == 0 {
			g.b.WriteString("  - ")
			g.b.WriteString(strings.Join(g.words(2+g.r.IntN(5)), " "))
			g.b.WriteByte('\n')
		}
	}
	g.b.WriteByte('\n')
}

var langs = []string{"go", "python", "bash", "json", "yaml", "sql"}

func (g *gen) code() {
	lang := langs[g.r.IntN(len(langs))]
	fmt.Fprintf(&g.b, "```%s\n", lang)
	n := 3 + g.r.IntN(14)
	indent := 0
	for range n {
		a, b, c := g.word(), g.word(), g.word()
		switch lang {
		case "go":
			switch g.r.IntN(4) {
			case 0:
				fmt.Fprintf(&g.b, "%sfunc %s%s(%s int) error {\n", strings.Repeat("\t", indent), a, capitalize(b), c)
				indent = min(indent+1, 3)
			case 1:
				if indent > 0 {
					indent--
					fmt.Fprintf(&g.b, "%s}\n", strings.Repeat("\t", indent))
					continue
				}
				fallthrough
			default:
				fmt.Fprintf(&g.b, "%s%s := %s.%s(%q)\n", strings.Repeat("\t", indent), a, b, capitalize(c), g.word())
			}
		case "python":
			fmt.Fprintf(&g.b, "%s = %s.%s(%q)  # %s\n", a, b, c, g.word(), g.word())
		case "bash":
			fmt.Fprintf(&g.b, "%s --%s %s | grep %s\n", a, b, c, g.word())
		case "json":
			fmt.Fprintf(&g.b, "{\"%s\": \"%s\", \"%s\": %d}\n", a, b, c, g.r.IntN(1000))
		case "yaml":
			fmt.Fprintf(&g.b, "%s:\n  %s: %s\n", a, b, c)
		case "sql":
			fmt.Fprintf(&g.b, "SELECT %s, %s FROM %s WHERE id = %d;\n", a, b, c, g.r.IntN(1000))
		}
	}
	for ; lang == "go" && indent > 0; indent-- {
		fmt.Fprintf(&g.b, "%s}\n", strings.Repeat("\t", indent-1))
	}
	g.b.WriteString("```\n\n")
}

func (g *gen) table() {
	cols := 2 + g.r.IntN(3)
	head := g.words(cols)
	g.b.WriteString("| " + strings.Join(head, " | ") + " |\n")
	g.b.WriteString("|" + strings.Repeat(" --- |", cols) + "\n")
	for range 2 + g.r.IntN(4) {
		g.b.WriteString("| " + strings.Join(g.words(cols), " | ") + " |\n")
	}
	g.b.WriteByte('\n')
}

func (g *gen) quote() {
	g.b.WriteString("> ")
	g.b.WriteString(g.sentence())
	g.b.WriteString("\n\n")
}

// size draws a target length from a log-normal distribution (σ = 0.8, or
// the real corpora's): most notes are short, a few are long, the mean is
// MeanBytes.
func (g *gen) size() int {
	sigma := g.o.sigma()
	mu := math.Log(g.o.mean()) - sigma*sigma/2
	s := math.Exp(mu + sigma*g.r.NormFloat64())
	return int(min(max(s, 300), 20*g.o.mean()))
}

var tagNames = []string{
	"project", "meeting", "idea", "reference", "howto", "draft", "review",
	"research", "todo", "journal", "design", "ops", "incident", "release",
	"reading", "recipe", "travel", "finance", "health", "learning",
}

func (g *gen) doc() Doc {
	target := g.size()
	title := g.title()
	g.b.WriteString("---\n")
	fmt.Fprintf(&g.b, "title: %s\n", title)
	ntags := 1 + g.r.IntN(4)
	tags := make([]string, 0, ntags)
	for range ntags {
		tags = append(tags, tagNames[g.r.IntN(len(tagNames))])
	}
	fmt.Fprintf(&g.b, "tags: [%s]\n", strings.Join(tags, ", "))
	fmt.Fprintf(&g.b, "date: 20%02d-%02d-%02d\n", 18+g.r.IntN(8), 1+g.r.IntN(12), 1+g.r.IntN(28))
	g.b.WriteString("---\n\n")
	fmt.Fprintf(&g.b, "# %s\n\n", title)
	g.paragraph()
	if v := g.o.Vocab; v != nil && g.r.Float64() < v.CJKShare {
		for j := range 2 + g.r.IntN(4) {
			if j > 0 {
				g.b.WriteByte(' ')
			}
			g.b.WriteString(v.CJK[g.r.IntN(len(v.CJK))])
		}
		g.b.WriteString("\n\n")
	}
	for g.b.Len() < target {
		level := "##"
		if g.r.IntN(3) == 0 {
			level = "###"
		}
		ws := g.words(2 + g.r.IntN(4))
		ws[0] = capitalize(ws[0])
		fmt.Fprintf(&g.b, "%s %s\n\n", level, strings.Join(ws, " "))
		for range 1 + g.r.IntN(3) {
			switch k := g.r.IntN(10); {
			case k < 5:
				g.paragraph()
			case k < 7:
				g.list()
			case k < 8:
				g.code()
			case k < 9:
				g.table()
			default:
				g.quote()
			}
			if g.b.Len() >= target {
				break
			}
		}
	}
	return Doc{RelPath: RelPath(g.i), Body: []byte(g.b.String()), Title: title, Rare: g.rareList}
}
