package robots_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/linksrus/linksrus/crawler/robots"
)

func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /\n\nUser-agent: linksrus\nDisallow: /private/\nCrawl-delay: 1.5\n")
	}))
	defer srv.Close()

	checker, err := robots.New(http.DefaultClient, robots.Options{RobotName: "linksrus"})
	if err != nil {
		panic(err)
	}
	defer checker.Close()

	for _, path := range []string{"/public/page", "/private/page", "/robots.txt"} {
		u, _ := url.Parse(srv.URL + path)
		d, err := checker.Allowed(context.Background(), u)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s allowed=%v delay=%v (%v)\n", path, d.Allowed, d.CrawlDelay, d.Basis)
	}
	// Output:
	// /public/page allowed=true delay=1.5s (robots.txt rules)
	// /private/page allowed=false delay=1.5s (robots.txt rules)
	// /robots.txt allowed=true delay=0s (robots.txt path)
}

func ExampleParse() {
	rules := robots.Parse([]byte("User-agent: *\nDisallow: /*.pdf$\nAllow: /docs/\n"), "linksrus")
	fmt.Println(rules.Allowed("/docs/a.html"), rules.Allowed("/docs/a.pdf"), rules.Allowed("/a.pdf?x=1"))
	// Output: true false true
}
