// Package sitemap reads sitemaps (https://www.sitemaps.org/protocol.html):
// the XML files, optionally gzip-compressed, in which a site lists the URLs
// it wants crawled with the time each last changed, and sitemap index files
// that list other sitemaps.
//
// Parse streams a sitemap through encoding/xml's token decoder and hands
// each entry to a callback as soon as it is read, so memory stays bounded
// whatever the file's size; the limits of the protocol are enforced on the
// way (Options.MaxURLs entries, Options.MaxBytes of uncompressed XML), so
// that a hostile file (a gzip bomb, an endless body) ends in an error
// rather than in unbounded work. A gzip stream is recognised by its magic
// bytes, whether the file is a .xml.gz or was sent with Content-Encoding
// gzip and not decoded by the HTTP client.
//
// A file declaring an encoding other than UTF-8 is decoded as declared.
//
// Entries are checked as the protocol asks: <loc> must be an absolute http
// or https URL of at most 2,048 characters, on the sitemap's own host and
// under the directory the sitemap is in (Options.Location; a sitemap named
// in a host's robots.txt may list any URL of that host, which is
// Options.Location's root). Entries that fail are counted in
// Result.Skipped, not returned. <lastmod> is parsed leniently (W3C
// datetime at any precision, RFC 3339, a date and time without a zone);
// one that does not parse leaves LastMod zero.
//
// Parse does no I/O of its own: fetching the files, politely, is the
// caller's (package engine does it through its host scheduler).
package sitemap
