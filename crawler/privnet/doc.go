// Package privnet keeps a crawler out of networks it must not reach: the
// caller's own machine, its LAN, its cloud provider's metadata service and
// every other address that IANA sets aside for special purposes.
//
// A Detector answers two questions. IsPrivate judges a URL's host without
// any DNS lookup (literal addresses, and names such as "localhost" that can
// only be local), so that it is cheap enough to run on every extracted link.
// Control, installed as a net.Dialer's Control hook (see Dialer and
// Transport), judges the address actually being dialled, after DNS: that is
// the check that counts, because a public-looking name may resolve to
// 127.0.0.1 (or start doing so between two lookups, "DNS rebinding"), and a
// public server may redirect to a private one.
//
// An allow-list of prefixes (New) lets a user crawl an intranet, or a test
// crawl a server on 127.0.0.1.
package privnet
