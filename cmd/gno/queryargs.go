package main

import (
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// takesQuery names the commands whose arguments are query text, where a
// word starting with "-" is the exclusion syntax (`gno search -draft
// budget`), not a flag.
var takesQuery = []string{"search", "vsearch", "query", "ask"}

// queryArgs rewrites the command line of a query command so that words
// starting with "-" that are not its flags reach the query: the flags come
// first, then "--", then every query word in its original order. Other
// command lines are returned unchanged.
//
// A single-dash word is a flag only when the whole word parses as one:
// `-v`, `-h`, `-n 5`, `-n5`, `-n=5`, `-vn5`. A value glued to a
// shorthand is accepted for numeric flags only, and only when it is a
// number, so `-hnsw` (not `-h -n sw`) and `-cats` (not `-c ats`) are
// query words. Double-dash words stay flags (an unknown one is still an
// error, so a typo in a flag name is reported, not searched for), and
// everything after a "--" of the user's is query text.
func queryArgs(root *cobra.Command, args []string) []string {
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root || cmd.Parent() != root || !slices.Contains(takesQuery, cmd.Name()) {
		return args
	}
	cmd.InitDefaultHelpFlag()
	lookup := func(name string) *pflag.Flag {
		if f := cmd.Flags().Lookup(name); f != nil {
			return f
		}
		return root.PersistentFlags().Lookup(name)
	}
	lookupShort := func(c byte) *pflag.Flag {
		if f := cmd.Flags().ShorthandLookup(string(c)); f != nil {
			return f
		}
		return root.PersistentFlags().ShorthandLookup(string(c))
	}
	flags := []string{cmd.Name()}
	var words []string
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case w == "--":
			words = append(words, rest[i+1:]...)
			i = len(rest)
		case strings.HasPrefix(w, "--"):
			flags = append(flags, w)
			name, _, glued := strings.Cut(w[2:], "=")
			if f := lookup(name); f != nil && !glued && f.NoOptDefVal == "" && i+1 < len(rest) {
				i++
				flags = append(flags, rest[i])
			}
		case len(w) > 1 && w[0] == '-':
			ok, takesNext := shorthands(w[1:], lookupShort)
			if !ok {
				words = append(words, w)
				continue
			}
			flags = append(flags, w)
			if takesNext && i+1 < len(rest) {
				i++
				flags = append(flags, rest[i])
			}
		default:
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return flags
	}
	return append(append(flags, "--"), words...)
}

// shorthands reports whether group (a single-dash word without its dash)
// is a valid run of shorthand flags, and whether its last flag takes the
// next word as its value.
func shorthands(group string, lookup func(byte) *pflag.Flag) (ok, takesNext bool) {
	for i := 0; i < len(group); i++ {
		f := lookup(group[i])
		if f == nil {
			return false, false
		}
		rest := group[i+1:]
		if v, eq := strings.CutPrefix(rest, "="); eq {
			return f.NoOptDefVal == "" || isBool(f, v), false
		}
		if f.NoOptDefVal != "" { // a bool: the run may go on
			continue
		}
		if rest == "" {
			return true, true
		}
		return isNumber(f, rest), false
	}
	return true, false
}

func isBool(f *pflag.Flag, v string) bool {
	_, err := strconv.ParseBool(v)
	return f.Value.Type() == "bool" && err == nil
}

// isNumber reports whether v is a valid value for f when f is numeric.
func isNumber(f *pflag.Flag, v string) bool {
	var err error
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64":
		_, err = strconv.ParseInt(v, 0, 64)
	case "uint", "uint8", "uint16", "uint32", "uint64":
		_, err = strconv.ParseUint(v, 0, 64)
	case "float32", "float64":
		_, err = strconv.ParseFloat(v, 64)
	default:
		return false
	}
	return err == nil
}
