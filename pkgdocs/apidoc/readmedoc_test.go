package apidoc

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHeadingNames(t *testing.T) {
	for h, want := range map[string][]string{
		".optional()":          {"optional"},
		"extend":               {"extend"},
		"`z.string().email()`": {"email"},
		"Validating with `z.string().email()` and `.url()`": {"email", "url"},
		"pRetry(input, options?)":                           {"pRetry"},
		"AbortError(error)":                                 {"AbortError"},
		"func New":                                          {"New"},
		"chalk.level":                                       {"level"},
		"`new Command(name?: string)`":                      {"Command"},
		"Persistent Flags":                                  nil,
		"What is Zod?":                                      nil,
		"Installation":                                      {"Installation"}, // a plain word: matchSections decides
		"[Read the docs →](https://x)":                      nil,
	} {
		var got []string
		for _, n := range headingNames(h) {
			got = append(got, n.Name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("headingNames(%q) = %q, want %q", h, got, want)
		}
	}
	// The qualifier is the name before the last; a keyword is none; a
	// plain word is marked.
	for h, want := range map[string]headingName{
		"`requests.get(url)`":          {Name: "get", Qual: "requests"},
		"z.string().email()":           {Name: "email", Qual: "string"},
		"`.optional()`":                {Name: "optional"},
		"func New":                     {Name: "New"},
		"`new Command(name?: string)`": {Name: "Command"},
		"`options`":                    {Name: "options"},
		".options()":                   {Name: "options"},
		"Options":                      {Name: "Options", Word: true},
		"extend":                       {Name: "extend", Word: true},
	} {
		if got := headingNames(h); len(got) != 1 || got[0] != want {
			t.Errorf("headingNames(%q) = %+v, want %+v", h, got, want)
		}
	}
}

func TestCallNames(t *testing.T) {
	code := "const s = z.string().email();\nif (x) { console.error(s.parse(data)); }\nselect! { a => b }\ntokio::spawn(async {});\nfmt.Println(x)\n"
	want := []string{"string", "email", "parse", "spawn"}
	if got := callNames(code); !reflect.DeepEqual(got, want) {
		t.Errorf("callNames = %q, want %q", got, want)
	}
}

// The fixture: an npm package whose .d.ts documents some items and whose
// README documents others.
const readmeFixture = "# schemas\n\nA schema library.\n\n## Basic usage\n\nMake a schema, then check data with it.\n\n" +
	"```ts\nconst s = object({ a: string() });\ns.check(data);\n```\n\n" +
	"## API\n\n### `.optional()`\n\nMakes a schema accept `undefined`. The value is left as it is.\n\n" +
	"A second paragraph about optional.\n\n```ts\nconst o = string().optional();\n```\n\n" +
	"### strict\n\nThe README's words about strict.\n\n### `.get()`\n\nReads a value.\n\n" +
	"## License\n\nMIT\n"

const readmeFixtureDTS = `export declare class StringSchema {
    optional(): this;
    /** Rejects unknown keys. */
    strict(): this;
    check(data: unknown): boolean;
    get(): string;
}
export declare class NumberSchema { optional(): this; get(): number; }
export declare class DateSchema { optional(): this; get(): Date; }
export declare class BoolSchema { optional(): this; get(): boolean; }
export declare function object(shape: object): StringSchema;
export declare function string(): StringSchema;
`

func TestReadmeDocs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"package.json": `{"name": "schemas", "version": "1.0.0", "types": "index.d.ts"}`,
		"README.md":    readmeFixture,
		"index.d.ts":   readmeFixtureDTS,
	})
	d := extract(t, NPM, "schemas", "1.0.0", dir)
	opt := unit(t, d, "api/StringSchema.optional")
	want := "# StringSchema.optional\n\nmethod\n\n```ts\noptional(): this\n```\n\n" +
		"From README.md § `.optional()`:\n\nMakes a schema accept `undefined`. The value is left as it is.\n\n" +
		"A second paragraph about optional.\n\n```ts\nconst o = string().optional();\n```\n" + readmeDocEnd + "\n"
	if opt.Text != want {
		t.Errorf("optional:\n%s\nwant\n%s", opt.Text, want)
	}
	// OwnDoc drops the README block: the diff's deprecation check reads it.
	if own, want := OwnDoc(opt.Text), "# StringSchema.optional\n\nmethod\n\n```ts\noptional(): this\n```\n\n"; own != want {
		t.Errorf("OwnDoc = %q, want %q", own, want)
	}
	if opt.Doc != "" {
		t.Errorf("optional's own doc = %q: the README text is not its doc comment", opt.Doc)
	}
	// A section documents at most maxSectionItems items, in unit order.
	n := 0
	for _, p := range []string{"api/StringSchema.optional", "api/NumberSchema.optional", "api/DateSchema.optional", "api/BoolSchema.optional"} {
		if strings.Contains(unit(t, d, p).Text, "From README.md §") {
			n++
		}
	}
	if n != maxSectionItems || strings.Contains(unit(t, d, "api/BoolSchema.optional").Text, "§") {
		t.Errorf("%d optional items got the section, want the first %d", n, maxSectionItems)
	}
	// An item with its own doc keeps it alone.
	if s := unit(t, d, "api/StringSchema.strict"); strings.Contains(s.Text, "README") || !strings.Contains(s.Text, "Rejects unknown keys.") {
		t.Errorf("strict:\n%s", s.Text)
	}
	// No heading names check: the first section whose code calls it.
	if c := unit(t, d, "api/StringSchema.check"); !strings.Contains(c.Text, "From README.md § Basic usage:\n\nMake a schema, then check data with it.\n\n```ts\nconst s = object") {
		t.Errorf("check:\n%s", c.Text)
	}
	// A heading that names an item takes it before code that calls it.
	if o := unit(t, d, "api/object"); !strings.Contains(o.Text, "§ Basic usage") {
		t.Errorf("object:\n%s", o.Text)
	}
	// The README itself is unchanged, and dropped sections give nothing.
	for _, u := range d.Units {
		if strings.Contains(u.Text, "§ License") {
			t.Errorf("%s took the License section", u.Path)
		}
	}
}

