package simhash_test

import (
	"fmt"
	"strings"

	"github.com/linksrus/linksrus/textindex/simhash"
)

func Example() {
	var release strings.Builder
	for n := range 300 {
		fmt.Fprintf(&release, "Change %d of this release makes the crawler better in way %d. ", n, n*7)
	}
	pages := []string{
		"Posted on Monday. " + release.String(),
		"Posted on Tuesday. " + release.String(), // the same page, another date
		"A different page about something else entirely, with its own words and sentences.",
	}
	hashes := make([]uint64, len(pages))
	for n, p := range pages {
		hashes[n] = simhash.Of(p)
	}
	fmt.Println("near-duplicates:", simhash.Groups(hashes, simhash.Threshold))
	fmt.Println("first two near:", simhash.Near(hashes[0], hashes[1]))
	fmt.Println("first and last near:", simhash.Near(hashes[0], hashes[2]))
	// Output:
	// near-duplicates: [[0 1]]
	// first two near: true
	// first and last near: false
}
