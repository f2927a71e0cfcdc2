package terms

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestStemmerFor(t *testing.T) {
	for _, tc := range []struct{ lang, term, want string }{
		{"", "vacuuming", "vacuum"}, // English by default
		{"en", "replicas", "replica"},
		{"EN-gb", "indexes", "index"},
		{"en_US", "running", "run"},
		{"fr", "maisons", "maison"},
		{"es-MX", "canciones", "cancion"},
		{"de", "häuser", "häuser"},         // no German stemmer: the term itself
		{"x$%;drop", "running", "running"}, // not a tag
		{"en", "the", "the"},               // stop words are left alone
		{"en", strings.Repeat("ing", 30), strings.Repeat("ing", 30)},
	} {
		if got := StemmerFor(tc.lang).Stem(tc.term); got != tc.want {
			t.Errorf("StemmerFor(%q).Stem(%q) = %q, want %q", tc.lang, tc.term, got, tc.want)
		}
	}
	got := StemmerFor("en").Stems([]string{"vacuumed", "the", "tables"})
	if len(got) != 2 || got[0] != StemMark+"vacuum" || got[1] != StemMark+"tabl" {
		t.Errorf("Stems = %q, want the stems of vacuumed and tables, the stop word left out", got)
	}
	if got := StemmerFor("de").Stems([]string{"die", "häuser"}); len(got) != 2 {
		t.Errorf("Stems without a stemmer = %q, want every word as its own stem", got)
	}
}

// FuzzStem holds every stemmer to what the backends rely on: a term's stem
// is a non-empty string of term runes, and stemming never panics.
func FuzzStem(f *testing.F) {
	for _, s := range []string{"vacuuming", "ëëë", "x²", "東京", "ыть", "ing", "sses", "generously"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want strings.Builder
		for _, st := range StemmerFor("en").Stems(Split(s)) {
			want.WriteString(st + " ")
		}
		if got := string(StemmerFor("en").AppendStems(nil, s)); got != want.String() {
			t.Fatalf("AppendStems(%q) = %q, want %q", s, got, want.String())
		}
		for _, term := range Split(s) {
			for lang := range stemmers {
				got := StemmerFor(lang).Stem(term)
				if got == "" || !utf8.ValidString(got) {
					t.Fatalf("%s stem of %q = %q", lang, term, got)
				}
				for _, r := range got {
					if !IsTermRune(r) {
						t.Fatalf("%s stem of %q = %q holds %q", lang, term, got, r)
					}
				}
			}
		}
	})
}

// AppendStems writes what Stems of Split writes, and is as safe to call
// from many goroutines as the cache it shares.
func TestAppendStems(t *testing.T) {
	text := "Vacuuming, the TABLES: vacuumed; Größe 東京 x² "
	want := strings.Join(StemmerFor("en").Stems(Split(text)), " ") + " "
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for n := range 2000 {
				extra := fmt.Sprintf(" word%d", n) // new terms, so that the cache grows and is published
				got := string(StemmerFor("en").AppendStems(nil, text+extra))
				if !strings.HasPrefix(got, want) {
					t.Errorf("AppendStems = %q, want it to start with %q", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkAppendStems stems a page's worth of English text, as every
// backend does for each document it indexes.
func BenchmarkAppendStems(b *testing.B) {
	text := strings.Repeat("VACUUM reclaims storage occupied by dead tuples. In normal PostgreSQL operation, tuples that are deleted or obsoleted by an update are not physically removed from their table; 42 x² Größe. ", 60)
	st := StemmerFor("en")
	var buf []byte
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		buf = st.AppendStems(buf[:0], text)
	}
}
