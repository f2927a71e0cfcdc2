package crawler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"github.com/linksrus/linksrus/crawler/mocks"
	"github.com/linksrus/linksrus/crawler/privnet"
)

// trackingBody is a response body that records whether it was read and
// closed.
type trackingBody struct {
	r      io.Reader
	read   bool
	closed bool
}

func (b *trackingBody) Read(p []byte) (int, error) { b.read = true; return b.r.Read(p) }
func (b *trackingBody) Close() error               { b.closed = true; return nil }

// endless is a body that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func response(req *http.Request, status int, contentType string, body io.Reader) *http.Response {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(body), ContentLength: -1, Request: req}
}

type fetchCase struct {
	name    string
	url     string
	private bool
	respond func(req *http.Request) (*http.Response, error) // nil: no request expected
	cfg     func(*Config)
	kept    bool
	reason  Reason
	errIs   error
	check   func(t *testing.T, p *Payload)
}

func runFetch(t *testing.T, c fetchCase) *Payload {
	t.Helper()
	ctrl := gomock.NewController(t)
	getter := mocks.NewMockURLGetter(ctrl)
	detector := mocks.NewMockPrivateNetworkDetector(ctrl)
	detector.EXPECT().IsPrivate(gomock.Any()).Return(c.private, nil).AnyTimes()
	if c.respond != nil {
		getter.EXPECT().Do(gomock.Any()).DoAndReturn(c.respond).Times(1)
	}
	// One request per case: no retries (retry_test.go has those).
	cfg := Config{FetchOptions: FetchOptions{URLGetter: getter, PrivateNetworkDetector: detector, MaxBodyBytes: 1024, FetchTimeout: time.Second,
		Retry: RetryPolicy{MaxRetries: -1}}}
	if c.cfg != nil {
		c.cfg(&cfg)
	}
	f, err := NewFetcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPayload([16]byte{1}, c.url, time.Time{})
	out, err := f.Process(context.Background(), p)
	if err != nil {
		t.Fatalf("Process: %v", err)
	}
	if kept := out != nil; kept != c.kept {
		t.Fatalf("kept = %v, want %v (reason %v, err %v)", kept, c.kept, p.outcome.reason, p.outcome.err)
	}
	if !c.kept && p.outcome.reason != c.reason {
		t.Errorf("reason = %v, want %v (err %v)", p.outcome.reason, c.reason, p.outcome.err)
	}
	if c.errIs != nil && !errors.Is(p.outcome.err, c.errIs) {
		t.Errorf("err = %v, want one matching %v", p.outcome.err, c.errIs)
	}
	if c.check != nil {
		c.check(t, p)
	}
	return p
}

