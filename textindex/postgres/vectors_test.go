package postgres

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// TestDocumentVectors checks the vectors' lexemes, positions and labels:
// the terms as the other backends split them, fields a position apart,
// stems of the stemmed terms only, counted among themselves; headings
// labelled C between the URL and the text, and no headings taking no
// position, so that a document without them has the vectors of before.
func TestDocumentVectors(t *testing.T) {
	for _, c := range []struct {
		title, urlTerms, headings, body string
		exact, stems                    string
	}{
		// "the" and "were" are stop words: no stems, no positions.
		{"The pg_hba.conf File", "auth pg hba", "", "Tables were vacuumed.",
			"'auth':7B 'conf':4A 'file':5A 'hba':3A,9B 'pg':2A,8B 'tables':11 'the':1A 'vacuumed':13 'were':12",
			"'auth':6B 'conf':3A 'file':4A 'hba':2A,8B 'pg':1A,7B 'tabl':10 'vacuum':11"},
		{"Setup", "auth", "Vacuuming\nThe Tables", "Vacuuming the tables.",
			"'auth':3B 'setup':1A 'tables':7C,11 'the':6C,10 'vacuuming':5C,9",
			"'auth':3B 'setup':1A 'tabl':6C,9 'vacuum':5C,8"},
	} {
		exact, stems := newVectors().document(c.title, c.urlTerms, c.headings, c.body, terms.StemmerFor("en"))
		if got := exact.String(); got != c.exact {
			t.Errorf("exact of %q:\n got %s\nwant %s", c.headings, got, c.exact)
		}
		if got := stems.String(); got != c.stems {
			t.Errorf("stems of %q:\n got %s\nwant %s", c.headings, got, c.stems)
		}
	}
}

// TestVectorBounds checks what PostgreSQL's limits make of a long text: a
// lexeme over 2047 bytes is left out, a term keeps its first 255
// positions, terms past position 16383 are all there (once each), and
// the text is cut at its 131072nd character.
func TestVectorBounds(t *testing.T) {
	long := strings.Repeat("x", maxLexeme+1)
	body := long + " " + strings.Repeat("word ", 20000) + "late " + strings.Repeat("é", maxBodyChars) + " cut"
	exact, _ := newVectors().document("", "", "", body, terms.StemmerFor(""))
	got := make(map[string][]pgtype.TSVectorPosition)
	for _, l := range exact.Lexemes {
		got[l.Word] = l.Positions
	}
	if _, ok := got[long]; ok {
		t.Errorf("a lexeme of %d bytes was kept", len(long))
	}
	if _, ok := got["cut"]; ok {
		t.Error("a term after the 131072nd character was kept")
	}
	if n := len(got["word"]); n != maxPositions || got["word"][0].Position != 2 {
		t.Errorf("word: %d positions from %v, want %d from 2", n, got["word"][0], maxPositions)
	}
	if late := got["late"]; len(late) != 1 || late[0].Position != maxPosition {
		t.Errorf("late: %v, want one position, %d", late, maxPosition)
	}
	checkVector(t, exact)
}

// checkVector fails t unless v is what PostgreSQL's binary input takes
// without sorting: lexemes distinct in byte order, of at most maxLexeme
// bytes, each with 1 to maxPositions positions rising from 1 to
// maxPosition.
func checkVector(t *testing.T, v pgtype.TSVector) {
	t.Helper()
	for n, l := range v.Lexemes {
		if l.Word == "" || len(l.Word) > maxLexeme || n > 0 && v.Lexemes[n-1].Word >= l.Word {
			t.Fatalf("lexeme %d %q after %q", n, l.Word, v.Lexemes[max(n-1, 0)].Word)
		}
		if len(l.Positions) == 0 || len(l.Positions) > maxPositions {
			t.Fatalf("lexeme %q has %d positions", l.Word, len(l.Positions))
		}
		for i, p := range l.Positions {
			if p.Position < 1 || p.Position > maxPosition || i > 0 && p.Position <= l.Positions[i-1].Position {
				t.Fatalf("lexeme %q: positions %v", l.Word, l.Positions)
			}
		}
	}
}

// FuzzDocumentVectors holds the vectors of any text to what PostgreSQL
// accepts (checkVector), their lexemes to the terms package's, and one
// vectors reused from document to document to what a new one returns.
func FuzzDocumentVectors(f *testing.F) {
	for _, s := range []string{"", "a b a", "Größe 東京 x²", "\xff\xfe", "vacuuming the tables"} {
		f.Add(s, "en")
	}
	f.Add("nettoyées", "fr")
	reused := newVectors()
	f.Fuzz(func(t *testing.T, text, lang string) {
		st := terms.StemmerFor(lang)
		exact, stems := newVectors().document(text, text, text, text, st)
		checkVector(t, exact)
		checkVector(t, stems)
		var want []string
		for _, w := range terms.Split(text) {
			if len(w) <= maxLexeme {
				want = append(want, w)
			}
		}
		slices.Sort(want)
		want = slices.Compact(want)
		var words []string
		for _, l := range exact.Lexemes {
			words = append(words, l.Word)
		}
		if !slices.Equal(words, want) {
			t.Fatalf("lexemes %q, want the terms %q", words, want)
		}
		again, againStems := reused.document(text, text, text, text, st)
		if fmt.Sprint(again, againStems) != fmt.Sprint(exact, stems) {
			t.Fatalf("a reused vectors gave %v %v, a new one %v %v", again, againStems, exact, stems)
		}
	})
}

// TestTSQuery checks the text form of a query's terms: quoted, a phrase
// joined by <->, a quote or backslash escaped, a term too long refused.
func TestTSQuery(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
		ok    bool
	}{
		{[]string{"vacuum"}, `'vacuum'`, true},
		{[]string{"foreign", "key"}, `'foreign' <-> 'key'`, true},
		{[]string{`it's`, `a\b`}, `'it\'s' <-> 'a\\b'`, true},
		{[]string{strings.Repeat("x", maxLexeme+1)}, "", false},
	} {
		if got, ok := tsquery(c.words); got != c.want || ok != c.ok {
			t.Errorf("tsquery(%q) = %q, %v; want %q, %v", c.words, got, ok, c.want, c.ok)
		}
	}
}

// TestRankWeights: the labels' weights are at most 1, the largest 1; the
// headings' label makes a word found in a heading and the text outrank
// the word once in the text by BM25F's ratio (1.69 for the default
// weights: ts_rank then adds C to the text's D); no weight for the
// headings gives them none.
func TestRankWeights(t *testing.T) {
	for _, c := range []struct {
		w         textindex.Weights
		wantRatio float64 // (D + C) / D, or for C > D: (C + D/4) / D
	}{
		{textindex.DefaultWeights, 1.692},
		{textindex.Weights{Title: 10, URL: 5, Body: 1}, 1},
		{textindex.Weights{Headings: 8, Body: 1}, 1.941},
		{textindex.Weights{Headings: 1, Body: 1}, 1.375},
		{textindex.Weights{Headings: 100, Body: 1}, 2.174},
	} {
		r := rankWeights(c.w)
		if slices.Max(r) != 1 || slices.Min(r) < 0 {
			t.Errorf("%+v: weights %v, want the largest 1 and none negative", c.w, r)
		}
		d, h := float64(r[0]), float64(r[1])
		ratio := (d + h) / d
		if h > d {
			ratio = (h + d/4) / d
		}
		if math.Abs(ratio-c.wantRatio) > 0.001 {
			t.Errorf("%+v: weights %v rank a heading's word %.3f times the text's, want %.3f", c.w, r, ratio, c.wantRatio)
		}
	}
}
