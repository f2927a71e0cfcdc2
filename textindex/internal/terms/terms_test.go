package terms

import (
	"slices"
	"testing"

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
