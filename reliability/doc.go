// Package reliability holds gno's end-to-end robustness harnesses. They
// build the real gno binary once into a temp dir and drive
// them as processes over real files, the real SQLite index and, where the
// model is installed, the real ONNX embedder:
//
//   - crash: SIGKILL `gno update`, `gno embed`, the MCP write tools and
//     `gno daemon` (syncing, embedding) at random points, then prove the index whole and the next sync equal
//     to a clean build, and no user file truncated (crash_test.go);
//   - concurrency: CLI and MCP readers of every search mode during syncs,
//     embeds and note writes; writers serialise or get LOCKED
//     (concurrency_test.go, run it with -race);
//   - soak: thousands of mixed MCP requests over stdio and loopback HTTP
//     while syncs run, with latency, error and RSS figures, and no
//     goroutine left behind by cancelled or abandoned requests
//     (soak_test.go); with -tls the HTTP server runs in the sharing mode,
//     HTTPS and a Bearer token on 127.0.0.2 (share_test.go);
//   - hostile: path traversal, oversized and deeply nested input, chunker
//     and YAML bombs, FTS5 injection, prompt-injection text
//     (hostile_test.go);
//   - diskfault: full disk, read-only index folder, corrupt or truncated
//     index and model files (diskfault_test.go).
//
// The package has no non-test code. Every harness has a short version
// that runs inside `go test ./...` in a few seconds, and a full version
// selected with -full (or GNO_RELIABILITY_FULL=1); reliability.mk has one
// make target per harness. Write tools are listed once, in writeOps
// (ops_test.go), so a new tool is one more entry there.
//
// It must not be imported by gno itself (it is a test harness).
package reliability
