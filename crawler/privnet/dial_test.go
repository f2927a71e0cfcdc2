package privnet_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/crawler/privnet"
)

func get(t *testing.T, d *privnet.Detector, url string) (string, error) {
	t.Helper()
	tr := d.Transport()
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

func okServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A name that resolves to 127.0.0.1 passes IsPrivate only because it is not
// judged by name alone; the dial-time guard must refuse it.
func TestDialGuardRefusesNameResolvingToLoopback(t *testing.T) {
	srv := okServer(t)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	addrs, err := net.DefaultResolver.LookupHost(context.Background(), "localhost")
	if err != nil || len(addrs) == 0 {
		t.Skipf("localhost does not resolve here: %v", err)
	}
	_, err = get(t, privnet.New(), "http://localhost:"+port+"/")
	if !errors.Is(err, privnet.ErrPrivateAddress) {
		t.Fatalf("GET via localhost: err = %v, want ErrPrivateAddress", err)
	}
	_, err = get(t, privnet.New(), srv.URL)
	if !errors.Is(err, privnet.ErrPrivateAddress) {
		t.Fatalf("GET 127.0.0.1: err = %v, want ErrPrivateAddress", err)
	}
}

// A resolving dial function stands in for DNS that a hostile site controls:
// a public-looking name answers with 127.0.0.1, and the guard still refuses.
func TestDialGuardRefusesRebindingResolver(t *testing.T) {
	srv := okServer(t)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	d := privnet.New()
	dialer := d.Dialer()
	tr := d.Transport()
	defer tr.CloseIdleConnections()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		// Emulate the resolver's answer: rebinding.example resolves to loopback.
		host, p, _ := net.SplitHostPort(addr)
		if host == "rebinding.example" {
			addr = net.JoinHostPort("127.0.0.1", p)
		}
		return dialer.DialContext(ctx, network, addr)
	}
	res, err := (&http.Client{Transport: tr}).Get("http://rebinding.example:" + port + "/")
	if err == nil {
		res.Body.Close()
	}
	if !errors.Is(err, privnet.ErrPrivateAddress) {
		t.Fatalf("err = %v, want ErrPrivateAddress", err)
	}
}

func TestDialGuardAllowList(t *testing.T) {
	srv := okServer(t)
	body, err := get(t, privnet.New(netip.MustParsePrefix("127.0.0.0/8")), srv.URL)
	if err != nil || body != "ok" {
		t.Fatalf("allow-listed GET = %q, %v", body, err)
	}
}

// A public (here: allow-listed) server redirecting to a private address is
// refused when the redirect is dialled.
func TestDialGuardRefusesRedirectToPrivate(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	private := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "secret")
	}))
	private.Listener.Close()
	private.Listener = ln
	private.Start()
	defer private.Close()
	redirector := httptest.NewServer(http.RedirectHandler(private.URL, http.StatusFound))
	defer redirector.Close()

	body, err := get(t, privnet.New(netip.MustParsePrefix("127.0.0.1/32")), redirector.URL)
	if !errors.Is(err, privnet.ErrPrivateAddress) || strings.Contains(body, "secret") {
		t.Fatalf("redirect to [::1]: body %q, err = %v, want ErrPrivateAddress", body, err)
	}
}

func TestTransportIgnoresProxyEnvironment(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	if tr := privnet.New().Transport(); tr.Proxy != nil {
		t.Fatal("Transport must not take a proxy from the environment")
	}
}
