package query

import (
	"reflect"
	"testing"
)

func TestParseDoc(t *testing.T) {
	got := ParseDoc("lex: sqlite wal\nvec: how does logging work\nhyde: SQLite appends pages.\nintent: internals")
	want := Doc{Text: "sqlite wal", Lex: []string{"sqlite wal"}, Vec: []string{"how does logging work"}, Hyde: "SQLite appends pages.", Intent: "internals"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	if d := ParseDoc("what is: a colon question"); d.Text != "what is: a colon question" {
		t.Fatalf("plain text with colon: %+v", d)
	}
}
