package vaultgen

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestClustered(t *testing.T) {
	o := Options{Notes: 2000, Links: 10000, Seed: 3}
	v, err := Clustered("", o)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Clustered("", o)
	if !reflect.DeepEqual(v, again) {
		t.Error("same options, another vault")
	}
	links, intra := 0, 0
	for i, out := range v.Out {
		for _, j := range out {
			links++
			if j == i {
				t.Fatalf("note %d links to itself", i)
			}
			if strings.Split(v.Rel[i], "/")[0] == strings.Split(v.Rel[j], "/")[0] {
				intra++
			}
		}
	}
	if links < 9000 || links > 11000 {
		t.Errorf("%d distinct links, want about 10,000", links)
	}
	if f := float64(intra) / float64(links); f < 0.75 || f > 0.95 {
		t.Errorf("%.2f of links within a folder", f)
	}
	in := v.In()
	for _, o := range v.Orphans {
		if len(v.Out[o]) > 0 || len(in[o]) > 0 {
			t.Errorf("orphan %d has links", o)
		}
	}
	if len(v.Orphans) != 40 || v.Unresolved == 0 {
		t.Errorf("%d orphans, %d unresolved", len(v.Orphans), v.Unresolved)
	}
	// Written notes carry the title, tags and links planned.
	dir := t.TempDir()
	small, err := Clustered(dir, Options{Notes: 60, Links: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(small.Rel[0])))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.Contains(text, "title: "+small.Title[0]) || len(small.Out[0]) > 0 && !strings.Contains(text, "[[") {
		t.Errorf("note 0:\n%s", text)
	}
}
