// Package capbuf is a byte buffer bounded in size: it keeps the first
// bytes written up to its bound and notes that more came, so a command's
// output read into memory (a toolchain's answer, an interpreter's
// introspection) cannot grow without end.
package capbuf

import "bytes"

// Buffer keeps the first max bytes written. It holds its bytes.Buffer
// as a named field, not embedded: an embedded one's ReadFrom would be
// promoted, and io.Copy (which os/exec uses) would write through it,
// past the bound.
type Buffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

// New returns a buffer that keeps at most max bytes.
func New(max int) *Buffer { return &Buffer{max: max} }

// Write keeps what fits and drops the rest, never failing: the writer
// (a running command) is not stopped.
func (b *Buffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.over = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Bytes returns the bytes kept.
func (b *Buffer) Bytes() []byte { return b.buf.Bytes() }

// String returns the bytes kept as a string.
func (b *Buffer) String() string { return b.buf.String() }

// Over reports whether more than the bound was written.
func (b *Buffer) Over() bool { return b.over }

// Max is the bound.
func (b *Buffer) Max() int { return b.max }
