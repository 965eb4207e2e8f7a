package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
)

// hit is one line of a -runs file: a document at a rank, with its score.
type hit struct{ doc, score string }

// readRuns reads a -runs file: mode → query → its ranked list.
func readRuns(path string) (map[string]map[string][]hit, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string][]hit{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 5 {
			return nil, fmt.Errorf("%s: not a -runs line: %q", path, sc.Text())
		}
		if out[p[0]] == nil {
			out[p[0]] = map[string][]hit{}
		}
		out[p[0]][p[1]] = append(out[p[0]][p[1]], hit{doc: p[3], score: p[4]})
	}
	return out, sc.Err()
}

// compareRuns prints, per mode, how two stores' ranked lists agree: the
// queries answered alike, and the places where the documents differ
// although the scores there are the same on both sides. Two ranks with
// the same score on one side are a tie; a tie broken differently is
// counted apart, as it has no order to keep.
func compareRuns(pathA, pathB string) error {
	a, err := readRuns(pathA)
	if err != nil {
		return err
	}
	b, err := readRuns(pathB)
	if err != nil {
		return err
	}
	modes := make([]string, 0, len(a))
	for m := range a {
		modes = append(modes, m)
	}
	sort.Strings(modes)
	for _, m := range modes {
		queries := map[string]bool{}
		for q := range a[m] {
			queries[q] = true
		}
		for q := range b[m] {
			queries[q] = true
		}
		var alike, scoreDiffers, sameScoreOtherDoc, tieOrder int
		for q := range queries {
			la, lb := a[m][q], b[m][q]
			if equalLists(la, lb) {
				alike++
				continue
			}
			n := min(len(la), len(lb))
			differs := len(la) != len(lb)
			for i := range n {
				if la[i].score != lb[i].score {
					differs = true
					continue
				}
				if la[i].doc == lb[i].doc {
					continue
				}
				if tied(la, i) || tied(lb, i) {
					tieOrder++
				} else {
					sameScoreOtherDoc++
				}
			}
			if differs {
				scoreDiffers++
			}
		}
		fmt.Printf("%s: %d queries, %d alike (documents, order, scores); %d with some score differing; same score but another document: %d places in a tie, %d not in a tie\n",
			m, len(queries), alike, scoreDiffers, tieOrder, sameScoreOtherDoc)
	}
	return nil
}

func equalLists(a, b []hit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// tied reports whether rank i shares its score with a neighbour.
func tied(l []hit, i int) bool {
	return (i > 0 && l[i-1].score == l[i].score) || (i+1 < len(l) && l[i+1].score == l[i].score)
}
