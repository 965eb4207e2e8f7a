package convert

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestDump(t *testing.T) {
	files := os.Getenv("GNO_DUMP")
	if files == "" {
		t.Skip()
	}
	for _, f := range strings.Split(files, ",") {
		data, _ := os.ReadFile(f)
		fm, _ := ForPath(f, true)
		t0 := time.Now()
		d, err := Run(context.Background(), fm, data, Limits{})
		fmt.Printf("===== %s (%v) err=%v\n", f, time.Since(t0), err)
		if d != nil {
			fmt.Printf("title=%q\n%.3000s\n", d.Title, d.Markdown)
		}
	}
}
