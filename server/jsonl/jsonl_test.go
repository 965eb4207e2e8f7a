package jsonl

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestReadLines(t *testing.T) {
	long := strings.Repeat("x", 100)
	in := "a\n\n  \n" + long + "\nb\r\nc"
	var got []string
	over := 0
	err := ReadLines(bufio.NewReaderSize(strings.NewReader(in), 16), 50, func(l []byte) { got = append(got, string(l)) }, func() { over++ })
	if err != io.EOF {
		t.Fatalf("err %v, want io.EOF", err)
	}
	if strings.Join(got, "|") != "a\n|b\r\n|c" || over != 1 {
		t.Fatalf("lines %q, %d over", got, over)
	}
}

func TestIDKey(t *testing.T) {
	if IDKey([]byte("7")) != IDKey([]byte("7.0")) || IDKey([]byte("7")) == IDKey([]byte(`"7"`)) {
		t.Fatal("7, 7.0 and \"7\"")
	}
}
