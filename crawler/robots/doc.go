// Package robots decides, per RFC 9309, whether the crawler may fetch a URL
// and how long it should wait between requests to its host.
//
// A Checker fetches each origin's /robots.txt once (concurrent callers for
// the same origin share one fetch), compiles the rules that apply to its
// robot name once, and caches them in a bounded LRU cache with an expiry.
// Matching is delegated to github.com/jimsmart/grobotstxt, a port of
// Google's reference parser and matcher (longest match wins, Allow wins
// ties, "*" and "$" wildcards); this package adds what the library leaves
// to its caller: HTTP status handling, size limit, redirects, caching,
// Crawl-delay, and parsing each file once instead of on every check.
//
// Status handling (RFC 9309 section 2.3.1):
//
//   - 2xx: the body (at most Options.MaxSize bytes, 500 KiB by default,
//     cut at the last complete line) is parsed;
//   - 3xx: up to Options.MaxRedirects redirects are followed, to any host;
//     more, or a redirect without a usable Location, counts as unavailable;
//   - 4xx other than 429: robots.txt is unavailable, everything is allowed;
//   - 429, 5xx, other statuses and network errors: robots.txt is
//     unreachable, everything is disallowed for Options.ErrorTTL, after
//     which the next check fetches it again. (RFC 9309 puts 429 in the 4xx
//     class; like Google we treat it as the server asking us to back off.)
//
// The path /robots.txt itself is always allowed.
package robots