// A call cannot tell apart items of one name: `get` of four classes
// takes no code section; a heading naming it still documents it.
func TestReadmeDocsAmbiguousCall(t *testing.T) {
	secs := readmeSections("## Use\n\nText.\n\n```js\nx.get(1)\nparse(y)\n```\n")
	byName := map[string][]int{"get": {1, 2}, "parse": {3}}
	rules := matchRules{
		callable: func(n string) bool { return n == "parse" },
		word:     func(string) bool { return true },
		shared:   func(string) bool { return true },
		owns:     func(int, string) bool { return false },
	}
	got := matchSections(secs, byName, rules)
	if want := []sectionMatch{{3, 0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("matches %v, want %v", got, want)
	}
	secs = readmeSections("## `.get()`\n\nReads.\n")
	rules.callable = func(string) bool { return false }
	if got := matchSections(secs, byName, rules); len(got) != 2 {
		t.Errorf("heading matches %v, want both get items", got)
	}
}

// A heading's qualifier picks, among items sharing a name, the one it
// owns ("### `requests.get(url)`" is not LookupDict.get's or
// Session.get's); a plain-word heading names an item only when one
// item has that exact name and it is no section word ("## Options").
func TestReadmeDocsQualifierAndWords(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"package.json": `{"name": "fetchy", "version": "1.0.0", "types": "index.d.ts"}`,
		"README.md": "# fetchy\n\n### `fetchy.get(url)`\n\nFetches a URL.\n\n#### `cache.get(key)`\n\nReads the cache.\n\n" +
			"## Options\n\nThe options a client takes.\n\n## Usage\n\nCall it.\n\n## retries\n\nHow often to retry.\n\n" +
			"## `timeout`\n\nHow long to wait.\n",
		"index.d.ts": `export declare function get(url: string): Promise<string>;
export declare class Cache { get(key: string): string; }
export declare class Store { get(key: string): string; }
export declare class Lookup { get(key: string): string; }
export interface Options { retries: number; timeout: number; }
export declare function Usage(): void;
`,
	})
	d := extract(t, NPM, "fetchy", "1.0.0", dir)
	for path, want := range map[string]string{
		"api/get":             "§ `fetchy.get(url)`",
		"api/Cache.get":       "§ `cache.get(key)`",
		"api/Store.get":       "",
		"api/Lookup.get":      "",
		"api/Options":         "", // "## Options": a section word
		"api/Usage":           "", // "## Usage": a section word
		"api/Options.retries": "§ retries",
		"api/Options.timeout": "§ `timeout`",
	} {
		text := unit(t, d, path).Text
		if want == "" && strings.Contains(text, "README") || want != "" && !strings.Contains(text, want) {
			t.Errorf("%s: want %q:\n%s", path, want, text)
		}
	}
}

func TestReadmeSectionsBounded(t *testing.T) {
	long := strings.Repeat("A sentence of words. ", 100)
	code := strings.Repeat("call(x)\n", 400)
	secs := readmeSections("## `big()`\n\n" + long + "\n\n```js\n" + code + "```\n")
	if len(secs) != 1 {
		t.Fatalf("sections %d", len(secs))
	}
	s := secs[0]
	if len(s.Paras) > maxReadmeParaText || !strings.HasSuffix(s.Paras, ".") {
		t.Errorf("paragraph %d bytes, ends %q", len(s.Paras), s.Paras[len(s.Paras)-5:])
	}
	text := readmeDocText("README.md", s)
	if len(text) > maxReadmeDocBytes+200 {
		t.Errorf("doc text %d bytes", len(text))
	}
}

