package privnet_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/linksrus/linksrus/crawler/privnet"
)

// Extra private ranges: a public range declared private is refused as a
// literal host and at dial time, and wins over the allow-list.
func TestWithDenied(t *testing.T) {
	d := privnet.New(netip.MustParsePrefix("127.0.0.0/8")).WithDenied(
		netip.MustParsePrefix("203.0.113.0/24"), // a "company range"
		netip.MustParsePrefix("127.0.0.9/32"),   // denied inside the allow-list
	)
	for host, want := range map[string]bool{
		"203.0.113.7":          true,
		"203.0.113.7:8080":     true,
		"[::ffff:203.0.113.7]": true,
		"8.8.8.8":              false, // public (only checked, never dialled)
		"127.0.0.2":            false, // allow-listed
		"127.0.0.9":            true,  // denied wins
		"example.com":          false, // names are checked when dialled
	} {
		got, err := d.IsPrivate(host)
		if err != nil || got != want {
			t.Errorf("IsPrivate(%q) = %v, %v; want %v", host, got, err, want)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.9:0")
	if err != nil {
		t.Skip("cannot listen on 127.0.0.9:", err)
	}
	s := httptest.NewUnstartedServer(http.NotFoundHandler())
	s.Listener.Close()
	s.Listener = ln
	s.Start()
	defer s.Close()
	c := &http.Client{Transport: d.Transport()}
	defer c.CloseIdleConnections()
	if _, err := c.Get(s.URL); !errors.Is(err, privnet.ErrPrivateAddress) {
		t.Errorf("dial to a denied address: %v, want ErrPrivateAddress", err)
	}
}
