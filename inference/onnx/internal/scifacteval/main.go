// Command scifacteval measures each installed embedding model on BEIR
// SciFact (train split): dense-retrieval nDCG@10 and Recall@100 over whole
// abstracts, documents embedded per second, and one-query embedding
// latency. It is how gno's default embedder was chosen (MODELS.md).
//
//	go run ./inference/onnx/internal/scifacteval -data ../shared/eval/scifact \
//	    -models bge-small-en-v1.5-q,bge-small-en-v1.5 -threads 2
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/inference/onnx"
	"github.com/gnosearch/gno/models"
)

type doc struct{ id, text string }

func main() {
	data := flag.String("data", "../shared/eval/scifact", "SciFact folder (corpus.jsonl, queries.jsonl, qrels/train.tsv)")
	names := flag.String("models", "bge-small-en-v1.5-q", "comma-separated installed embedders")
	threads := flag.Int("threads", 0, "intra-op threads (0: all cores)")
	maxDocs := flag.Int("subset", 0, "use N documents: every judged-relevant one, then the corpus in order (0: all)")
	maxTokens := flag.Int("max-tokens", 0, "truncate documents to this many tokens (0: the model's maximum)")
	out := flag.String("out", "", "append one JSON line per model to this file")
	flag.Parse()
	if err := run(*data, strings.Split(*names, ","), *threads, *maxDocs, *maxTokens, *out); err != nil {
		fmt.Fprintln(os.Stderr, "scifacteval:", err)
		os.Exit(1)
	}
}

func run(dir string, names []string, threads, maxDocs, maxTokens int, out string) error {
	docs, err := readCorpus(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		return err
	}
	queries, err := readQueries(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return err
	}
	qrels, err := readQrels(filepath.Join(dir, "qrels", "train.tsv"))
	if err != nil {
		return err
	}
	if maxDocs > 0 && maxDocs < len(docs) {
		docs = subset(docs, qrels, maxDocs)
	}
	ctx := context.Background()
	for _, name := range names {
		res, err := evalModel(ctx, name, threads, maxTokens, docs, queries, qrels)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b, _ := json.Marshal(res)
		fmt.Println(string(b))
		if out != "" {
			f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			fmt.Fprintln(f, string(b))
			f.Close()
		}
	}
	return nil
}

type result struct {
	Model        string  `json:"model"`
	MaxTokens    int     `json:"max_tokens,omitempty"`
	Threads      int     `json:"threads"`
	Docs         int     `json:"docs"`
	Queries      int     `json:"queries"`
	NDCG10       float64 `json:"ndcg10"`
	Recall100    float64 `json:"recall100"`
	LoadSec      float64 `json:"load_s"`
	DocsPerSec   float64 `json:"docs_per_s"`
	TokensPerSec float64 `json:"tokens_per_s"`
	MeanTokens   float64 `json:"mean_tokens"`
	PaddedShare  float64 `json:"padded_share"`
	Truncated    int64   `json:"truncated"`
	QueryP50ms   float64 `json:"query_p50_ms"`
	QueryP95ms   float64 `json:"query_p95_ms"`
}

// subset keeps every judged-relevant document and fills up to n with the
// others in corpus order, so a smaller run still has every answer.
func subset(docs []doc, qrels map[string]map[string]bool, n int) []doc {
	rel := map[string]bool{}
	for _, r := range qrels {
		for d := range r {
			rel[d] = true
		}
	}
	var out []doc
	others := n - len(rel)
	for _, d := range docs {
		if rel[d.id] {
			out = append(out, d)
		} else if others > 0 {
			out = append(out, d)
			others--
		}
	}
	return out
}

