package harness

import (
	"slices"
	"testing"
	"time"

	"github.com/gnosearch/gno/bench/gnocli"
)

func TestModesFor(t *testing.T) {
	h := &harness{cfg: Config{Modes: gnocli.AllModes, ModelModesMaxDocs: 200}}
	if got := h.modesFor(200); !slices.Equal(got, gnocli.AllModes) {
		t.Fatalf("200 docs: %v", got)
	}
	if got := h.modesFor(201); !slices.Equal(got, []gnocli.Mode{gnocli.Search}) {
		t.Fatalf("201 docs: %v, want search only", got)
	}
	h.cfg.ModelModesMaxDocs = 0
	if got := h.modesFor(1 << 20); len(got) != len(gnocli.AllModes) {
		t.Fatalf("no limit: %v", got)
	}
	if needsModels([]gnocli.Mode{gnocli.Search}) || !needsModels([]gnocli.Mode{gnocli.Search, gnocli.Fast}) {
		t.Fatal("needsModels wrong")
	}
}

func TestDeadline(t *testing.T) {
	h := &harness{}
	if h.pastDeadline() {
		t.Fatal("no deadline must never be past")
	}
	if d := time.Until(h.until(time.Hour)); d < 59*time.Minute {
		t.Fatalf("until without deadline = %v", d)
	}
	h.deadline = time.Now().Add(time.Minute)
	if d := time.Until(h.until(time.Hour)); d > time.Minute {
		t.Fatalf("until must not pass the deadline: %v", d)
	}
	h.deadline = time.Now().Add(-time.Second)
	if !h.pastDeadline() {
		t.Fatal("deadline passed but not reported")
	}
}

func TestNames(t *testing.T) {
	if got := collectionName("cmrc2018-zh"); got != "cmrc2018-zh" {
		t.Fatal(got)
	}
	if got := collectionName("My_Set.v2"); got != "my-set-v2" {
		t.Fatal(got)
	}
	if humanCount(10000) != "10k" || humanCount(1500) != "1500" {
		t.Fatal("humanCount wrong")
	}
}
