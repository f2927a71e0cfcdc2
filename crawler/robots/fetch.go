package robots

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

var (
	allowAll    = &Rules{allowAll: true, specificDelay: -1, globalDelay: -1}
	disallowAll = &Rules{disallowAll: true, specificDelay: -1, globalDelay: -1}
)

// fetch retrieves origin's robots.txt, following redirects itself (so it
// works with clients that do not follow them), and maps the outcome to
// rules per RFC 9309 2.3.1.
func (c *Checker) fetch(ctx context.Context, origin string) (*Rules, Basis) {
	target := origin + "/robots.txt"
	for hop := 0; ; hop++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return disallowAll, BasisUnreachable
		}
		req.Header.Set("User-Agent", c.opts.UserAgent)
		resp, err := c.get.Do(req)
		if err != nil {
			return disallowAll, BasisUnreachable
		}
		code := resp.StatusCode
		switch {
		case code >= 200 && code < 300:
			body, err := readLimited(resp.Body, c.opts.MaxSize)
			_ = resp.Body.Close()
			if err != nil { // a truncated file could drop a Disallow
				return disallowAll, BasisUnreachable
			}
			return Parse(body, c.opts.RobotName), BasisRules
		case code >= 300 && code < 400:
			loc := resp.Header.Get("Location")
			discard(resp.Body)
			if loc == "" || hop >= c.opts.MaxRedirects {
				return allowAll, BasisUnavailable
			}
			next, err := req.URL.Parse(loc)
			if err != nil || (next.Scheme != "http" && next.Scheme != "https") || next.Host == "" {
				return allowAll, BasisUnavailable
			}
			target = next.String()
		case code == http.StatusTooManyRequests:
			discard(resp.Body)
			return disallowAll, BasisUnreachable
		case code >= 400 && code < 500:
			discard(resp.Body)
			return allowAll, BasisUnavailable
		default:
			discard(resp.Body)
			return disallowAll, BasisUnreachable
		}
	}
}

// readLimited reads at most limit bytes of r; if there is more, the text
// is cut after its last complete line so that no rule is half-read.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		body = body[:limit]
		if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
			body = body[:i+1]
		}
	}
	return body, nil
}

// discard reads a little of an unused body before closing it, so the
// connection can be reused for the next request to the host.
func discard(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	_ = body.Close()
}