// zod and p-retry as npm packs them: undocumented .d.ts items take the
// README sections that document them, their text as the README has it.
func TestReadmeDocsNPM(t *testing.T) {
	for _, c := range []struct{ spec, name, unit, readme, heading, para string }{
		{"zod@3.25.76", "zod", "api/ZodType.safeParse", "README.md", "Handling errors",
			"When validation fails, the `.parse()` method will throw a `ZodError` instance"},
		{"p-retry@6.2.1", "p-retry", "api/AbortError", "readme.md", "AbortError(error)",
			"Abort retrying and reject the promise."},
	} {
		dir := npmPackage(t, c.spec)
		d := extract(t, NPM, c.name, strings.SplitN(c.spec, "@", 2)[1], dir)
		u := unit(t, d, c.unit)
		if u.Doc != "" {
			t.Errorf("%s has a doc of its own now: %q", c.unit, u.Doc)
		}
		mark := "From " + c.readme + " § " + c.heading + ":\n\n" + c.para
		if !strings.Contains(u.Text, mark) {
			t.Errorf("%s lacks %q:\n%s", c.unit, mark, u.Text)
		}
		src, err := os.ReadFile(filepath.Join(dir, c.readme))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), c.para) {
			t.Errorf("%q is not the README's text", c.para)
		}
	}
}

// setextLong is a README whose 400-line paragraph is underlined with
// "---": Markdown makes it one setext heading.
var setextLong = strings.Repeat("`get` a line of the paragraph that goes on\n", 400) + "---\n\nText.\n\n```js\nget(x)\n```\n"

// A heading is one line of at most maxHeadingBytes, and the text an
// item gets stays within its cap, whatever the heading.
func TestReadmeSectionsSetextHeading(t *testing.T) {
	secs := readmeSections(setextLong)
	if len(secs) != 1 {
		t.Fatalf("%d sections, want 1", len(secs))
	}
	if h := secs[0].Heading; len(h) > maxHeadingBytes || strings.Contains(h, "\n") {
		t.Errorf("heading %d bytes: %q", len(h), h)
	}
	if text := readmeDocText("README.md", secs[0]); len(text) > maxReadmeDocText {
		t.Errorf("doc %d bytes, cap %d", len(text), maxReadmeDocText)
	}
}

// maxReadmeDocText is the most readmeDocText gives: maxReadmeDocBytes
// and its end marker.
const maxReadmeDocText = maxReadmeDocBytes + len(readmeDocEnd) + 2

func FuzzReadmeSections(f *testing.F) {
	f.Add(readmeFixture)
	f.Add(setextLong)
	f.Add("## `a()`\n\n```\nb(\n```\n### x.y.z()\n\np\n")
	f.Add("#\n\n```go\nfunc (((\n```\n\n## `((((`\n\ntext")
	f.Fuzz(func(t *testing.T, src string) {
		secs := readmeSections(src)
		byName := map[string][]int{}
		for i, s := range secs {
			names := slices.Clone(s.Calls)
			for _, n := range s.Named {
				names = append(names, n.Name)
			}
			for _, n := range names {
				byName[n] = append(byName[n], i, i+len(secs))
			}
		}
		used := map[int]int{}
		seen := map[int]bool{}
		all := func(string) bool { return true }
		for _, m := range matchSections(secs, byName, matchRules{callable: all, word: all, shared: all, owns: func(int, string) bool { return true }}) {
			used[m.section]++
			if used[m.section] > maxSectionItems || seen[m.unit] {
				t.Fatalf("section %d used %d times, unit %d twice: %v", m.section, used[m.section], m.unit, seen[m.unit])
			}
			seen[m.unit] = true
		}
		for _, s := range secs {
			text := readmeDocText("README.md", s)
			if utf8.ValidString(src) && !utf8.ValidString(text) {
				t.Fatalf("invalid UTF-8 from valid input: %q", text)
			}
			if len(s.Paras) > maxReadmeParaText+len("…") {
				t.Fatalf("paragraphs %d bytes", len(s.Paras))
			}
			if len(s.Heading) > maxHeadingBytes || strings.Contains(s.Heading, "\n") {
				t.Fatalf("heading %d bytes: %q", len(s.Heading), s.Heading)
			}
			if len(text) > maxReadmeDocText {
				t.Fatalf("doc %d bytes", len(text))
			}
		}
	})
}
