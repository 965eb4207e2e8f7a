package backend

import (
	"context"
	"errors"
	"testing"
)

func TestUnknownKind(t *testing.T) {
	ctx := context.Background()
	s := Spec{Kind: "nope", Model: "m"}
	_, e1 := Embedder(ctx, s, Local{})
	_, e2 := Reranker(ctx, s, Local{})
	_, e3 := Expander(s)
	_, e4 := Chatter(s)
	for role, err := range map[Role]error{Embed: e1, Rerank: e2, Expand: e3, Chat: e4} {
		var u *UnknownKindError
		if !errors.As(err, &u) || u.Role != role || u.Kind != "nope" {
			t.Errorf("%s: %v", role, err)
		}
	}
	// A kind that cannot serve a role is unknown for it.
	if _, err := Reranker(ctx, Spec{Kind: "ollama", Model: "m"}, Local{}); err == nil {
		t.Error("ollama served a reranker")
	}
	if got := (&UnknownKindError{Role: Embed, Kind: "x"}).Error(); got != `unknown embed backend "x" (ollama, openai, or empty for ONNX)` {
		t.Errorf("message %q", got)
	}
}

func TestNoKind(t *testing.T) {
	if _, err := Expander(Spec{}); !errors.Is(err, ErrNoExpander) {
		t.Errorf("expander without kind: %v", err)
	}
	if ch, err := Chatter(Spec{}); ch != nil || err != nil {
		t.Errorf("chatter without kind: %v %v", ch, err)
	}
}

func TestRemoteKinds(t *testing.T) {
	for _, kind := range []string{"ollama", "openai"} {
		s := Spec{Kind: kind, URL: "http://127.0.0.1:9", Model: "m"}
		if x, err := Expander(s); err != nil || x == nil {
			t.Errorf("%s expander: %v", kind, err)
		}
		if c, err := Chatter(s); err != nil || c == nil {
			t.Errorf("%s chatter: %v", kind, err)
		}
	}
}
