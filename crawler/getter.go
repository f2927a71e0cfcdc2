package crawler

import "net/http"

// NewURLGetter returns the URLGetter a Config gets by default for detector:
// an *http.Client that dials through the detector's dial-time guard, takes
// no proxy from the environment and follows at most DefaultMaxRedirects
// redirects. Share it between the crawler and other requests of the same
// crawl (robots.txt, say) so that they are guarded and pooled alike.
func NewURLGetter(detector PrivateNetworkDetector) *http.Client {
	return defaultURLGetter(detector, DefaultFetchWorkers)
}
