package pkgdocs

import (
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

// TestPlainOrder: the cobra question of issue 28. Four InheritedFlags
// look-alikes lead the fused order; two keep their places and the
// "Persistent Flags" section moves into the top three. A data member
// falls below the functions it tied with.
func TestPlainOrder(t *testing.T) {
	cobra := &retrieval.PackageRef{Ecosystem: "go", Name: "github.com/spf13/cobra", Version: "v1.8.1"}
	zod := &retrieval.PackageRef{Ecosystem: "npm", Name: "zod", Version: "3.23.8"}
	api := func(p *retrieval.PackageRef, name, kind, sig string, score float64) retrieval.Result {
		return retrieval.Result{Package: p, Symbol: &retrieval.Symbol{Name: name, Kind: kind, Signature: sig}, Score: score}
	}
	rs := []retrieval.Result{
		api(cobra, "Command.InheritedFlags", "method", "func (c *Command) InheritedFlags() *flag.FlagSet", 0.030),
		api(cobra, "Command.HasInheritedFlags", "method", "func (c *Command) HasInheritedFlags() bool", 0.029),
		api(cobra, "Command.NonInheritedFlags", "method", "func (c *Command) NonInheritedFlags() *flag.FlagSet", 0.028),
		api(cobra, "Command.HasAvailableInheritedFlags", "method", "func (c *Command) HasAvailableInheritedFlags() bool", 0.027),
		{Package: cobra, Title: "User Guide", Headings: "User Guide > Working with Flags > Persistent Flags", Score: 0.026},
		api(cobra, "Command.PersistentFlags", "method", "func (c *Command) PersistentFlags() *flag.FlagSet", 0.020),
	}
	got := diversifySiblings(weighData(slices.Clone(rs)), siblingsTop, siblingsPer)
	want := []string{"Command.InheritedFlags", "Command.HasInheritedFlags", "User Guide",
		"Command.NonInheritedFlags", "Command.HasAvailableInheritedFlags", "Command.PersistentFlags"}
	if n := resultNames(got); !slices.Equal(n, want) {
		t.Errorf("order %q, want %q", n, want)
	}

	zs := []retrieval.Result{
		api(zod, "ZodLazy.schema", "property", "get schema(): T", 0.030),
		api(zod, "ZodEffectsDef.schema", "property", "schema: T", 0.029),
		api(zod, "ZodType.optional", "method", "optional(): ZodOptional<this>", 0.027),
		api(zod, "ZodObject.partial", "method", "partial(): ZodObject<…>", 0.024),
	}
	got = weighData(slices.Clone(zs))
	want = []string{"ZodType.optional", "ZodLazy.schema", "ZodEffectsDef.schema", "ZodObject.partial"}
	if n := resultNames(got); !slices.Equal(n, want) {
		t.Errorf("zod order %q, want %q", n, want)
	}
	if got[1].Score != 0.030*dataWeight {
		t.Errorf("data member scored %v, want %v", got[1].Score, 0.030*dataWeight)
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
		r := retrieval.Result{Symbol: &retrieval.Symbol{Name: "ZodString.x", Kind: "property", Signature: sig}}
		if got := dataItem(r); got != want {
			t.Errorf("dataItem(%q) = %v, want %v", sig, got, want)
		}
	}
	if dataItem(retrieval.Result{Symbol: &retrieval.Symbol{Name: "f", Kind: "method", Signature: "f: T"}}) {
		t.Error("a method is not a data member")
	}
}
