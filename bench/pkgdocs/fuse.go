package pkgdocs

import (
	"math"
	"strings"
)

// fuseMaxBits is Fuse.js's MAX_BITS: longer patterns are searched in
// 32-character chunks.
const fuseMaxBits = 32

// fuseScore scores text against pattern the way Fuse.js 7 does with the
// peer's options (threshold 0.4, ignoreLocation, findAllMatches, one key,
// case-insensitive): the Bitap approximate match of each 32-character
// chunk, averaged, then raised to the field-length norm 1/sqrt(tokens).
// Lower is better; ok is false when no chunk matches. It is written by hand
// because no Go port of Fuse.js is in the reachable registries, and it is
// the peer's baseline only: gno never ranks with it.
func fuseScore(text, pattern string, threshold float64) (score float64, ok bool) {
	text, pattern = strings.ToLower(text), strings.ToLower(pattern)
	if text == pattern {
		return 0, true
	}
	type chunk struct{ pattern string }
	var chunks []chunk
	if n := len(pattern); n > fuseMaxBits {
		i, rem := 0, n%fuseMaxBits
		for end := n - rem; i < end; i += fuseMaxBits {
			chunks = append(chunks, chunk{pattern[i : i+fuseMaxBits]})
		}
		if rem > 0 {
			chunks = append(chunks, chunk{pattern[n-fuseMaxBits:]})
		}
	} else {
		chunks = []chunk{{pattern}}
	}
	total, matched := 0.0, false
	for _, c := range chunks {
		m, s := bitap(text, c.pattern, threshold)
		matched = matched || m
		total += s
	}
	if !matched {
		return 1, false
	}
	score = total / float64(len(chunks))
	// Fuse's field-length norm: 1/sqrt(number of space-separated tokens),
	// rounded to 3 decimals, as the exponent of the score.
	tokens := len(strings.Fields(text))
	norm := 1.0
	if tokens > 0 {
		norm = math.Round(1/math.Sqrt(float64(tokens))*1000) / 1000
	}
	if score == 0 {
		score = math.SmallestNonzeroFloat64
	}
	return math.Pow(score, norm), true
}

// bitap is Fuse.js's search() for one pattern of at most 32 characters
// with ignoreLocation (the score is errors/len) and findAllMatches.
func bitap(text, pattern string, threshold float64) (bool, float64) {
	pl, tl := len(pattern), len(text)
	if pl == 0 {
		return true, 0
	}
	alphabet := map[byte]uint32{}
	for i := 0; i < pl; i++ {
		alphabet[pattern[i]] |= 1 << uint(pl-i-1)
	}
	accuracy := func(errors int) float64 { return float64(errors) / float64(pl) }
	current := threshold
	if strings.Contains(text, pattern) {
		current = math.Min(0, current)
	}
	best := -1
	final := 1.0
	mask := uint32(1) << uint(pl-1)
	var last []uint32
	for i := 0; i < pl; i++ {
		// With ignoreLocation the window is the whole text.
		start, finish := 1, tl
		bits := make([]uint32, finish+2)
		bits[finish+1] = (1 << uint(i)) - 1
		for j := finish; j >= start; j-- {
			loc := j - 1
			cm := uint32(0)
			if loc < tl {
				cm = alphabet[text[loc]]
			}
			bits[j] = ((bits[j+1] << 1) | 1) & cm
			if i > 0 {
				bits[j] |= ((last[j+1] | last[j]) << 1) | 1 | last[j+1]
			}
			if bits[j]&mask != 0 {
				final = accuracy(i)
				if final <= current {
					current = final
					best = loc
					if best <= 0 {
						break
					}
				}
			}
		}
		if accuracy(i+1) > current {
			break
		}
		last = bits
	}
	if best < 0 {
		return false, math.Max(0.001, final)
	}
	return true, math.Max(0.001, final)
}
