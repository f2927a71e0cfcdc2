// Package robots decides, per RFC 9309, whether the crawler may fetch a URL
// and how long it should wait between requests to its host.
//
// Fetch retrieves an origin's /robots.txt and compiles the rules that apply
// to one robot name (Rules): a URL is then checked against them
// (Rules.AllowedURL) without parsing the file again, and Rules.CrawlDelay
// and Rules.Sitemaps give the file's other lines. FetchBody keeps the file
// itself, for a cache shared between processes, and RulesFor turns it back
// into rules. Matching is delegated to github.com/jimsmart/grobotstxt, a
// port of Google's reference parser and matcher (longest match wins, Allow
// wins ties, "*" and "$" wildcards); this package adds what the library
// leaves to its caller: HTTP status handling, size limit, redirects,
// Crawl-delay, and parsing each file once instead of on every check.
// Caching the rules, retrying an unreachable file, capping Crawl-delay and
// always allowing the URL /robots.txt itself, as RFC 9309 does, are the
// caller's: package engine does all four for a crawl.
//
// Status handling (RFC 9309 section 2.3.1):
//
//   - 2xx: the body (at most Options.MaxSize bytes, 500 KiB by default,
//     cut at the last complete line) is parsed;
//   - 3xx: up to Options.MaxRedirects redirects are followed, to any host;
//     more, or a redirect without a usable Location, counts as unavailable;
//   - 4xx other than 429: robots.txt is unavailable, everything is allowed;
//   - 429, 5xx, other statuses and network errors: robots.txt is
//     unreachable, everything is disallowed, and Fetch says why (a
//     StatusError carries the Retry-After) so that the caller can try
//     again later. (RFC 9309 puts 429 in the 4xx class; like Google we
//     treat it as the server asking us to back off.)
package robots
