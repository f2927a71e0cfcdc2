package crawler

import (
	"fmt"
	"net/http"
)

// HeadFirstGetter is a URLGetter that asks with a HEAD request before each
// GET, and answers with the HEAD's response when it shows a 2xx non-HTML
// resource: the Fetcher then skips the URL with ReasonContentType without
// downloading a byte of the body. For every other HEAD answer (HTML, no
// Content-Type, a redirect, an error status such as 405 from servers that
// do not implement HEAD, a failed request) it sends the GET as asked.
//
// It costs a round trip per HTML page, so it pays off only where many
// links lead to large non-HTML resources that their URL does not betray
// (the Fetcher already skips names ending in .png, .pdf and the like). It
// is safe for concurrent use; requests other than GET are passed on as
// they are.
type HeadFirstGetter struct {
	next URLGetter
}

// NewHeadFirstGetter returns a HeadFirstGetter sending requests through
// next; it fails, with an error wrapping ErrInvalidConfig, for a nil next.
func NewHeadFirstGetter(next URLGetter) (*HeadFirstGetter, error) {
	if next == nil {
		return nil, fmt.Errorf("%w: HeadFirstGetter needs a URLGetter", ErrInvalidConfig)
	}
	return &HeadFirstGetter{next: next}, nil
}

// WithoutRedirects implements RedirectDisabler.
func (g *HeadFirstGetter) WithoutRedirects() URLGetter {
	return &HeadFirstGetter{next: withoutRedirects(g.next)}
}

// Do implements URLGetter.
func (g *HeadFirstGetter) Do(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && req.Method != "" {
		return g.next.Do(req)
	}
	head := req.Clone(req.Context())
	head.Method = http.MethodHead
	head.Body, head.GetBody, head.ContentLength = nil, nil, 0
	res, err := g.next.Do(head)
	if err != nil {
		if req.Context().Err() != nil {
			return nil, err // the GET could not go out either
		}
		return g.next.Do(req)
	}
	if res.Body == nil {
		res.Body = http.NoBody
	}
	if headSaysNotHTML(res) {
		return res, nil
	}
	drain(res.Body)
	return g.next.Do(req)
}

// headSaysNotHTML reports whether a HEAD's answer settles that the resource
// is not HTML: a 2xx with a Content-Type that is not HTML. Anything else
// (HTML, no type, a redirect, an error such as 405 from servers without
// HEAD) is for the GET to settle. The Fetcher's HEAD step and
// HeadFirstGetter decide alike.
func headSaysNotHTML(res *http.Response) bool {
	ct := res.Header.Get("Content-Type")
	return res.StatusCode >= 200 && res.StatusCode <= 299 && ct != "" && !isHTML(ct)
}
