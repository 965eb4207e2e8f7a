package startup

import (
	"strings"
	"testing"
)

func TestShort(t *testing.T) {
	for in, want := range map[string]bool{
		"search foo":                    true,
		"--json search -n 5 foo":        true,
		"--index update search":         true, // "update" is the index name
		"--config update.yml query x":   true,
		"--index=x get #abc":            true,
		"--version":                     true,
		"":                              false,
		"update":                        false,
		"--index search update":         false,
		"serve --http :8080":            false,
		"mcp":                           false,
		"collection add /tmp/notes":     false,
		"-v embed":                      false,
		"models pull bge-small-en-v1.5": false,
	} {
		if got := Short(strings.Fields(in)); got != want {
			t.Errorf("Short(%q) = %v, want %v", in, got, want)
		}
	}
}
