// Package safety holds the crawler's hostile-web and fault suite: the tests
// that hold the crawler to its promises when the web is adversarial and its
// databases fail. It has no API; everything here is in _test.go files.
//
//   - A crawl of internal/hostileweb with the real default URLGetter and the
//     embedded stores ends by itself, reports each trap with the expected
//     crawler.Reason, stays under a stated peak heap measured with
//     runtime/metrics, and leaves no goroutine behind; the same site crawled
//     by the linksrus command, limits given as flags.
//   - Fault tests: a private PostgreSQL server restarted in the middle of a
//     `linksrus crawl`; `linksrus crawl` on the embedded stores killed with
//     SIGKILL and resumed; crawler.Crawl cancelled at random moments, with
//     goleak after every run.
//   - A fuzz target for charset decoding through the crawler's exported
//     stages, its interesting inputs kept under testdata/fuzz.
//
// The PostgreSQL restart test runs its own server (internal/pgtest's
// StartCluster: initdb and pg_ctl from /usr/lib/postgresql/*/bin, as the
// postgres OS user when run as root); it skips, saying why, when they are
// missing, unless LINKSRUS_REQUIRE_PG=1.
package safety
