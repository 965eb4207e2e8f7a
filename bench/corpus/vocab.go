package corpus

import (
	"math/rand/v2"
	"strings"
)

// commonWords are real English words, placed at the head of the Zipf
// distribution so stop-word handling and stemming see natural text.
var commonWords = strings.Fields(`
the of and to in a is that for it as was with be by on not he this are or
his from at which but have an they you were her she there been one all we
their has would when if so no will can more about what up other into out
time them some could then than these only its two may first new also after
any use way our well should because each just those people how too used
system data file index search query result model server client request
response cache memory disk thread process value error config build test
release version update document note page section link table code function
method type field record user team project meeting review design plan task
issue change feature support network service storage database schema
vector token text language time date week month year report summary
between through during before under around while where since without
within against among across along following behind beyond toward upon
make take give find know think see come want look need feel become leave
put mean keep let begin seem help show hear play run move live believe
bring happen write provide sit stand lose pay meet include continue set
learn lead understand watch follow stop create speak read allow add spend
grow open walk win offer remember love consider appear buy wait serve die
send expect stay fall cut reach kill remain suggest raise pass sell
require decide pull return explain hope develop carry break receive agree
support hit produce eat cover catch draw choose cause point listen
realize place close involve increase apply measure compare reduce improve
`)

// syllables build the long tail of pseudo-words: enough distinct terms
// (tens of thousands) that posting lists have a realistic spread.
var (
	onsets  = strings.Fields("b c d f g h j k l m n p r s t v w z br cr dr fl gr pl pr st tr sh ch th")
	nuclei  = strings.Fields("a e i o u ai ea io ou")
	codas   = []string{"", "", "n", "r", "s", "t", "l", "m", "x", "nd", "rt", "st"}
	endings = []string{"", "", "", "ing", "ed", "er", "ion", "al", "ity", "ous", "ment", "s"}
)

const tailWords = 30000

// vocab is the fixed vocabulary, common words first. It does not depend on
// the corpus seed, so corpora of different seeds share term statistics.
var vocab = buildVocab()

func buildVocab() []string {
	r := rand.New(rand.NewPCG(1, 2))
	seen := make(map[string]bool, tailWords+len(commonWords))
	out := make([]string, 0, tailWords+len(commonWords))
	for _, w := range commonWords {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for len(out) < tailWords+len(commonWords) {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			b.WriteString(onsets[r.IntN(len(onsets))])
			b.WriteString(nuclei[r.IntN(len(nuclei))])
			b.WriteString(codas[r.IntN(len(codas))])
		}
		b.WriteString(endings[r.IntN(len(endings))])
		w := b.String()
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
