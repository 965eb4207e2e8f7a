package wordtok

// FTS5's porter stemmer (fts5_tokenize.c), step by step: its rules, its
// order and its quirks (it stems bytes: any byte that is not an ASCII
// vowel is a consonant), so a stemmed word is the one FTS5 indexes.

// porterMaxToken is FTS5_PORTER_MAX_TOKEN: longer tokens, and tokens of
// fewer than three bytes, are not stemmed.
const porterMaxToken = 64

// porter stems tok in place (it may grow by a byte or two within its
// capacity or be copied) and returns the stem.
func porter(tok []byte) []byte {
	if len(tok) > porterMaxToken || len(tok) < 3 {
		return tok
	}
	var a [porterMaxToken + 64]byte
	n := copy(a[:], tok)
	buf := a[:]

	// Step 1.
	n = step1A(buf, n)
	var ok bool
	if n, ok = step1B(buf, n); ok {
		if n, ok = step1B2(buf, n); !ok {
			c := buf[n-1]
			if !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == at(buf, n-2) {
				n--
			} else if mEq1(buf[:n]) && oStar(buf[:n]) {
				buf[n] = 'e'
				n++
			}
		}
	}

	// Step 1C.
	if buf[n-1] == 'y' && hasVowel(buf[:n-1]) {
		buf[n-1] = 'i'
	}

	// Steps 2 through 4.
	n = apply(step2, buf, n)
	n = apply(step3, buf, n)
	n = apply(step4, buf, n)

	// Step 5a.
	if buf[n-1] == 'e' {
		if mGt1(buf[:n-1]) || (mEq1(buf[:n-1]) && !oStar(buf[:n-1])) {
			n--
		}
	}

	// Step 5b.
	if n > 1 && buf[n-1] == 'l' && buf[n-2] == 'l' && mGt1(buf[:n-1]) {
		n--
	}
	return append(tok[:0], buf[:n]...)
}

// at is buf[i], or 0 before the buffer (FTS5 reads the byte before its
// buffer there, which no rule matches).
func at(buf []byte, i int) byte {
	if i < 0 {
		return 0
	}
	return buf[i]
}

func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || (yIsVowel && c == 'y')
}

// gobbleVC is fts5PorterGobbleVC: the length of the stem's first
// vowels-then-consonant sequence, or 0.
func gobbleVC(stem []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(stem); i++ {
		if cons = !isVowel(stem[i], cons); !cons {
			break
		}
	}
	for i++; i < len(stem); i++ {
		if cons = !isVowel(stem[i], cons); cons {
			return i + 1
		}
	}
	return 0
}

// mGt0 is the condition m > 0.
func mGt0(stem []byte) bool { return gobbleVC(stem, false) != 0 }

// mGt1 is the condition m > 1.
func mGt1(stem []byte) bool {
	n := gobbleVC(stem, false)
	return n != 0 && gobbleVC(stem[n:], true) != 0
}

// mEq1 is the condition m = 1.
func mEq1(stem []byte) bool {
	n := gobbleVC(stem, false)
	return n != 0 && gobbleVC(stem[n:], true) == 0
}

// oStar is the condition *o: the stem ends consonant-vowel-consonant,
// the last not w, x or y.
func oStar(stem []byte) bool {
	last := stem[len(stem)-1]
	if last == 'w' || last == 'x' || last == 'y' {
		return false
	}
	mask, cons := 0, false
	for _, c := range stem {
		cons = !isVowel(c, cons)
		mask <<= 1
		if cons {
			mask++
		}
	}
	return mask&7 == 5
}

// mGt1ST is the condition m > 1 and (*S or *T).
func mGt1ST(stem []byte) bool {
	last := stem[len(stem)-1]
	return (last == 's' || last == 't') && mGt1(stem)
}

