package scope_test

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/linksrus/linksrus/crawler/scope"
)

func Example() {
	seed, _ := url.Parse("https://www.example.com/")
	s, err := scope.New(scope.Config{
		MaxDepth:    3,
		SeedDomains: true, // stay on example.com and its subdomains
		Exclude:     []string{`\.(pdf|zip)$`},
		Filter: func(u *url.URL, depth int) bool {
			return !strings.HasPrefix(u.Path, "/cart")
		},
	}, []*url.URL{seed})
	if err != nil {
		panic(err)
	}
	for _, link := range []struct {
		url   string
		depth int
	}{
		{"https://blog.example.com/post", 1},
		{"https://other.org/", 1},
		{"https://www.example.com/a.pdf", 1},
		{"https://www.example.com/cart/1", 2},
		{"https://www.example.com/deep", 4},
	} {
		u, _ := url.Parse(link.url)
		fmt.Printf("%s: %v\n", link.url, s.Check(u, link.depth))
	}
	// Output:
	// https://blog.example.com/post: in scope
	// https://other.org/: domain not accepted
	// https://www.example.com/a.pdf: excluded by pattern
	// https://www.example.com/cart/1: rejected by filter
	// https://www.example.com/deep: too deep
}

// New's errors say which setting was wrong, and with what value, for a
// caller to report in its own terms.
func ExampleConfigError() {
	_, err := scope.New(scope.Config{Domains: []string{"example.com", "www.example.org"}}, nil)
	var ce *scope.ConfigError
	if errors.As(err, &ce) {
		fmt.Println(ce.Field, ce.Value)
		fmt.Println(ce.Problem)
	}
	fmt.Println(errors.Is(err, scope.ErrConfig))
	// Output:
	// Domains www.example.org
	// is not a registrable domain (its registrable domain is "example.org")
	// true
}
