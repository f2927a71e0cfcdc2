package textindex_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/linksrus/linksrus/textindex"
)

func marked(s textindex.Snippet) string {
	var b strings.Builder
	for _, p := range s {
		if p.Match {
			b.WriteString("[" + p.Text + "]")
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func TestMakeSnippet(t *testing.T) {
	long := strings.Repeat("filler words here ", 30)
	for _, tc := range []struct {
		name, text, query string
		typ               textindex.QueryType
		want              string
	}{
		{"short text, words marked case-insensitively", "The Gopher digs.  A gopher\nrests.", "gopher", textindex.QueryTypeSearch,
			"The [Gopher] digs. A [gopher] rests."},
		{"whole words only", "gophers and a gopher", "gopher", textindex.QueryTypeSearch, "gophers and a [gopher]"},
		{"accents kept", "café and cafe", "café", textindex.QueryTypeSearch, "[café] and cafe"},
		{"phrase words marked", "go is fun, fun is go", `"is fun"`, textindex.QueryTypeSearch, "go [is] [fun], [fun] [is] go"},
		{"exclusions and sites not marked", "rust and go on go.dev", "go -rust site:go.dev", textindex.QueryTypeSearch,
			"rust and [go] on [go].dev"},
		{"no match: the beginning", "nothing to see here", "absent", textindex.QueryTypeMatch, "nothing to see here"},
		{"match query", "a b c", "c a", textindex.QueryTypeMatch, "[a] b [c]"},
		{"window around the match", long + "the needle is here " + long, "needle", textindex.QueryTypeSearch, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := textindex.MakeSnippet(tc.text, textindex.Query{Type: tc.typ, Expression: tc.query}, 120)
			got := marked(s)
			if tc.want != "" && got != tc.want {
				t.Errorf("snippet = %q, want %q", got, tc.want)
			}
			if tc.want == "" {
				if !strings.Contains(got, "[needle]") || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
					t.Errorf("snippet = %q, want …[needle]… from the middle", got)
				}
				if n := len(s.String()); n > 120+2*len(textindex.Ellipsis) {
					t.Errorf("snippet of %d bytes, want about 120", n)
				}
			}
		})
	}
}

// TestMakeSnippetPrefersMoreWords checks that the stretch holding both
// words wins over an earlier one holding one.
func TestMakeSnippetPrefersMoreWords(t *testing.T) {
	text := "alpha " + strings.Repeat("x ", 200) + "alpha beta " + strings.Repeat("y ", 200)
	got := marked(textindex.MakeSnippet(text, textindex.Query{Type: textindex.QueryTypeSearch, Expression: "alpha beta"}, 80))
	if !strings.Contains(got, "[alpha] [beta]") {
		t.Errorf("snippet = %q, want the stretch with both words", got)
	}
}

func FuzzMakeSnippet(f *testing.F) {
	f.Add("The Gopher digs, a gopher rests", "gopher", 40)
	f.Add("é\u0301 x", "é", 1)
	f.Add(strings.Repeat("ab ", 100), `"ab ab" -c site:x`, 50)
	f.Fuzz(func(t *testing.T, text, query string, width int) {
		if width > 1<<16 || width < -1<<16 {
			return
		}
		q := textindex.Query{Type: textindex.QueryTypeSearch, Expression: query}
		s := textindex.MakeSnippet(text, q, width)
		out := s.String()
		if !utf8.ValidString(text) {
			return
		}
		if !utf8.ValidString(out) {
			t.Fatalf("snippet %q of valid text is not valid UTF-8", out)
		}
		plain := strings.Join(strings.Fields(text), " ")
		inner := strings.TrimSuffix(strings.TrimPrefix(out, textindex.Ellipsis), textindex.Ellipsis)
		if !strings.Contains(plain, inner) {
			t.Fatalf("snippet %q is not a piece of the text %q", out, plain)
		}
		if len(inner) > max(width, 40) {
			t.Fatalf("snippet of %d bytes, width %d", len(inner), width)
		}
		for _, p := range s {
			if p.Match && p.Text == "" {
				t.Fatalf("empty match in %#v", s)
			}
		}
	})
}

// TestMakeSnippetCutsAtWords: a snippet never starts or ends inside a word.
func TestMakeSnippetCutsAtWords(t *testing.T) {
	long := strings.Repeat("x", 300)
	text := long + "-gopher " + strings.Repeat("word ", 100)
	got := marked(textindex.MakeSnippet(text, textindex.Query{Type: textindex.QueryTypeSearch, Expression: "gopher"}, 80))
	if !strings.HasPrefix(got, "…[gopher] word") {
		t.Errorf("snippet = %q, want it to start at the match, not inside the x's", got)
	}
	got = marked(textindex.MakeSnippet("gopher "+strings.Repeat("y", 500), textindex.Query{Type: textindex.QueryTypeSearch, Expression: "gopher"}, 80))
	if got != "[gopher]…" {
		t.Errorf("snippet = %q, want [gopher]… (no piece of the long word)", got)
	}
}