func TestFetcher(t *testing.T) {
	html := func(body string) func(*http.Request) (*http.Response, error) {
		return func(req *http.Request) (*http.Response, error) {
			return response(req, 200, "text/html; charset=utf-8", strings.NewReader(body)), nil
		}
	}
	unread := &trackingBody{r: strings.NewReader("never read")}
	cases := []fetchCase{
		{
			name: "html page", url: "http://example.com/", respond: html("<p>hi</p>"), kept: true,
			check: func(t *testing.T, p *Payload) {
				if string(p.Body) != "<p>hi</p>" || p.StatusCode != 200 || p.FinalURL != "http://example.com/" {
					t.Errorf("payload = %q %d %q", p.Body, p.StatusCode, p.FinalURL)
				}
				if p.outcome.bytes != 9 || p.FetchedAt.IsZero() {
					t.Errorf("bytes %d, fetched at %v", p.outcome.bytes, p.FetchedAt)
				}
			},
		},
		{name: "xhtml", url: "http://example.com/", kept: true, respond: func(req *http.Request) (*http.Response, error) {
			return response(req, 200, "Application/XHTML+XML", strings.NewReader("<p/>")), nil
		}},
		{name: "image extension", url: "http://example.com/a.JPG", reason: ReasonExtension},
		{name: "extension with query", url: "http://example.com/a.pdf?download=1", reason: ReasonExtension},
		{name: "extension-like query is fine", url: "http://example.com/a?f=x.png", respond: html("ok"), kept: true},
		{name: "ftp scheme", url: "ftp://example.com/", reason: ReasonInvalidURL},
		{name: "relative URL", url: "/just/a/path", reason: ReasonInvalidURL},
		{name: "unparsable", url: "http://[::1", reason: ReasonInvalidURL},
		{name: "private host", url: "http://10.0.0.1/", private: true, reason: ReasonPrivateNetwork, errIs: privnet.ErrPrivateAddress},
		{name: "dial refused", url: "http://rebind.example/", reason: ReasonPrivateNetwork, errIs: privnet.ErrPrivateAddress,
			respond: func(*http.Request) (*http.Response, error) {
				return nil, fmt.Errorf("dial: %w", privnet.ErrPrivateAddress)
			}},
		{name: "connection error", url: "http://example.com/", reason: ReasonFetchError, errIs: io.ErrUnexpectedEOF,
			respond: func(*http.Request) (*http.Response, error) { return nil, io.ErrUnexpectedEOF }},
		{name: "getter skip error", url: "http://example.com/", reason: ReasonRobots,
			respond: func(*http.Request) (*http.Response, error) { return nil, Skip(ReasonRobots, nil) }},
		{name: "404 not read", url: "http://example.com/", reason: ReasonHTTPStatus,
			respond: func(req *http.Request) (*http.Response, error) {
				r := response(req, 404, "text/html", nil)
				r.Body = unread
				return r, nil
			},
			check: func(t *testing.T, p *Payload) {
				if unread.read || !unread.closed || p.StatusCode != 404 {
					t.Errorf("404 body read=%v closed=%v status=%d", unread.read, unread.closed, p.StatusCode)
				}
			}},
		{name: "image content type", url: "http://example.com/photo", reason: ReasonContentType,
			respond: func(req *http.Request) (*http.Response, error) {
				return response(req, 200, "image/png", endless{}), nil
			}},
		{name: "content-length too large", url: "http://example.com/", reason: ReasonTooLarge,
			respond: func(req *http.Request) (*http.Response, error) {
				r := response(req, 200, "text/html", endless{})
				r.ContentLength = 1 << 40
				return r, nil
			}},
		{name: "endless body", url: "http://example.com/", reason: ReasonTooLarge,
			respond: func(req *http.Request) (*http.Response, error) {
				return response(req, 200, "text/html", endless{}), nil
			},
			check: func(t *testing.T, p *Payload) {
				if p.outcome.bytes != 1025 {
					t.Errorf("read %d bytes, want MaxBodyBytes+1", p.outcome.bytes)
				}
			}},
		{name: "exactly the limit", url: "http://example.com/", kept: true,
			respond: func(req *http.Request) (*http.Response, error) {
				return response(req, 200, "text/html", strings.NewReader(strings.Repeat("a", 1024))), nil
			}},
		{name: "sniffed html", url: "http://example.com/", kept: true,
			respond: func(req *http.Request) (*http.Response, error) {
				return response(req, 200, "", strings.NewReader("<!DOCTYPE html><html><body>x")), nil
			}},
		{name: "sniffed binary", url: "http://example.com/", reason: ReasonContentType,
			respond: func(req *http.Request) (*http.Response, error) {
				return response(req, 200, "", bytes.NewReader([]byte("\x89PNG\r\n\x1a\n\x00\x00"))), nil
			}},
		{name: "windows-1252 from header", url: "http://example.com/", kept: true,
			respond: func(req *http.Request) (*http.Response, error) {
				return response(req, 200, "text/html; charset=windows-1252", strings.NewReader("caf\xe9 \x80")), nil
			},
			check: func(t *testing.T, p *Payload) {
				if string(p.Body) != "café €" {
					t.Errorf("body = %q", p.Body)
				}
			}},
		{name: "shift_jis from meta", url: "http://example.com/", kept: true,
			respond: func(req *http.Request) (*http.Response, error) {
				return response(req, 200, "text/html", strings.NewReader(`<meta charset="shift_jis"><p>`+"\x93\xfa\x96\x7b")), nil
			},
			check: func(t *testing.T, p *Payload) {
				if !strings.HasSuffix(string(p.Body), "日本") {
					t.Errorf("body = %q", p.Body)
				}
			}},
		{name: "undeclared utf-8", url: "http://example.com/", kept: true,
			cfg: func(c *Config) { c.MaxBodyBytes = 1 << 20 },
			respond: func(req *http.Request) (*http.Response, error) {
				body := strings.Repeat("<p>ascii</p>", 200) + "<p>żółw</p>"
				return response(req, 200, "text/html", strings.NewReader(body)), nil
			},
			check: func(t *testing.T, p *Payload) {
				if !strings.HasSuffix(string(p.Body), "żółw</p>") {
					t.Errorf("body tail = %q", p.Body[len(p.Body)-20:])
				}
			}},
		{name: "x-robots-tag", url: "http://example.com/", kept: true,
			respond: func(req *http.Request) (*http.Response, error) {
				r := response(req, 200, "text/html", strings.NewReader("x"))
				r.Header.Add("X-Robots-Tag", "googlebot: nofollow")
				r.Header.Add("X-Robots-Tag", "NoIndex")
				return r, nil
			},
			check: func(t *testing.T, p *Payload) {
				if !p.NoIndex || p.noFollow {
					t.Errorf("noindex=%v nofollow=%v", p.NoIndex, p.noFollow)
				}
			}},
		{name: "redirected", url: "http://example.com/old", kept: true,
			respond: func(req *http.Request) (*http.Response, error) {
				final := req.Clone(req.Context())
				final.URL, _ = url.Parse("https://example.com/new")
				return response(final, 200, "text/html", strings.NewReader("x")), nil
			},
			check: func(t *testing.T, p *Payload) {
				if p.FinalURL != "https://example.com/new" || p.URL != "http://example.com/old" {
					t.Errorf("URL %q FinalURL %q", p.URL, p.FinalURL)
				}
			}},
		{name: "decorated request", url: "http://example.com/", kept: true,
			cfg: func(c *Config) {
				c.DecorateRequest = func(req *http.Request) error {
					req.Header.Set("Authorization", "Bearer t")
					return nil
				}
			},
			respond: func(req *http.Request) (*http.Response, error) {
				if req.Header.Get("Authorization") != "Bearer t" || req.Header.Get("User-Agent") != DefaultUserAgent {
					return nil, errors.New("request not decorated")
				}
				return response(req, 200, "text/html", strings.NewReader("x")), nil
			}},
		{name: "decorator error", url: "http://example.com/", reason: ReasonFetchError, errIs: io.ErrClosedPipe,
			cfg: func(c *Config) {
				c.DecorateRequest = func(*http.Request) error { return io.ErrClosedPipe }
			}},
		{name: "gate skip with reason", url: "http://example.com/", reason: ReasonScope,
			cfg: func(c *Config) {
				c.Gates = []Gate{GateFunc(func(context.Context, *url.URL) error { return Skip(ReasonScope, nil) })}
			}},
		{name: "gate plain error", url: "http://example.com/", reason: ReasonGate, errIs: io.EOF,
			cfg: func(c *Config) {
				c.Gates = []Gate{GateFunc(func(context.Context, *url.URL) error { return io.EOF })}
			}},
		{name: "slow server times out", url: "http://example.com/", reason: ReasonFetchError, errIs: context.DeadlineExceeded,
			cfg: func(c *Config) { c.FetchTimeout = 20 * time.Millisecond },
			respond: func(req *http.Request) (*http.Response, error) {
				<-req.Context().Done()
				return nil, req.Context().Err()
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runFetch(t, c) })
	}
}

