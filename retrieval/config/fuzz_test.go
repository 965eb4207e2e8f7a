package config

import "testing"

// FuzzParse checks that any config text parses or fails with an error,
// and that a parsed config survives a save and a re-parse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"version: 1\ncollections:\n  - name: notes\n    path: /tmp/notes\n    include: ['**/*.md']\n",
		"collections:\n  - name: A\n    path: relative\n",
		"models:\n  embed: bge-small-en-v1.5-q\n  threads: 2\n",
		"a: &a [1]\nb: [*a, *a]\n",
		"unknown: field\n",
		"collections: [{name: x, path: /x, exclude: ['[']}]\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		c, err := Parse("fuzz.yml", data)
		if err != nil {
			return
		}
		p := t.TempDir() + "/c.yml"
		if err := c.Save(p); err != nil {
			t.Fatalf("save parsed config: %v", err)
		}
		if _, err := Load(p); err != nil {
			t.Fatalf("re-parse saved config: %v", err)
		}
	})
}
