// Package hostileweb serves a deliberately hostile web site on loopback so
// that crawler tests can prove the crawler survives the open web: nothing
// hangs, nothing grows without bound and every trap is reported with the
// right reason.
//
// It is test support. Start a Server in a test, crawl [Server.URL], compare
// what the crawler reported with [Server.Routes], and Close the server; Close
// ends every handler, every hijacked connection and the silent listener, so
// a test can check for leaked goroutines with go.uber.org/goleak right after.
//
// # Route table
//
// Every trap has a fixed path (the Path constants) and the [Reason] a crawler
// is expected to report for it. The index page "/" links every route,
// including the silent listener, which has its own address ([Server.SilentURL]).
//
//	Path                        Trap                                              Reason
//	/                           index linking every route                         none
//	/pages/1 … /pages/5         ordinary pages, so a crawl has real work          none
//	/trap/drip                  200, then one body byte per DripInterval (1s)     timeout
//	/trap/endless               200, chunked body that never ends                 body-too-large
//	/trap/gzip-bomb             Content-Encoding: gzip, ~1 MiB → 1 GiB inflated   body-too-large
//	/trap/redirect-loop/a       302 to /b, which 302s back to /a                   redirect-loop
//	/trap/redirect-chain/0      302 chain of RedirectHops (50) hops, then 200      too-many-redirects
//	/trap/many-links            one page with ManyLinks (100,000) distinct links   too-many-links
//	/trap/deep-nesting          <div> nested NestingDepth (100,000) levels         too-deep
//	/trap/invalid-utf8          declared UTF-8, body has invalid sequences         invalid-encoding
//	/trap/mislabelled-charset   header says ISO-8859-1, meta and body are UTF-8    charset-mismatch
//	/calendar/2026/11/22        calendar whose pages link the next day and month   link-trap
//	/trap/huge-headers          HeaderBytes (12 MiB) of response header lines      header-too-large
//	/trap/connection-reset      partial body, then a TCP reset (SO_LINGER 0)      connection-reset
//	/trap/image.html            200 with Content-Type image/png on an .html path  content-type
//	/robots.txt                 RobotsBytes (64 KiB) of seeded random bytes       bad-robots
//	SilentURL()                 accepts the TCP connection and never answers      timeout
//
// Handlers stream their output, so a request costs a few kilobytes of server
// memory whatever the size of the response.
package hostileweb
