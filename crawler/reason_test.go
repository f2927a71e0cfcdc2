package crawler

import "testing"

// Every reason is classified: the failures are the pages that should have
// been crawled and were not; everything else is a page crawled or a skip
// by policy or limit.
func TestReasonIsError(t *testing.T) {
	failures := map[Reason]bool{
		ReasonFetchError: true, ReasonHTTPStatus: true, ReasonCharset: true,
		ReasonRedirectLoop: true, ReasonTooManyRedirects: true, ReasonCanceled: true,
		ReasonRobotsUnreachable: true,
	}
	for r := range numReasons + 1 {
		if got := r.IsError(); got != failures[r] {
			t.Errorf("%v.IsError() = %v, want %v", r, got, failures[r])
		}
	}
}
