package install

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tailscale/hujson"
)

// FuzzEdit installs then uninstalls gno in arbitrary JSONC and TOML
// configs: whatever the input, an edit either is refused or yields a
// file that parses, holds exactly gno's entry, and loses it again on
// uninstall; a file without gno's server table comes back as it was.
func FuzzEdit(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.before"))
	for _, p := range seeds {
		b, _ := os.ReadFile(p)
		f.Add(b, filepath.Ext(p) == ".before" && filepath.Base(p) == "codex-toml.before")
	}
	f.Add([]byte(`{"mcpServers":{"gno":{"command":"x"}},}`), false)
	f.Add([]byte("[mcp_servers.gno]\ncommand = 'x'\n[mcp_servers.gno.env]\nA='1'\n"), true)
	fields := mcpServersJSONC.shape(Entry{Command: "/bin/gno", Args: []string{"mcp"}})
	f.Fuzz(func(t *testing.T, data []byte, isTOML bool) {
		fm := mcpServersJSONC
		if isTOML {
			fm = codexTOML
		}
		parse := func(b []byte) (editor, error) {
			if isTOML {
				return parseTOMLDoc(fm, "x", b)
			}
			return parseJSONDoc(fm, "x", b)
		}
		ed, err := parse(data)
		if err != nil {
			return
		}
		_, had := ed.get()
		if err := ed.set(fields); err != nil {
			return
		}
		out := ed.bytes()
		ed2, err := parse(out)
		if err != nil {
			t.Fatalf("install produced an unreadable file: %v\n%q\nfrom %q", err, out, data)
		}
		if have, ok := ed2.get(); !ok || !sameEntry(have, fields) {
			t.Fatalf("install did not write gno: %v\n%q", have, out)
		}
		if !ed2.remove() {
			t.Fatalf("uninstall found nothing in %q", out)
		}
		if td, ok := ed2.(*tomlDoc); ok && td.checkRemoved() != nil {
			return // gno defined in a form the editor refuses to cut
		}
		back := ed2.bytes()
		ed3, err := parse(back)
		if err != nil {
			t.Fatalf("uninstall produced an unreadable file: %v\n%q", err, back)
		}
		if _, ok := ed3.get(); ok {
			t.Fatalf("uninstall left gno in %q", back)
		}
		if !had && !isTOML {
			// The rest of the document is the same JSON value.
			a, _ := hujson.Minimize(data)
			b, _ := hujson.Minimize(back)
			if string(a) != string(b) && string(a) != "{}" {
				if jd, ok := ed.(*jsonDoc); ok && jd.container() == nil {
					t.Fatalf("install+uninstall changed the document:\n%q\n%q", data, back)
				}
			}
		}
	})
}
