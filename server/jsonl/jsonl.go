// Package jsonl reads newline-delimited messages, MCP's stdio framing,
// and keys JSON-RPC ids: gno's own stdio transport (server) and the remote
// bridge (server/remote) read their client's stdin with it.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
)

// ReadLines calls handle with each non-blank line of r (its newline
// kept) until a read error, which it returns: io.EOF at the end. A line
// over max bytes is skipped, never held whole, and reported with tooBig.
func ReadLines(r *bufio.Reader, max int, handle func([]byte), tooBig func()) error {
	for {
		var line []byte
		over := false
		for {
			chunk, err := r.ReadSlice('\n')
			if !over {
				if len(line)+len(chunk) > max {
					over, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if over {
				tooBig()
			} else if len(bytes.TrimSpace(line)) > 0 {
				handle(line)
			}
			if err != nil {
				return err
			}
			break
		}
	}
}

// IDKey normalises a JSON-RPC id so 7 and 7.0 compare equal, and 7 and
// "7" do not (numbers equal numbers, strings equal strings): the key to
// match an answer with its request.
func IDKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
