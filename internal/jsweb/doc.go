// Package jsweb serves, on loopback, a web site whose links and text exist
// only once its JavaScript runs, so that crawler tests can tell what a
// crawl of the HTML as served finds (the shell: Shell) from what a
// crawl that renders pages must find (every page a person clicking
// through reaches: Pages) and prove that the browser's own requests keep
// the crawl's rules.
//
// It is test support. The site is a single-page application:
//
//	/                 the shell: an empty mount point, a <noscript>, a script
//	/docs/...         the same shell; the script renders the route
//	/app.js           builds the navigation from /api/nav.json, fetches the
//	                  route's text from /api/page/... after load, adds a link
//	                  when the page is scrolled to its end, puts one link in
//	                  an open shadow root, moves the home page's URL to
//	                  /docs/pushed with history.pushState, and fetches
//	                  Options.PrivateURL and Options.DisallowedURL
//	/endless.html     a page whose timers and requests never stop
//	/hog.html         a page that allocates memory until its tab dies
//	/gen/0 … /gen/N-1 Options.Generated pages of the same kind, each linking
//	                  others from JSON, all reached from /gen/0, for
//	                  throughput
//
// Served statically, "/" links nothing: a crawl that does not run
// scripts finds the shell and no more. Server.Requests counts the requests
// for each path, API calls included.
package jsweb
