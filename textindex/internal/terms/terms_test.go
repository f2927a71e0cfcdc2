package terms

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		"":                     nil,
		"  ...!!! \t":          nil,
		`"quoted" OR (group)*`: {"quoted", "or", "group"},
		"Café CRÈME brûlée":    {"café", "crème", "brûlée"},
		"cafe\u0301":           {"cafe\u0301"}, // decomposed accent stays with its letter
		"東京タワー 北京":             {"東京タワー", "北京"},
		"x² ½ Ⅻ":               {"x²", "½", "ⅻ"},
		"don't-stop_now":       {"don", "t", "stop", "now"},
		"a:b NEAR/2 c^d":       {"a", "b", "near", "2", "c", "d"},
		"'); DROP TABLE x; --": {"drop", "table", "x"},
		"emoji 🎉 between":      {"emoji", "between"},
		"MОСКВА":               {"mосква"},
	} {
		if got := Split(in); !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "a b", `"x" OR y*`, "東京", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range Split(s) {
			if term == "" {
				t.Fatalf("Split(%q) returned an empty term", s)
			}
			for _, r := range term {
				if !IsTermRune(r) {
					t.Fatalf("Split(%q) term %q holds separator %q", s, term, r)
				}
			}
		}
	})
}

func TestQueryBounds(t *testing.T) {
	words, cut := Query("Go go GO gopher go", false)
	if strings.Join(words, " ") != "go gopher" || cut {
		t.Errorf("match dedup: %q cut=%v", words, cut)
	}
	words, cut = Query("new york new york", true)
	if strings.Join(words, " ") != "new york new york" || cut {
		t.Errorf("phrase keeps repetitions: %q cut=%v", words, cut)
	}
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf("w%d", i))
	}
	words, cut = Query(strings.Join(many, " "), false)
	if len(words) != MaxQueryTerms || !cut || words[31] != "w31" {
		t.Errorf("40 terms: %d kept, cut=%v", len(words), cut)
	}
	// 8,000 repetitions of one word: one term, nothing cut but the bytes.
	words, cut = Query(strings.Repeat("gopher ", 8000), false)
	if len(words) != 1 || !cut {
		t.Errorf("50 KB of one word: %q cut=%v", words, cut)
	}
	// The 4 KB cut never splits a character.
	long := "a " + strings.Repeat("é", MaxQueryBytes) // 2 bytes each
	words, _ = Query(long, false)
	if len(words) != 1 || words[0] != "a" {
		t.Errorf("a word cut at 4 KB: %q, want it left out", words)
	}
	words, _ = Query(strings.Repeat("é ", MaxQueryBytes), false)
	if len(words) != 1 || !utf8.ValidString(words[0]) {
		t.Errorf("cut inside a rune: %q", words)
	}
}

func TestParseSearch(t *testing.T) {
	for in, want := range map[string]string{
		`gopher news`:                                `gopher news`,
		`Gopher gopher NEWS`:                         `gopher news`,
		`"quick brown fox" lazy`:                     `lazy "quick brown fox"`,
		`"one"`:                                      `one`,
		`fox -lazy -"brown dog"`:                     `fox -lazy -brown -dog`,
		`fox - lazy`:                                 `fox lazy`,
		`fox site:Example.COM site:example.com`:      `fox site:example.com`,
		`fox site:https://docs.example.com:8080/x`:   `fox site:docs.example.com:8080`,
		`fox site:example.com:8080`:                  `fox site:example.com:8080`,
		`fox site:Example.com.:08080/docs`:           `fox site:example.com:8080`,
		`fox site:example.com: site:example.com:/`:   `fox site:example.com`,
		`fox site:https://example.com:443/`:          `fox site:example.com`,
		`fox site:http://example.com:443/`:           `fox site:example.com:443`,
		`fox site:example.com:8080 site:example.com`: `fox site:example.com:8080 site:example.com`,
		`fox site:[::1]:8080 site:http://[::1]/`:     `fox site:[::1]:8080 site:[::1]`,
		`fox site:`:                                  `fox site`,
		`fox site:"bad host"`:                        `fox host`,
		`"unterminated phrase here`:                  `"unterminated phrase here"`,
		`-only -negative`:                            `-only -negative`,
		`"a b" "a b" c`:                              `c "a b"`,
		`apple OR pear*`:                             `apple or pear`,
		``:                                           ``,
	} {
		got, cut := ParseSearch(in)
		if got.String() != want || cut {
			t.Errorf("ParseSearch(%q) = %q (cut %v), want %q", in, got.String(), cut, want)
		}
	}
	if s, _ := ParseSearch(`-only site:x.org`); s.Positive() {
		t.Error("a query of exclusions and sites counts as positive")
	}
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf("w%d", i))
	}
	s, cut := ParseSearch(strings.Join(many, " ") + ` "a b"`)
	if len(s.Words) != MaxQueryTerms || len(s.Phrases) != 0 || !cut {
		t.Errorf("40 words and a phrase: %d words, %d phrases, cut %v", len(s.Words), len(s.Phrases), cut)
	}
	if _, cut := ParseSearch(strings.Repeat("x", MaxQueryBytes+10)); !cut {
		t.Error("a query over MaxQueryBytes is not cut")
	}
}

