package wire

// Number and string helpers written out so this package needs neither
// strconv, strings nor sort (see the package doc).

// itoa formats n in decimal.
func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b [24]byte
	i := len(b)
	neg := n < 0
	u := uint64(n)
	if neg {
		u = uint64(-n)
	}
	for u > 0 {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// hex formats u in lower-case hexadecimal.
func hex(u uint64) string {
	if u == 0 {
		return "0"
	}
	var b [16]byte
	i := len(b)
	for u > 0 {
		i--
		b[i] = "0123456789abcdef"[u&15]
		u >>= 4
	}
	return string(b[i:])
}

// atoi parses a non-negative decimal; anything else is 0.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || n > 1<<40 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// cut splits s at the first sep.
func cut(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// upperASCII upper-cases ASCII letters.
func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// hasPrefix is strings.HasPrefix.
func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
