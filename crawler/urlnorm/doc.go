// Package urlnorm turns the many spellings of a URL into one canonical string,
// so that the crawler de-duplicates, stores and fetches each page once.
//
// URLs are read as browsers read them: Normalize (an absolute URL) and
// Resolve (a link against the page it is on) follow the WHATWG URL
// standard's parser for the http and https schemes, where it departs from
// RFC 3986 and net/url (backslashes, tabs and newlines, "http:x" on an http
// page, "12:30.html" as a path, a stray '%', IPv4 addresses in hexadecimal
// or octal; see Resolve). A URL a browser would not load is an error.
//
// The result is in canonical form, with the semantics-preserving
// normalisations of RFC 3986 sections 6.2.2 and 6.2.3 plus the ones every
// crawler adds:
//
//   - scheme and host are lower-cased; only http and https are accepted;
//   - an internationalised host is converted to its ASCII (punycode) form,
//     and a trailing dot of the host is dropped;
//   - an IPv4 address is written in dotted decimal, however it was spelt
//     ("0x7f.1", "2130706433"); a host that ends in a number but is no
//     IPv4 address ("256.256.256.256", "foo.09") is an error;
//   - the default port of the scheme (80, 443) is removed, an empty port too;
//   - IPv6 literals are written in their canonical RFC 5952 form;
//   - percent-encoding is normalised: hex digits upper-cased, encoded
//     unreserved characters (A-Z a-z 0-9 - . _ ~) decoded, characters that
//     may not appear raw in a URL encoded (and "'" in the query, which
//     browsers encode there); nothing else is decoded, because decoding
//     e.g. %2F or %26 would change which resource is named;
//   - dot segments ("." and "..") are resolved;
//   - fragment and user information are removed, an empty path becomes "/",
//     and an empty query ("?" alone) is dropped.
//
// Normalisations that can change which resource a URL names are never
// applied by default: no "www." folding, no removal of index.html, no
// collapsing of duplicate slashes, no trailing-slash games. Sorting query
// parameters and stripping tracking parameters are opt-in through Options.
//
// Normalize is idempotent: normalising its output again returns the same
// string. This is checked by a fuzz test, because de-duplication relies on it.
//
// Normalize runs for every discovered link, so it works on the raw string
// without building a url.URL and allocates at most once (the result) for
// ASCII URLs, and not at all when the input is already normalised.
package urlnorm
