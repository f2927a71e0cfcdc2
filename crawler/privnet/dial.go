package privnet

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Control is a net.Dialer Control hook that refuses to connect to a private
// address. It runs after name resolution, for every address the dialer
// tries, so it sees the address actually dialled: a name that resolves (or
// starts resolving, in a DNS rebinding attack) to a private address, and a
// redirect to one, are refused as surely as a literal private address. The
// error wraps ErrPrivateAddress.
func (d *Detector) Control(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("privnet: dial %s %q: %w", network, address, ErrInvalidHost)
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("privnet: dial %s %q: %w", network, address, ErrInvalidHost)
	}
	if d.IsPrivateAddr(a) {
		return fmt.Errorf("%w %s", ErrPrivateAddress, a)
	}
	return nil
}

// Dialer returns a net.Dialer whose Control hook is d.Control, with the
// timeouts of net/http's default transport.
func (d *Detector) Dialer() *net.Dialer {
	return &net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   d.Control,
	}
}

// Transport returns a clone of http.DefaultTransport that dials through
// d.Dialer and uses no proxy. A proxy would do the dialling itself, out of
// the guard's sight; a caller who needs one must set Proxy on the returned
// transport knowingly (and have the proxy enforce the same policy).
func (d *Detector) Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = d.Dialer().DialContext
	return t
}