func TestSites(t *testing.T) {
	for _, tc := range []struct {
		site, url string
		holds     bool
	}{
		{"example.com", "http://example.com/", true},
		{"example.com", "https://Example.COM./x", true},
		{"example.com", "http://example.com:80/", true},
		{"example.com", "https://example.com:443/", true},
		{"example.com", "https://example.com:80/", false},
		{"example.com", "http://example.com:8080/", false},
		{"example.com", "http://docs.example.com/", true},
		{"example.com", "http://notexample.com/", false},
		{"example.com", "http://example.com.evil.org/", false},
		{"example.com", "http://evil.org/?example.com", false},
		{"example.com:8080", "http://example.com:8080/", true},
		{"example.com:8080", "http://docs.example.com:08080/", true},
		{"example.com:8080", "http://example.com/", false},
		{"example.com:443", "https://example.com/", true},
		{"example.com:443", "http://example.com/", false},
		{"127.0.0.1:8081", "http://127.0.0.1:8081/", true},
		{"127.0.0.1:8081", "http://127.0.0.1:18083/", false},
		{"0.0.1:8081", "http://127.0.0.1:8081/", false},
		{"[::1]:8081", "http://[::1]:8081/", true},
		{"[::1]", "http://[::1]:8081/", false},
		{"example.com", "mailto:someone@example.com", false},
		{"example.com", "http://example.com:x/", false},
	} {
		s, ok := ParseSite(tc.site)
		if !ok {
			t.Fatalf("ParseSite(%q) failed", tc.site)
		}
		p, _ := PlaceOf(tc.url)
		if got := s.Holds(p); got != tc.holds {
			t.Errorf("site:%s holds %s = %v, want %v", tc.site, tc.url, got, tc.holds)
		}
	}
	for _, bad := range []string{"", ":8080", "example.com:0", "example.com:65536", "example.com:x", "example.com:80:90",
		"[::1", "[nothost]", "[fe80::1%25eth0]", "[127.0.0.1]", "ex ample.com", "https://", "...", "[::1]x"} {
		if s, ok := ParseSite(bad); ok {
			t.Errorf("ParseSite(%q) = %+v, want it refused", bad, s)
		}
	}
	for u, want := range map[string]string{
		"http://Example.com:80/":       "example.com",
		"https://example.com:8443/a?b": "example.com:8443",
		"http://[::1]:8080/":           "[::1]:8080",
		"ftp://example.com/":           "example.com",
	} {
		if p, ok := PlaceOf(u); !ok || p.Site().String() != want {
			t.Errorf("PlaceOf(%q).Site() = %q, want %q", u, p.Site(), want)
		}
	}
}

func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{`a "b c" -d site:e.f`, `"`, `-`, `site:`, `-"x y"`, "\xff\"\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, _ := ParseSearch(in)
		n := len(s.Words) + len(s.Exclude) + len(s.Sites)
		for _, p := range s.Phrases {
			n += len(p)
			if len(p) < 2 {
				t.Fatalf("ParseSearch(%q): phrase of %d words", in, len(p))
			}
		}
		if n > MaxQueryTerms {
			t.Fatalf("ParseSearch(%q): %d terms", in, n)
		}
		for _, w := range append(append([]string{}, s.Words...), s.Exclude...) {
			if w == "" || strings.ToLower(w) != w {
				t.Fatalf("ParseSearch(%q): term %q", in, w)
			}
		}
		// What it writes back parses to the same query.
		again, _ := ParseSearch(s.String())
		if again.String() != s.String() {
			t.Fatalf("ParseSearch(%q) = %q, which parses back to %q", in, s.String(), again.String())
		}
	})
}

func TestURLTerms(t *testing.T) {
	for _, c := range []struct {
		url  string
		want []string
	}{
		{"https://example.com/docs/sql-vacuum.html", []string{"docs", "sql", "vacuum", "html"}},
		{"http://127.0.0.1:8081/Café/Über%20uns?q=skip#frag", []string{"café", "über", "uns"}},
		{"https://example.com", nil},
		{"https://example.com/%zz-bad", nil}, // does not parse
		{"/relative/path_name", []string{"relative", "path", "name"}},
	} {
		if got := URLTerms(c.url); !slices.Equal(got, c.want) {
			t.Errorf("URLTerms(%q) = %q, want %q", c.url, got, c.want)
		}
	}
}
