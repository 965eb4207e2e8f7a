package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkVersions: 1,000 edits (one synced generation each) of a 2 KB
// note, one line changed per edit; reports what the earlier-version store
// keeps (rows, text bytes) and how much the database file grew.
func BenchmarkVersions(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "i.sqlite")
		st, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		body := strings.Repeat("a line of a note that an agent keeps editing\n", 45)
		put := func(gen int64, text string) {
			bt, err := st.Begin(ctx, gen)
			if err != nil {
				b.Fatal(err)
			}
			if err := bt.Put(ctx, &Document{Collection: "c", RelPath: "n.md", Hash: fmt.Sprint(gen), Content: text}); err != nil {
				b.Fatal(err)
			}
			if err := bt.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		put(1, body)
		before := fileSize(path)
		for i := 2; i <= 1001; i++ {
			put(int64(i), fmt.Sprintf("edit %d\n", i)+body)
		}
		rows, bytes, err := st.VersionsSize(ctx)
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
		b.ReportMetric(float64(rows), "rows/1000edits")
		b.ReportMetric(float64(bytes), "textbytes/1000edits")
		b.ReportMetric(float64(fileSize(path)-before), "dbgrowth-bytes/1000edits")
	}
}

func fileSize(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}
