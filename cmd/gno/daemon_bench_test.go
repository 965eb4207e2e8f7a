//go:build !windows

package main

import (
	"context"
	"io"
	"testing"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
)

// BenchmarkDaemonSearch is the daemon's side of a fast-path `gno search`:
// a command tree, the search on a warm engine, the output (discarded).
//
//	go test -run '^$' -bench DaemonSearch -benchmem ./cmd/gno/
func BenchmarkDaemonSearch(b *testing.B) {
	b.Setenv("GNO_HOME", b.TempDir())
	root := vault(&testing.T{})
	ctx := context.Background()
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "n", Path: root})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	if _, err := e.Update(ctx, retrieval.UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, pooled := range []bool{false, true} {
		name := "tree-per-request"
		if pooled {
			name = "tree-pool"
		}
		b.Run(name, func(b *testing.B) {
			p := newTreePool(e, nil)
			for b.Loop() {
				var a *app
				if pooled {
					var t tree
					t.a, t.root = p.get()
					a = t.a
					a.stdout, a.stderr = io.Discard, io.Discard
					if err := executeOn(ctx, a, t.root, []string{"search", "platypus"}, nil); err != nil {
						b.Fatal(err)
					}
				} else {
					a = &app{eng: e, stdout: io.Discard, stderr: io.Discard}
					if err := execute(ctx, a, []string{"search", "platypus"}, nil); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
