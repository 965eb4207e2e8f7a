package server

import (
	"encoding/json"
	"testing"
)

// FuzzToolArgs decodes arbitrary JSON as the arguments of every tool and
// checks them against its schema, as a tools/call does: an error or a
// map, never a panic, and the accessors accept whatever passed.
func FuzzToolArgs(f *testing.F) {
	for _, s := range []string{`{"query":"x","limit":5}`, `{"ref":"notes/a.md","fromLine":1}`, `{"refs":["a","b"],"maxBytes":-1}`,
		`{"collection":"notes","content":"x","overwrite":true}`, `{"limit":1e308}`, `[]`, `null`, `"s"`, `{"tagsAny":[1,2]}`,
		`{"query":{"nested":[[[]]]}}`, `{"since":-1}`} {
		f.Add(s)
	}
	schemas := []*schema{parseSchema(searchInputSchema), parseSchema(queryInputSchema), parseSchema(getInputSchema),
		parseSchema(multiGetInputSchema), parseSchema(captureInputSchema), parseSchema(addCollectionInputSchema),
		parseSchema(syncInputSchema), parseSchema(tagInputSchema), parseSchema(changesInputSchema), parseSchema(listTagsInputSchema)}
	f.Fuzz(func(t *testing.T, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		for _, s := range schemas {
			m, err := validateArgs(s, v)
			if err != nil {
				continue
			}
			a := args(m)
			for name := range s.Properties {
				a.str(name)
				a.int(name, 0)
				a.num(name, 0)
				a.bool(name, false)
				a.strs(name)
				a.has(name)
			}
		}
	})
}
