package pkgdocs

import (
	"math"
	"slices"
	"testing"

	"github.com/gnosearch/gno/retrieval"
)

func TestNameWords(t *testing.T) {
	for in, want := range map[string][]string{
		"HasInheritedFlags":              {"ha", "inherit", "flag"},
		"HTTPServer":                     {"http", "server"},
		"combinations_with_replacement":  {"combin", "with", "replac"},
		"ser::Serializer::serialize_seq": {"ser", "serial", "serial", "seq"},
		"ansi256":                        {"ansi256"},
		"":                               nil,
	} {
		if got := nameWords(in); !slices.Equal(got, want) {
			t.Errorf("nameWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlainQuestion(t *testing.T) {
	for q, want := range map[string]bool{
		"how do I make a flag every subcommand inherits": true,
		"what is PersistentFlags":                        false,
		"errgroup.SetLimit":                              false,
		"use re.findall()":                               false,
		"how do I":                                       false, // stop words only
		"retry":                                          false, // one word: a name, as likely as not
	} {
		if got := plainQuestion(q); got != want {
			t.Errorf("plainQuestion(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestSiblings(t *testing.T) {
	cobra := &retrieval.PackageRef{Ecosystem: "go", Name: "github.com/spf13/cobra", Version: "v1.8.1"}
	other := &retrieval.PackageRef{Ecosystem: "go", Name: "github.com/spf13/pflag", Version: "v1.0.5"}
	it := &retrieval.PackageRef{Ecosystem: "rust", Name: "itertools", Version: "0.13.0"}
	api := func(p *retrieval.PackageRef, name string) retrieval.Result {
		return retrieval.Result{Package: p, Symbol: &retrieval.Symbol{Name: name}}
	}
	for _, c := range []struct {
		a, b retrieval.Result
		want bool
	}{
		{api(cobra, "Command.InheritedFlags"), api(cobra, "Command.HasInheritedFlags"), true},
		{api(cobra, "Command.HasAvailableInheritedFlags"), api(cobra, "Command.NonInheritedFlags"), true},
		{api(cobra, "Command.PersistentFlags"), api(cobra, "Command.LocalNonPersistentFlags"), true},
		{api(cobra, "Command.PersistentFlags"), api(cobra, "Command.InheritedFlags"), false},
		{api(cobra, "Command.PersistentFlags"), api(cobra, "Command.Flags"), false},
		{api(it, "Itertools::combinations"), api(it, "Itertools::combinations_with_replacement"), true},
		{api(it, "Itertools::combinations"), api(it, "Combinations"), true},
		{api(it, "Itertools::tuple_combinations"), api(it, "Itertools::cartesian_product"), false},
		{api(cobra, "Command.InheritedFlags"), api(other, "FlagSet.InheritedFlags"), false},                       // another package
		{api(cobra, "Command.InheritedFlags"), retrieval.Result{Package: cobra, Title: "Inherited Flags"}, false}, // prose
	} {
		if got := siblings(c.a, c.b); got != c.want {
			t.Errorf("siblings(%s, %s) = %v, want %v", c.a.Symbol.Name, resultName(c.b), got, c.want)
		}
	}
}

func resultName(r retrieval.Result) string {
	if r.Symbol != nil {
		return r.Symbol.Name
	}
	return r.Title
}

func resultNames(rs []retrieval.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, resultName(r))
	}
	return out
}

// TestRescoreFieldsShort: one plain word is too few: nothing moves.
func TestRescoreFieldsShort(t *testing.T) {
	p := &retrieval.PackageRef{Ecosystem: "npm", Name: "zod", Version: "3.23.8"}
	rs := []retrieval.Result{
		{Package: p, Symbol: &retrieval.Symbol{Name: "Schema"}, Score: 2},
		{Package: p, Symbol: &retrieval.Symbol{Name: "ZodType.optional"}, Score: 1},
	}
	got := rescoreFields("optional", slices.Clone(rs), []fieldText{{name: "Schema"}, {name: "ZodType.optional", doc: "optional"}})
	if !slices.Equal(resultNames(got), resultNames(rs)) || got[0].Score != 2 {
		t.Errorf("got %q", resultNames(got))
	}
}

// TestRescoreFields: for a plain-words question, an item whose doc says
// what the question asks passes items that share its words only in
// their names; the order is deterministic and the scores stay on the
// fused scale.
func TestRescoreFields(t *testing.T) {
	bo := &retrieval.PackageRef{Ecosystem: "go", Name: "github.com/cenkalti/backoff/v4", Version: "v4.3.0"}
	api := func(name string, score float64) retrieval.Result {
		return retrieval.Result{Package: bo, Symbol: &retrieval.Symbol{Name: name, Kind: "func"}, Score: score}
	}
	rs := []retrieval.Result{
		api("Retry", 0.030),
		api("RetryWithData", 0.029),
		api("WithRetryStopDuration", 0.028),
		api("WithMaxRetries", 0.027),
		{Package: bo, Title: "README", Headings: "Usage", Score: 0.020},
	}
	fields := []fieldText{
		{name: "Retry\nfunc Retry(o Operation, b BackOff) error", doc: "Retry the operation o until it does not return error or BackOff stops."},
		{name: "RetryWithData\nfunc RetryWithData[T any](o OperationWithData[T], b BackOff) (T, error)", doc: "RetryWithData is like Retry but returns data in the response too."},
		{name: "WithRetryStopDuration\nfunc WithRetryStopDuration(d time.Duration) ExponentialBackOffOpts", doc: "WithRetryStopDuration sets how long retries may run."},
		{name: "WithMaxRetries\nfunc WithMaxRetries(b BackOff, max uint64) BackOff", doc: "WithMaxRetries gives up after a fixed number of attempts: it returns Stop once NextBackOff was called max times."},
		{doc: "README\nUsage\nImport the package and call Retry with an operation."},
	}
	q := "give up after a fixed number of attempts"
	got := rescoreFields(q, slices.Clone(rs), fields)
	if n := resultNames(got); n[0] != "WithMaxRetries" {
		t.Errorf("order %q: want WithMaxRetries first (its doc says what the question asks)", n)
	}
	if math.Abs(got[0].Score-rs[0].Score) > 1e-12 {
		t.Errorf("best score %v, want the fused best %v kept", got[0].Score, rs[0].Score)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Errorf("scores not descending: %v then %v", got[i-1].Score, got[i].Score)
		}
	}
	// The items whose docs hold none of the question's words keep their
	// fused order among themselves.
	var rest []string
	for _, n := range resultNames(got) {
		if n == "Retry" || n == "RetryWithData" || n == "README" {
			rest = append(rest, n)
		}
	}
	if want := []string{"Retry", "RetryWithData", "README"}; !slices.Equal(rest, want) {
		t.Errorf("undocumented-for-the-question order %q, want %q", rest, want)
	}
	again := rescoreFields(q, slices.Clone(rs), fields)
	if !slices.Equal(resultNames(again), resultNames(got)) {
		t.Errorf("second run %q, first %q", resultNames(again), resultNames(got))
	}
}

func TestDiversifySiblings(t *testing.T) {
	it := &retrieval.PackageRef{Ecosystem: "rust", Name: "itertools", Version: "0.13.0"}
	api := func(name string) retrieval.Result {
		return retrieval.Result{Package: it, Symbol: &retrieval.Symbol{Name: name}}
	}
	in := []retrieval.Result{
		api("Itertools::combinations"), api("Itertools::combinations_with_replacement"),
		api("Combinations"), api("Itertools::cartesian_product"),
		api("Itertools::multi_cartesian_product"), api("Itertools::concat"),
	}
	for per, want := range map[int][]string{
		1: {"Itertools::combinations", "Itertools::cartesian_product", "Itertools::concat",
			"Itertools::combinations_with_replacement", "Combinations", "Itertools::multi_cartesian_product"},
		2: {"Itertools::combinations", "Itertools::combinations_with_replacement", "Itertools::cartesian_product",
			"Combinations", "Itertools::multi_cartesian_product", "Itertools::concat"},
	} {
		if got := resultNames(diversifySiblings(slices.Clone(in), 3, per)); !slices.Equal(got, want) {
			t.Errorf("per %d: got %q, want %q", per, got, want)
		}
	}
}

func TestDataItem(t *testing.T) {
	for sig, want := range map[string]bool{
		"schema: T":                            true,
		"get schema(): T":                      true,
		"readonly valueSchema: Value":          true,
		"ansi256: (index: number) => this":     false,
		"optional(): ZodOptional<this>":        false,
		"onFailedAttempt?(error: Error): void": false,
	} {
		r := retrieval.Result{Symbol: &retrieval.Symbol{Name: "x", Kind: "property", Signature: sig}}
		if got := dataItem(r); got != want {
			t.Errorf("dataItem(%q) = %v, want %v", sig, got, want)
		}
	}
	if dataItem(retrieval.Result{Symbol: &retrieval.Symbol{Name: "f", Kind: "method", Signature: "f: T"}}) {
		t.Error("a method is not a data member")
	}
}
