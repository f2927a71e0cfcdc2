package scope

import (
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Hosts compare as the crawler's normalised links have them, so a seed
// or an accepted domain spelt another way (an IPv4 address as browsers
// also read it, an IDN) still matches the links it names.
func TestCheckHostSpellings(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		seed string
		url  string
		want Reason
	}{
		{"numeric seed, dotted link", Config{SameHostOnly: true}, "http://0x7f.1:8080/", "http://127.0.0.1:8080/x", InScope},
		{"dotted seed, numeric link", Config{SameHostOnly: true}, "http://127.0.0.1/", "http://2130706433/x", InScope},
		{"numeric seed domain", Config{SeedDomains: true}, "http://0x7f.1/", "http://127.0.0.1/x", InScope},
		{"numeric seed, other address", Config{SameHostOnly: true}, "http://0x7f.1/", "http://127.0.0.2/", SkipHost},
		{"IDN seed, punycode link", Config{SameHostOnly: true}, "http://Bücher.example/", "http://xn--bcher-kva.example/", InScope},
		{"IDN domain, punycode link", Config{Domains: []string{"Bücher.example"}}, "http://a.example/", "http://www.xn--bcher-kva.example/", InScope},
		{"IPv6 seed", Config{SameHostOnly: true}, "http://[0:0::1]/", "http://[::1]/", InScope},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(c.cfg, []*url.URL{mustParse(t, c.seed)})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Check(mustParse(t, c.url), 1); got != c.want {
				t.Errorf("Check(%q) = %v, want %v", c.url, got, c.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	seeds := []*url.URL{mustParse(t, "https://www.example.com/"), mustParse(t, "http://127.0.0.1:8080/")}
	tests := []struct {
		name  string
		cfg   Config
		url   string
		depth int
		want  Reason
	}{
		{"zero config accepts", Config{}, "https://anything.org/x", 100, InScope},
		{"nil-like relative", Config{}, "/relative", 0, SkipInvalid},
		{"ftp invalid", Config{}, "ftp://example.com/", 0, SkipInvalid},
		{"depth at limit", Config{MaxDepth: 2}, "https://a.org/", 2, InScope},
		{"depth over limit", Config{MaxDepth: 2}, "https://a.org/", 3, SkipDepth},
		{"same host", Config{SameHostOnly: true}, "https://WWW.Example.com./p", 1, InScope},
		{"same host other port", Config{SameHostOnly: true}, "http://127.0.0.1:9999/", 1, InScope},
		{"other host", Config{SameHostOnly: true}, "https://blog.example.com/", 1, SkipHost},
		{"seed domain subdomain", Config{SeedDomains: true}, "https://blog.example.com/", 1, InScope},
		{"seed domain IP", Config{SeedDomains: true}, "http://127.0.0.1/", 1, InScope},
		{"seed domain other", Config{SeedDomains: true}, "https://example.org/", 1, SkipDomain},
		{"listed domain", Config{Domains: []string{"example.co.uk"}}, "http://a.b.example.co.uk/", 1, InScope},
		{"unlisted domain", Config{Domains: []string{"example.co.uk"}}, "http://other.co.uk/", 1, SkipDomain},
		{"public suffix host", Config{Domains: []string{"example.co.uk"}}, "http://co.uk/", 1, SkipDomain},
		{"localhost domain", Config{Domains: []string{"localhost"}}, "http://localhost:8080/", 1, InScope},
		{"excluded", Config{Exclude: []string{`\.pdf$`, `/private/`}}, "https://a.org/private/x", 1, SkipExcluded},
		{"not excluded", Config{Exclude: []string{`\.pdf$`}}, "https://a.org/x.html", 1, InScope},
		{"included", Config{Include: []string{`^https://a\.org/docs/`}}, "https://a.org/docs/1", 1, InScope},
		{"not included", Config{Include: []string{`^https://a\.org/docs/`}}, "https://a.org/blog/1", 1, SkipNotIncluded},
		{"exclude beats include", Config{Include: []string{`/docs/`}, Exclude: []string{`draft`}}, "https://a.org/docs/draft", 1, SkipExcluded},
		{"filter rejects", Config{Filter: func(u *url.URL, d int) bool { return !strings.Contains(u.RawQuery, "session") }}, "https://a.org/?session=1", 1, SkipFilter},
		{"filter sees depth", Config{Filter: func(u *url.URL, d int) bool { return d < 5 }}, "https://a.org/", 4, InScope},
		{"depth checked first", Config{MaxDepth: 1, SameHostOnly: true}, "https://other.org/", 2, SkipDepth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.cfg, seeds)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Check(mustParse(t, tt.url), tt.depth); got != tt.want {
				t.Errorf("Check(%q, %d) = %v, want %v", tt.url, tt.depth, got, tt.want)
			}
		})
	}
	s, _ := New(Config{}, nil)
	if got := s.Check(nil, 0); got != SkipInvalid {
		t.Errorf("Check(nil) = %v", got)
	}
}

func TestNewErrors(t *testing.T) {
	seed := []*url.URL{mustParse(t, "https://example.com/")}
	for name, tc := range map[string]struct {
		cfg   Config
		seeds []*url.URL
	}{
		"bad exclude":       {Config{Exclude: []string{"("}}, seed},
		"bad include":       {Config{Include: []string{"[a-"}}, seed},
		"subdomain listed":  {Config{Domains: []string{"www.example.com"}}, seed},
		"empty domain":      {Config{Domains: []string{""}}, seed},
		"negative depth":    {Config{MaxDepth: -1}, seed},
		"same host no seed": {Config{SameHostOnly: true}, nil},
		"relative seed":     {Config{}, []*url.URL{mustParse(t, "/x")}},
	} {
		if _, err := New(tc.cfg, tc.seeds); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
}

// New's errors say which setting is wrong, with its value, for a caller
// to report in its own terms (package engine names its Options' fields).
func TestNewErrorsNameTheSetting(t *testing.T) {
	seed := []*url.URL{mustParse(t, "https://example.com/")}
	for _, tc := range []struct {
		cfg          Config
		seeds        []*url.URL
		field        string
		value        any
		problemStart string
	}{
		{Config{Exclude: []string{"ok", "("}}, seed, "Exclude", "(", "is not a regular expression: error parsing regexp"},
		{Config{Include: []string{"[a-"}}, seed, "Include", "[a-", "is not a regular expression: error parsing regexp"},
		{Config{Domains: []string{"example.com", "www.example.com"}}, seed, "Domains", "www.example.com", `is not a registrable domain (its registrable domain is "example.com")`},
		{Config{Domains: []string{""}}, seed, "Domains", "", "is not a domain"},
		{Config{MaxDepth: -1}, seed, "MaxDepth", -1, "is negative"},
		{Config{SameHostOnly: true}, nil, "SameHostOnly", nil, "and SeedDomains need at least one seed"},
	} {
		_, err := New(tc.cfg, tc.seeds)
		var ce *ConfigError
		if !errors.As(err, &ce) || !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err = %v, want a *ConfigError matching ErrConfig", tc.cfg, err)
			continue
		}
		if ce.Field != tc.field || ce.Value != tc.value || !strings.HasPrefix(ce.Problem, tc.problemStart) {
			t.Errorf("%+v: %+v, want Field %q, Value %v, Problem %q...", tc.cfg, *ce, tc.field, tc.value, tc.problemStart)
		}
		if !strings.HasPrefix(err.Error(), "scope: invalid configuration: "+tc.field) {
			t.Errorf("%+v: message %q", tc.cfg, err)
		}
	}
}

func TestReasonString(t *testing.T) {
	for r := InScope; r <= SkipFilter; r++ {
		if s := r.String(); s == "" || strings.HasPrefix(s, "scope.Reason(") {
			t.Errorf("Reason %d has no name", r)
		}
	}
	if got := Reason(200).String(); got != "scope.Reason(200)" {
		t.Errorf("unknown reason String = %q", got)
	}
}

func TestConcurrentCheck(t *testing.T) {
	s, err := New(Config{SeedDomains: true, Exclude: []string{"zzz"}, MaxDepth: 3},
		[]*url.URL{mustParse(t, "https://example.com/")})
	if err != nil {
		t.Fatal(err)
	}
	u := mustParse(t, "https://a.example.com/page")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				if r := s.Check(u, 1); r != InScope {
					t.Errorf("Check = %v", r)
					return
				}
			}
		}()
	}
	wg.Wait()
}