// hasVowel is the condition *v*.
func hasVowel(stem []byte) bool {
	for i, c := range stem {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}

// rule replaces a suffix by out when the stem before it meets cond.
type rule struct {
	suffix, out string
	cond        func([]byte) bool
}

// apply applies the first rule of step (by the word's second-last byte)
// whose suffix ends the word with at least one byte before it; a rule
// whose condition fails ends the step too.
func apply(step *steps, buf []byte, n int) int {
	n, _ = applyRule(step, buf, n)
	return n
}

// applyRule is apply, also saying whether a rule's condition held.
func applyRule(step *steps, buf []byte, n int) (int, bool) {
	for _, r := range step[at(buf, n-2)] {
		ls := len(r.suffix)
		if n > ls && string(buf[n-ls:n]) == r.suffix {
			if !r.cond(buf[:n-ls]) {
				return n, false
			}
			copy(buf[n-ls:], r.out)
			return n - ls + len(r.out), true
		}
	}
	return n, false
}

func step1A(buf []byte, n int) int {
	if buf[n-1] == 's' {
		if buf[n-2] == 'e' {
			if (n > 4 && buf[n-4] == 's' && buf[n-3] == 's') || (n > 3 && buf[n-3] == 'i') {
				return n - 2
			}
			return n - 1
		} else if buf[n-2] != 's' {
			return n - 1
		}
	}
	return n
}

// step1B removes -eed, -ed, -ing; true when -ed or -ing went.
func step1B(buf []byte, n int) (int, bool) {
	switch at(buf, n-2) {
	case 'e':
		if n > 3 && string(buf[n-3:n]) == "eed" {
			if mGt0(buf[:n-3]) {
				copy(buf[n-3:], "ee")
				return n - 1, false
			}
		} else if n > 2 && string(buf[n-2:n]) == "ed" {
			if hasVowel(buf[:n-2]) {
				return n - 2, true
			}
		}
	case 'n':
		if n > 3 && string(buf[n-3:n]) == "ing" {
			if hasVowel(buf[:n-3]) {
				return n - 3, true
			}
		}
	}
	return n, false
}

func always([]byte) bool { return true }

// step1B2 turns -at, -bl, -iz into -ate, -ble, -ize; true when it did.
func step1B2(buf []byte, n int) (int, bool) { return applyRule(step1B2Rules, buf, n) }

var step1B2Rules = bySecondLast(map[byte][]rule{
	'a': {{"at", "ate", always}},
	'b': {{"bl", "ble", always}},
	'i': {{"iz", "ize", always}},
})

var step2 = bySecondLast(map[byte][]rule{
	'a': {{"ational", "ate", mGt0}, {"tional", "tion", mGt0}},
	'c': {{"enci", "ence", mGt0}, {"anci", "ance", mGt0}},
	'e': {{"izer", "ize", mGt0}},
	'g': {{"logi", "log", mGt0}},
	'l': {{"bli", "ble", mGt0}, {"alli", "al", mGt0}, {"entli", "ent", mGt0}, {"eli", "e", mGt0}, {"ousli", "ous", mGt0}},
	'o': {{"ization", "ize", mGt0}, {"ation", "ate", mGt0}, {"ator", "ate", mGt0}},
	's': {{"alism", "al", mGt0}, {"iveness", "ive", mGt0}, {"fulness", "ful", mGt0}, {"ousness", "ous", mGt0}},
	't': {{"aliti", "al", mGt0}, {"iviti", "ive", mGt0}, {"biliti", "ble", mGt0}},
})

var step3 = bySecondLast(map[byte][]rule{
	'a': {{"ical", "ic", mGt0}},
	's': {{"ness", "", mGt0}},
	't': {{"icate", "ic", mGt0}, {"iciti", "ic", mGt0}},
	'u': {{"ful", "", mGt0}},
	'v': {{"ative", "", mGt0}},
	'z': {{"alize", "al", mGt0}},
})

var step4 = bySecondLast(map[byte][]rule{
	'a': {{"al", "", mGt1}},
	'c': {{"ance", "", mGt1}, {"ence", "", mGt1}},
	'e': {{"er", "", mGt1}},
	'i': {{"ic", "", mGt1}},
	'l': {{"able", "", mGt1}, {"ible", "", mGt1}},
	'n': {{"ant", "", mGt1}, {"ement", "", mGt1}, {"ment", "", mGt1}, {"ent", "", mGt1}},
	'o': {{"ion", "", mGt1ST}, {"ou", "", mGt1}},
	's': {{"ism", "", mGt1}},
	't': {{"ate", "", mGt1}, {"iti", "", mGt1}},
	'u': {{"ous", "", mGt1}},
	'v': {{"ive", "", mGt1}},
	'z': {{"ize", "", mGt1}},
})

// steps are a step's rules by the word's second-last byte (a table, not
// a map: a sync stems every word).
type steps [256][]rule

func bySecondLast(m map[byte][]rule) *steps {
	var s steps
	for b, rs := range m {
		s[b] = rs
	}
	return &s
}
