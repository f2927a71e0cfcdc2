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

	rules, basis, err := robots.Fetch(context.Background(), http.DefaultClient, srv.URL, robots.Options{RobotName: "linksrus"})
	if err != nil {
		panic(err)
	}
	delay, _ := rules.CrawlDelay()
	fmt.Printf("%v, Crawl-delay %v\n", basis, delay)
	for _, path := range []string{"/public/page", "/private/page"} {
		u, _ := url.Parse(srv.URL + path)
		fmt.Printf("%s allowed=%v\n", path, rules.AllowedURL(u))
	}
	// Output:
	// robots.txt rules, Crawl-delay 1.5s
	// /public/page allowed=true
	// /private/page allowed=false
}

func ExampleParse() {
	rules := robots.Parse([]byte("User-agent: *\nDisallow: /*.pdf$\nAllow: /docs/\n"), "linksrus")
	fmt.Println(rules.Allowed("/docs/a.html"), rules.Allowed("/docs/a.pdf"), rules.Allowed("/a.pdf?x=1"))
	// Output: true false true
}