// A gate sees the parsed URL and runs only after the built-in checks.
func TestFetcherGateOrder(t *testing.T) {
	ctrl := gomock.NewController(t)
	gate := mocks.NewMockGate(ctrl)
	gate.EXPECT().Admit(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, u *url.URL) error {
		if u.Host != "example.com" {
			t.Errorf("gate got host %q", u.Host)
		}
		return Skip(ReasonDepth, errors.New("too deep"))
	}).Times(1)
	runFetch(t, fetchCase{
		url: "http://example.com/page", reason: ReasonDepth,
		cfg: func(c *Config) { c.Gates = []Gate{gate} },
	})
	// Not called for a URL the extension check already refused.
	runFetch(t, fetchCase{url: "http://example.com/a.css", reason: ReasonExtension,
		cfg: func(c *Config) { c.Gates = []Gate{gate} }})
}

func TestFetcherCancelledCrawl(t *testing.T) {
	ctrl := gomock.NewController(t)
	getter := mocks.NewMockURLGetter(ctrl)
	ctx, cancel := context.WithCancel(context.Background())
	getter.EXPECT().Do(gomock.Any()).DoAndReturn(func(req *http.Request) (*http.Response, error) {
		cancel()
		return nil, req.Context().Err()
	})
	f, err := NewFetcher(Config{FetchOptions: FetchOptions{URLGetter: getter}})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPayload([16]byte{1}, "http://example.com/", time.Time{})
	defer p.MarkAsProcessed()
	if out, err := f.Process(ctx, p); out != nil || err != nil {
		t.Fatalf("Process = %v, %v", out, err)
	}
	if p.outcome.reason != ReasonCanceled || !errors.Is(p.outcome.err, context.Canceled) {
		t.Fatalf("outcome = %v, %v", p.outcome.reason, p.outcome.err)
	}
}

func TestNewFetcherInvalidConfig(t *testing.T) {
	for _, cfg := range []Config{
		{FetchOptions: FetchOptions{Workers: -1}}, {FetchOptions: FetchOptions{MaxBodyBytes: -1}}, {FetchOptions: FetchOptions{FetchTimeout: -time.Second}},
		{Gates: []Gate{nil}}, {Processors: nil, Gates: []Gate{GateFunc(nil), nil}},
	} {
		if _, err := NewFetcher(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("NewFetcher(%+v) = %v, want ErrInvalidConfig", cfg, err)
		}
	}
}

func TestHasNonHTMLExtension(t *testing.T) {
	for path, want := range map[string]bool{
		"/a.png": true, "/A.PNG": true, "/x/y.tar.gz": true, "/f.woff2": true, "/s.Js": true,
		"/": false, "/index.html": false, "/page.php": false, "/a.png/": false, "/archive": false,
		"/v1.2": false, "/.png": true, "/dir.jpg/index": false,
	} {
		if got := hasNonHTMLExtension(path); got != want {
			t.Errorf("hasNonHTMLExtension(%q) = %v, want %v", path, got, want)
		}
	}
}
