package pkgdocs

import (
	"slices"
	"strings"

	"github.com/gnosearch/gno/retrieval"
)

// An example unit repeats its item: the item's hit already shows its
// doc and first example (hits.go), so an example hit ranked below the
// item it exemplifies, or below another example of the same item, adds
// nothing to the top results and takes the place of another answer
// (hex's "Example: decode" under `decode`, above `decode_to_slice`).
// foldExamples moves such hits to the end, in order. An example ranked
// above its item gives its place to the item first (liftItems): the
// question is answered by the item, whose hit shows the example too.
func foldExamples(results []retrieval.Result) []retrieval.Result {
	results = liftItems(results)
	seen := map[string]bool{}
	var kept, moved []retrieval.Result
	for _, r := range results {
		key, example := itemKey(r)
		if key == "" {
			kept = append(kept, r)
			continue
		}
		if example && seen[key] {
			moved = append(moved, r)
			continue
		}
		seen[key] = true
		kept = append(kept, r)
	}
	if len(moved) == 0 {
		return results
	}
	return append(kept, moved...)
}

// liftItems moves an API item found below an example of it to the
// example's place, with the example's score, the rest keeping their
// order. Code embeds close to a question that describes a task, so in
// fast mode an example often outranks its item (golang-lru's ExampleLRU
// above expirable.LRU, singleflight's ExampleGroup above Group):
// bench/RESULTS.md, "fast below search".
func liftItems(results []retrieval.Result) []retrieval.Result {
	out := slices.Clone(results)
	for i := range out {
		key, example := itemKey(out[i])
		if !example {
			continue
		}
		for j := i + 1; j < len(out); j++ {
			if k, ex := itemKey(out[j]); ex || k != key {
				continue
			}
			item := out[j]
			item.Score = max(item.Score, out[i].Score)
			copy(out[i+1:j+1], out[i:j])
			out[i] = item
			break
		}
	}
	return out
}

// itemKey names the API item a result documents, within its package
// version, and says whether the result is an example of it; "" for
// prose and for a Go example of the whole package.
func itemKey(r retrieval.Result) (string, bool) {
	if r.Package == nil {
		return "", false
	}
	pkg := retrieval.PackageKey(r.Package.Ecosystem, r.Package.Name, r.Package.Version) + "\x00"
	if r.Symbol != nil {
		return pkg + r.Symbol.Name, false
	}
	rest, ok := strings.CutPrefix(r.Source.RelPath, "example/")
	if !ok || rest == "" {
		return "", false
	}
	rest = trimSerial(rest)
	if r.Package.Ecosystem == "go" {
		rest = goExampleItem(rest)
		if rest == "" {
			return "", false
		}
	}
	return pkg + rest, true
}

// goExampleItem maps a Go example's path ("strconv/ExampleAppendInt",
// "ExampleCmd_Output_stderr") to the item it exemplifies
// ("strconv.AppendInt", "Cmd.Output"): `go doc`'s naming of examples,
// Example, then the item's name with "_" for ".", then an optional
// lower-case suffix. "" for an example of the whole package.
func goExampleItem(rest string) string {
	dir, base := "", rest
	if i := strings.LastIndexByte(rest, '/'); i >= 0 {
		dir, base = rest[:i], rest[i+1:]
	}
	name, ok := strings.CutPrefix(base, "Example")
	if !ok || name == "" || name[0] == '_' {
		return ""
	}
	parts := strings.Split(name, "_")
	if n := len(parts); n > 1 && parts[n-1] != "" && parts[n-1][0] >= 'a' && parts[n-1][0] <= 'z' {
		parts = parts[:n-1]
	}
	name = strings.Join(parts, ".")
	if dir != "" {
		name = dir + "." + name
	}
	return name
}

// trimSerial drops the "~N" the extractor adds to the path of a second
// unit of one name (apidoc's add: an item, or an example, of a name
// already taken), so "ExampleUnmarshal~2" is an example of Unmarshal.
func trimSerial(p string) string {
	i := strings.LastIndexByte(p, '~')
	if i <= 0 || i == len(p)-1 {
		return p
	}
	for _, c := range p[i+1:] {
		if c < '0' || c > '9' {
			return p
		}
	}
	return p[:i]
}
