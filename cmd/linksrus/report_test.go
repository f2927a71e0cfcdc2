package main

import (
	"strings"
	"testing"
)

// A crawl that waited for more work at its end (a shared crawl's --idle)
// says so, and gives its pages per second over the time before; one that
// did not keeps to one short line.
func TestSummaryLineLeavesTheIdleWaitOut(t *testing.T) {
	var b strings.Builder
	printSummary(&b, summary{Pages: 1169, Elapsed: 5.45, Active: 0.35, PagesPerSec: 1169 / 0.35})
	line := strings.SplitN(b.String(), "\n", 2)[0]
	for _, want := range []string{"in 5.45s", "last page at 0.35s", "waited for more work", "3340 pages/s"} {
		if !strings.Contains(line, want) {
			t.Errorf("summary %q lacks %q", line, want)
		}
	}
	b.Reset()
	printSummary(&b, summary{Pages: 1169, Elapsed: 0.36, Active: 0.35, PagesPerSec: 1169 / 0.35})
	if line := b.String(); strings.Contains(line, "waited") || !strings.Contains(line, "in 0.36s, 3340 pages/s") {
		t.Errorf("summary of a crawl with no wait: %q", line)
	}
	// Nothing handled: no last page to speak of.
	b.Reset()
	printSummary(&b, summary{Elapsed: 10.01})
	if line := b.String(); strings.Contains(line, "last page") {
		t.Errorf("summary of a crawl that handled nothing: %q", line)
	}
}
