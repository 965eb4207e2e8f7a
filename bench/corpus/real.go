package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// Vocab is a word distribution and a document length distribution taken
// from real corpora when the corpus is generated (never stored in the
// repo): the unigram frequencies of the English datasets' words, the
// log-normal fit of their documents' byte lengths, and sentences of the
// Chinese dataset for the share of documents that carry some CJK.
type Vocab struct {
	// Words are the distinct words, most frequent first; cum[i] is the
	// cumulative share of the first i+1.
	Words []string
	cum   []float64
	// Sigma is the standard deviation of log(document bytes); MeanBytes
	// the mean document size of the source corpora.
	Sigma     float64
	MeanBytes float64
	// CJK are sentences of Chinese text; CJKShare the share of documents
	// given a paragraph of them.
	CJK      []string
	CJKShare float64
	// Sources names the files the statistics came from, for the report.
	Sources []string
}

// LoadVocab derives a Vocab from the datasets under evalDir
// (../shared/eval): scifact and cranfield for English, cmrc2018-zh for
// Chinese. Words seen once are dropped (mostly numbers and typos).
func LoadVocab(evalDir string) (*Vocab, error) {
	v := &Vocab{CJKShare: 0.02}
	counts := map[string]int{}
	var logs []float64
	for _, name := range []string{"scifact", "cranfield"} {
		p := filepath.Join(evalDir, name, "corpus.jsonl")
		err := eachDoc(p, func(title, text string) {
			body := title + "\n" + text
			logs = append(logs, math.Log(float64(len(body))+1))
			for _, w := range strings.FieldsFunc(strings.ToLower(body), func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) }) {
				if len(w) > 1 || w == "a" {
					counts[w]++
				}
			}
		})
		if err != nil {
			return nil, err
		}
		v.Sources = append(v.Sources, p)
	}
	p := filepath.Join(evalDir, "cmrc2018-zh", "corpus.jsonl")
	err := eachDoc(p, func(_, text string) {
		for _, s := range strings.SplitAfter(text, "。") {
			if n := len([]rune(s)); n >= 8 && n <= 120 {
				v.CJK = append(v.CJK, strings.TrimSpace(s))
			}
		}
	})
	if err != nil {
		return nil, err
	}
	v.Sources = append(v.Sources, p)
	for w, n := range counts {
		if n > 1 {
			v.Words = append(v.Words, w)
		}
	}
	sort.Slice(v.Words, func(i, j int) bool {
		a, b := counts[v.Words[i]], counts[v.Words[j]]
		if a != b {
			return a > b
		}
		return v.Words[i] < v.Words[j]
	})
	total := 0.0
	for _, w := range v.Words {
		total += float64(counts[w])
	}
	v.cum = make([]float64, len(v.Words))
	acc := 0.0
	for i, w := range v.Words {
		acc += float64(counts[w])
		v.cum[i] = acc / total
	}
	if len(v.Words) < 1000 || len(logs) == 0 || len(v.CJK) == 0 {
		return nil, fmt.Errorf("load vocabulary from %s: too little text", evalDir)
	}
	mu, ss := 0.0, 0.0
	for _, l := range logs {
		mu += l
	}
	mu /= float64(len(logs))
	for _, l := range logs {
		ss += (l - mu) * (l - mu)
	}
	v.Sigma = math.Sqrt(ss / float64(len(logs)))
	v.MeanBytes = math.Exp(mu + v.Sigma*v.Sigma/2)
	return v, nil
}

// eachDoc calls f with the title and text of every line of a BEIR
// corpus.jsonl file.
func eachDoc(path string, f func(title, text string)) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("load vocabulary: %w", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return fmt.Errorf("load vocabulary: %s: %w", path, err)
		}
		f(d.Title, d.Text)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("load vocabulary: %s: %w", path, err)
	}
	return nil
}

// draw picks word rank k by the real unigram distribution.
func (v *Vocab) draw(u float64) int {
	k := sort.SearchFloat64s(v.cum, u)
	return min(k, len(v.Words)-1)
}
