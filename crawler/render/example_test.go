package render_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/linksrus/linksrus/crawler/render"
)

// A crawl renders a page it has fetched, answering the browser's requests
// with its own rules (here: refusing them all). It needs Chromium, so it
// is compiled and not run.
func Example() {
	ctx := context.Background()
	r, err := render.New(render.Options{Tabs: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	refuse := render.FetcherFunc(func(context.Context, *http.Request) (*render.Response, error) {
		return nil, errors.New("not fetched by this crawl")
	})
	body := []byte(`<div id=app></div><script>app.innerHTML = '<a href="/next">next</a>'</script>`)
	p, err := r.Render(ctx, "http://example.com/", body, "text/html", refuse)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Links)
}
