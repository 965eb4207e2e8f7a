package auth

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkVerify is the per-request cost of a Bearer token: format
// check, SHA-256, a read of the tokens from the index (SQLite here),
// constant-time comparison against every stored hash.
func BenchmarkVerify(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("tokens=%d", n), func(b *testing.B) {
			st := newTestStore(b, b.TempDir())
			var secret string
			for range n {
				s, _, err := st.Create(context.Background(), "", Read, 0)
				if err != nil {
					b.Fatal(err)
				}
				secret = s
			}
			for b.Loop() {
				if _, err := st.Verify(context.Background(), secret); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGuardBearer is the whole middleware on an authenticated
// request, in process.
func BenchmarkGuardBearer(b *testing.B) {
	st := newTestStore(b, b.TempDir())
	secret, _, _ := st.Create(context.Background(), "", Read, 0)
	g, _ := New(Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Hosts: []string{"127.0.0.2"}})
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for b.Loop() {
		r := httptest.NewRequest("GET", "https://127.0.0.2:7777/api/search?q=wal+checkpoint", nil)
		r.Header.Set("Authorization", "Bearer "+secret)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