func evalModel(ctx context.Context, name string, threads, maxTokens int, docs []doc, queries map[string]string, qrels map[string]map[string]bool) (*result, error) {
	start := time.Now()
	dir, err := models.DefaultDir()
	if err != nil {
		return nil, err
	}
	lib, err := onnx.FindLibrary(onnx.LibrarySearch{ModelsDir: dir})
	if err != nil {
		return nil, err
	}
	if err := onnx.Init(lib); err != nil {
		return nil, err
	}
	c := models.Cache{Dir: dir}
	spec, err := c.Resolve(models.Builtin(), name)
	if err != nil {
		return nil, err
	}
	e, err := onnx.OpenEmbedder(ctx, onnx.Options{ModelDir: c.ModelDir(name), Spec: spec, Threads: threads, MaxTokens: maxTokens})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if err := e.Load(); err != nil {
		return nil, err
	}
	res := &result{Model: name, MaxTokens: maxTokens, Threads: threads, Docs: len(docs), LoadSec: time.Since(start).Seconds()}
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.text
	}
	start = time.Now()
	var dv [][]float32
	for i := 0; i < len(texts); i += 64 {
		v, err := e.Embed(ctx, texts[i:min(i+64, len(texts))], inference.Document)
		if err != nil {
			return nil, err
		}
		dv = append(dv, v...)
	}
	el := time.Since(start).Seconds()
	st := e.Stats()
	res.DocsPerSec = float64(len(docs)) / el
	res.TokensPerSec = float64(st.Tokens) / el
	res.MeanTokens = float64(st.Tokens) / float64(st.Texts)
	res.PaddedShare = float64(st.Padded) / float64(st.Tokens+st.Padded)
	res.Truncated = st.Truncated

	var qids []string
	for q := range qrels {
		if _, ok := queries[q]; ok {
			qids = append(qids, q)
		}
	}
	sort.Strings(qids)
	var lat []float64
	var ndcg, rec float64
	for _, q := range qids {
		t0 := time.Now()
		qv, err := e.Embed(ctx, []string{queries[q]}, inference.Query)
		if err != nil {
			return nil, err
		}
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		ranked := rank(qv[0], dv, 100)
		rel := qrels[q]
		var dcg, idcg float64
		found := 0
		for i, di := range ranked {
			if rel[docs[di].id] {
				if i < 10 {
					dcg += 1 / math.Log2(float64(i+2))
				}
				found++
			}
		}
		for i := 0; i < min(len(rel), 10); i++ {
			idcg += 1 / math.Log2(float64(i+2))
		}
		ndcg += dcg / idcg
		rec += float64(found) / float64(len(rel))
	}
	res.Queries = len(qids)
	res.NDCG10 = ndcg / float64(len(qids))
	res.Recall100 = rec / float64(len(qids))
	slices.Sort(lat)
	res.QueryP50ms = lat[len(lat)/2]
	res.QueryP95ms = lat[len(lat)*95/100]
	return res, nil
}

func rank(q []float32, dv [][]float32, k int) []int {
	type sc struct {
		i int
		s float64
	}
	all := make([]sc, len(dv))
	for i, v := range dv {
		var s float64
		for j := range v {
			s += float64(v[j]) * float64(q[j])
		}
		all[i] = sc{i, s}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].s > all[b].s })
	out := make([]int, 0, k)
	for _, x := range all[:min(k, len(all))] {
		out = append(out, x.i)
	}
	return out
}

func readCorpus(path string) ([]doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []doc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var d struct{ ID, Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &struct {
			ID    *string `json:"_id"`
			Title *string `json:"title"`
			Text  *string `json:"text"`
		}{&d.ID, &d.Title, &d.Text}); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, doc{d.ID, strings.TrimSpace(d.Title + "\n" + d.Text)})
	}
	return out, sc.Err()
}

func readQueries(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[q.ID] = q.Text
	}
	return out, sc.Err()
}

func readQrels(path string) (map[string]map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) != 3 || f[2] == "0" {
			continue
		}
		if out[f[0]] == nil {
			out[f[0]] = map[string]bool{}
		}
		out[f[0]][f[1]] = true
	}
	return out, nil
}
