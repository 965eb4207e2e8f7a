package auth

import (
	"strings"
	"testing"
	"time"
)

func TestSecretFormat(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		s, err := NewSecret()
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 62 || !strings.HasPrefix(s, "gno_") || strings.ToLower(s) != s {
			t.Fatalf("token %q: want gno_ and 58 lowercase characters", s)
		}
		if err := ParseToken(s); err != nil {
			t.Fatalf("ParseToken(%q): %v", s, err)
		}
		if seen[s] {
			t.Fatal("duplicate token")
		}
		seen[s] = true
	}
	s, _ := NewSecret()
	flip := func(i int) string {
		b := []byte(s)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	for _, c := range []struct {
		in   string
		want error
	}{
		{"", ErrTokenFormat},
		{s[:61], ErrTokenFormat},
		{s + "a", ErrTokenFormat},
		{"GNO_" + s[4:], ErrTokenFormat},
		{strings.ToUpper(s), ErrTokenFormat},
		{"gno-" + s[4:], ErrTokenFormat},
		{s[:10] + "1" + s[11:], ErrTokenFormat}, // '1' is not base32
		{flip(10), ErrChecksum},
		{flip(40), ErrChecksum},
	} {
		if got := ParseToken(c.in); got != c.want {
			t.Errorf("ParseToken(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	// The last character carries 2 padding bits: a non-canonical variant
	// decodes to the same bytes and must still be refused.
	last := s[61]
	alt := strings.IndexByte("abcdefghijklmnopqrstuvwxyz234567", last) ^ 1
	if err := ParseToken(s[:61] + string("abcdefghijklmnopqrstuvwxyz234567"[alt])); err == nil {
		t.Error("non-canonical encoding accepted")
	}
}

func TestContainsToken(t *testing.T) {
	s, _ := NewSecret()
	for in, want := range map[string]bool{
		s:                       true,
		"q=x&t=" + s:            true,
		"gno_search gno_query":  false,
		"prefix" + s + "suffix": true,
		"gno_gno_" + s[4:]:      true,
		// Token-shaped with a wrong checksum: a mistyped token still leaks.
		"gno_" + strings.Repeat("a", 58): true,
	} {
		if got := containsToken(in); got != want {
			t.Errorf("containsToken(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestParseBearer(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER   gno_x.y~z+/==", "gno_x.y~z+/==", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Bearerabc", "", false},
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearer a b", "", false},
		{"Bearer a=b", "", false},
		{"Bearer =", "", false},
		{"Bearer \tabc", "", false},
		{"Bearer abc\x00", "", false},
		{"Bearer " + strings.Repeat("a", 5000), "", false},
	} {
		got, err := ParseBearer(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseBearer(%q) = %q, %v; want %q ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseTTL(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": 0, "never": 0, "0": 0, "30d": 30 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "12h": 12 * time.Hour, "90m": 90 * time.Minute,
	} {
		if got, err := ParseTTL(in); err != nil || got != want {
			t.Errorf("ParseTTL(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"d", "-1d", "1.5d", "abc", "-5h", "999999999d", "200y", "1e9h"} {
		if _, err := ParseTTL(in); err == nil {
			t.Errorf("ParseTTL(%q) accepted", in)
		}
	}
}

func FuzzParseToken(f *testing.F) {
	s, _ := NewSecret()
	for _, seed := range []string{s, s[:20], "gno_", "gno_" + strings.Repeat("a", 58), strings.ToUpper(s), "x" + s} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		err := ParseToken(in)
		if err == nil {
			if len(in) != tokenLen || !containsToken(in) {
				t.Fatalf("accepted %q but it is not a token", in)
			}
			b, _ := b32.DecodeString(in[4:])
			if TokenPrefix+b32.EncodeToString(b) != in {
				t.Fatalf("accepted a non-canonical %q", in)
			}
		}
		_ = containsToken(in)
	})
}

func FuzzParseBearer(f *testing.F) {
	s, _ := NewSecret()
	for _, seed := range []string{"Bearer " + s, "bearer  abc==", "Basic x", "Bearer", "Bearer a b", "BEARER \x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		cred, err := ParseBearer(in)
		if err != nil {
			return
		}
		if cred == "" || strings.ContainsAny(cred, " \t\r\n\x00") || !strings.HasSuffix(in, cred) {
			t.Fatalf("ParseBearer(%q) = %q", in, cred)
		}
		if again, err := ParseBearer("Bearer " + cred); err != nil || again != cred {
			t.Fatalf("round trip of %q: %q, %v", cred, again, err)
		}
	})
}

func FuzzParseTTL(f *testing.F) {
	for _, seed := range []string{"30d", "2w", "12h", "never", "0", "-1d", "99999999999d", "1h30m"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d, err := ParseTTL(in)
		if err == nil && (d < 0 || d > 100*366*24*time.Hour) {
			t.Fatalf("ParseTTL(%q) = %v", in, d)
		}
	})
}
