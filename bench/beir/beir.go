// Package beir reads retrieval datasets in BEIR format (corpus.jsonl,
// queries.jsonl, qrels/*.tsv) and writes their corpus out as a folder of
// Markdown files, one per document, so gno and its peers can index the same
// bytes. The data stays where it lies; only the temporary Markdown copy is
// written.
//
// It must not be imported by gno itself (bench is a tool).
package beir

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/bench/metrics"
)

// Doc is one corpus entry.
type Doc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Query is one search request of the dataset.
type Query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// Dataset is a loaded BEIR dataset.
type Dataset struct {
	// Name is the dataset folder's base name (e.g. "scifact").
	Name string
	Docs []Doc
	// Queries holds only the queries that have relevance judgements, in id
	// order, because unjudged queries cannot be scored.
	Queries []Query
	Qrels   metrics.Qrels
	// Split names the qrels file used (e.g. "train").
	Split string
}

// qrelsPreference is the order in which qrels files are chosen when a
// dataset holds several: test is the usual reporting split.
var qrelsPreference = []string{"test", "dev", "train", "all"}

// Load reads the dataset in dir. It picks the first qrels split present in
// the order test, dev, train, all, or any other single .tsv file.
func Load(ctx context.Context, dir string) (*Dataset, error) {
	ds := &Dataset{Name: filepath.Base(dir)}
	var err error
	if ds.Docs, err = readJSONL[Doc](ctx, filepath.Join(dir, "corpus.jsonl")); err != nil {
		return nil, err
	}
	queries, err := readJSONL[Query](ctx, filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return nil, err
	}
	qrelsPath, split, err := findQrels(dir)
	if err != nil {
		return nil, err
	}
	ds.Split = split
	if ds.Qrels, err = ReadQrels(qrelsPath); err != nil {
		return nil, err
	}
	for _, d := range ds.Docs {
		if err := checkID(d.ID); err != nil {
			return nil, fmt.Errorf("load %s: document %w", dir, err)
		}
	}
	judged := make(map[string]bool)
	for _, id := range ds.Qrels.JudgedQueries() {
		judged[id] = true
	}
	for _, q := range queries {
		if judged[q.ID] && strings.TrimSpace(q.Text) != "" {
			ds.Queries = append(ds.Queries, q)
		}
	}
	sort.Slice(ds.Queries, func(i, j int) bool { return lessID(ds.Queries[i].ID, ds.Queries[j].ID) })
	if len(ds.Queries) == 0 {
		return nil, fmt.Errorf("load %s: no query has a relevance judgement in %s", dir, qrelsPath)
	}
	return ds, nil
}

// lessID orders numeric ids numerically and the rest as strings, so
// "fixed first N queries" means the same thing a person would expect.
func lessID(a, b string) bool {
	na, ea := strconv.Atoi(a)
	nb, eb := strconv.Atoi(b)
	if ea == nil && eb == nil {
		return na < nb
	}
	return a < b
}

func findQrels(dir string) (path, split string, err error) {
	qdir := filepath.Join(dir, "qrels")
	for _, s := range qrelsPreference {
		p := filepath.Join(qdir, s+".tsv")
		if _, err := os.Stat(p); err == nil {
			return p, s, nil
		}
	}
	matches, _ := filepath.Glob(filepath.Join(qdir, "*.tsv"))
	if len(matches) == 1 {
		return matches[0], strings.TrimSuffix(filepath.Base(matches[0]), ".tsv"), nil
	}
	return "", "", fmt.Errorf("load %s: want one qrels file in %s, found %d", dir, qdir, len(matches))
}

// ReadQrels parses a BEIR qrels TSV: query-id, corpus-id, score, with an
// optional header line.
func ReadQrels(path string) (metrics.Qrels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read qrels: %w", err)
	}
	defer f.Close()
	qrels := metrics.Qrels{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("read qrels %s:%d: want 3 tab-separated fields, got %d", path, line, len(fields))
		}
		grade, err := strconv.Atoi(fields[2])
		if err != nil {
			if line == 1 {
				continue // header
			}
			return nil, fmt.Errorf("read qrels %s:%d: score %q: %w", path, line, fields[2], err)
		}
		if qrels[fields[0]] == nil {
			qrels[fields[0]] = map[string]int{}
		}
		qrels[fields[0]][fields[1]] = grade
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read qrels %s: %w", path, err)
	}
	return qrels, nil
}

func readJSONL[T any](ctx context.Context, path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	var out []T
	for n := 1; ; n++ {
		if n%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("load %s: record %d: %w", path, n, err)
		}
		out = append(out, v)
	}
}

// checkID refuses ids that cannot be a file's base name, because the
// document id is recovered from the file name.
func checkID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\\\x00") {
		return fmt.Errorf("id %q cannot be a file name", id)
	}
	return nil
}

// Markdown renders a document the way the harness indexes it: a level-one
// heading with the title (when there is one), a blank line, the text.
func Markdown(d Doc) string {
	var b strings.Builder
	if t := strings.TrimSpace(d.Title); t != "" {
		b.WriteString("# ")
		b.WriteString(strings.ReplaceAll(t, "\n", " "))
		b.WriteString("\n\n")
	}
	b.WriteString(strings.TrimSpace(d.Text))
	b.WriteString("\n")
	return b.String()
}

// WriteStats describes a written collection.
type WriteStats struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
}

// WriteMarkdown writes one <id>.md file per document into dir, which must
// not yet hold other Markdown files that would pollute the collection.
func (ds *Dataset) WriteMarkdown(ctx context.Context, dir string) (WriteStats, error) {
	var st WriteStats
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, fmt.Errorf("write %s corpus: %w", ds.Name, err)
	}
	for i, d := range ds.Docs {
		if i%500 == 0 {
			if err := ctx.Err(); err != nil {
				return st, err
			}
		}
		body := Markdown(d)
		p := filepath.Join(dir, d.ID+".md")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return st, fmt.Errorf("write %s corpus: %w", ds.Name, err)
		}
		st.Files++
		st.Bytes += int64(len(body))
	}
	return st, nil
}

// DocIDFromPath recovers a dataset document id from a result's path: the
// base name without its extension.
func DocIDFromPath(p string) string {
	base := filepath.Base(filepath.FromSlash(p))
	return strings.TrimSuffix(base, filepath.Ext(base))
}
