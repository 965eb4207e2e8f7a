package ref

import (
	"strings"
	"testing"
)

func TestPackageURI(t *testing.T) {
	for _, tc := range []struct{ eco, name, version, unit, want string }{
		{"go", "github.com/spf13/cobra", "v1.8.1", "api/Command.PersistentFlags", "gno://pkg/go/github.com/spf13/cobra@v1.8.1/api/Command.PersistentFlags"},
		{"npm", "@scope/core", "1.2.0", "readme.md", "gno://pkg/npm/@scope/core@1.2.0/readme.md"},
		{"swift", "yams", "feature/x@0d9ee7ea8c4e", "", "gno://pkg/swift/yams@feature%2Fx@0d9ee7ea8c4e"},
		{"rust", "serde", "1.0.219", "api/de::Deserializer", "gno://pkg/rust/serde@1.0.219/api/de::Deserializer"},
		{"python", "python-dateutil", "2.9.0.post0", "docs/a b.md", "gno://pkg/python/python-dateutil@2.9.0.post0/docs/a%20b.md"},
	} {
		got := PackageURI(tc.eco, tc.name, tc.version, tc.unit)
		if got != tc.want {
			t.Errorf("PackageURI = %s, want %s", got, tc.want)
		}
		r, err := ParsePackageURI(got)
		if err != nil || r != (PackageRef{tc.eco, tc.name, tc.version, tc.unit}) {
			t.Errorf("ParsePackageURI(%s) = %+v, %v", got, r, err)
		}
	}
	for _, bad := range []string{"gno://pkg/", "gno://pkg/go", "gno://pkg/cobol/x@1", "gno://pkg/go/cobra", "gno://pkg/go/@1.0",
		"gno://pkg/go/x@1/../../etc/passwd", "gno://pkg/go/x@1/a%zz", "gno://notes/a.md"} {
		if _, err := ParsePackageURI(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParsePackageURI: any input parses or fails cleanly, and a parsed
// URI formats back to one that parses to the same ref.
func FuzzParsePackageURI(f *testing.F) {
	for _, s := range []string{"gno://pkg/go/github.com/spf13/cobra@v1.8.1/api/Command.Execute", "gno://pkg/npm/@a/b@1/readme.md",
		"gno://pkg/swift/y@main%2Fx@abc", "gno://pkg/go/x@1/../a", "gno://PKG/Go/a@b/c%2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParsePackageURI(s)
		if err != nil {
			return
		}
		if r.Name == "" || r.Version == "" || strings.Contains(r.Unit, "..") && strings.Contains("/"+r.Unit+"/", "/../") {
			t.Fatalf("bad ref %+v from %q", r, s)
		}
		again, err := ParsePackageURI(PackageURI(r.Ecosystem, r.Name, r.Version, r.Unit))
		if err != nil || again != r {
			t.Fatalf("round trip of %+v: %+v, %v", r, again, err)
		}
	})
}
