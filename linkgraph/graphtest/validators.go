package graphtest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
)

// testValidatorsTravelWithRetrieval checks that ETag and LastModified are
// those of the retrieval RetrievedAt records: stored with a new link,
// replaced by a later retrieval (emptied too), untouched by an older one or
// by a mere discovery, and read back by FindLink and Links.
func testValidatorsTravelWithRetrieval(t *testing.T, g linkgraph.Graph) {
	const u = "https://example.com/validated"
	l := &linkgraph.Link{URL: u, RetrievedAt: base, ETag: `"v1"`, LastModified: "Mon, 02 Jan 2006 15:04:05 GMT"}
	if err := g.UpsertLink(l); err != nil {
		t.Fatalf("UpsertLink: %v", err)
	}
	want := &linkgraph.Link{ID: l.ID, URL: u, RetrievedAt: micro(base), ETag: `"v1"`, LastModified: "Mon, 02 Jan 2006 15:04:05 GMT"}
	checkLinkEqual(t, l, want)
	found, err := g.FindLink(l.ID)
	if err != nil {
		t.Fatalf("FindLink: %v", err)
	}
	checkLinkEqual(t, found, want)

	// Found again on another page: nothing changes, and the caller's value
	// gets the stored validators.
	again := &linkgraph.Link{URL: u}
	if err := g.UpsertLink(again); err != nil {
		t.Fatalf("UpsertLink: %v", err)
	}
	checkLinkEqual(t, again, want)

	// An older retrieval (a slow writer) neither moves the time nor the
	// validators.
	older := &linkgraph.Link{URL: u, RetrievedAt: base.Add(-time.Hour), ETag: `"v0"`}
	if err := g.UpsertLink(older); err != nil {
		t.Fatalf("UpsertLink: %v", err)
	}
	checkLinkEqual(t, older, want)

	// The same time again: the stored retrieval stays, validators too.
	same := &linkgraph.Link{URL: u, RetrievedAt: base, ETag: `"other"`}
	if err := g.UpsertLink(same); err != nil {
		t.Fatalf("UpsertLink: %v", err)
	}
	checkLinkEqual(t, same, want)

	// A later retrieval brings its own, even none at all.
	later := &linkgraph.Link{URL: u, RetrievedAt: base.Add(time.Hour), ETag: `W/"v2"`}
	if err := g.UpsertLink(later); err != nil {
		t.Fatalf("UpsertLink: %v", err)
	}
	want = &linkgraph.Link{ID: l.ID, URL: u, RetrievedAt: micro(base.Add(time.Hour)), ETag: `W/"v2"`}
	checkLinkEqual(t, later, want)
	got := collectLinks(t, g, uuid.Nil, uuid.Nil, base.Add(2*time.Hour))
	if len(got) != 1 {
		t.Fatalf("Links: %d links, want 1", len(got))
	}
	checkLinkEqual(t, got[0], want)

	none := &linkgraph.Link{URL: u, RetrievedAt: base.Add(2 * time.Hour)}
	if err := g.UpsertLink(none); err != nil {
		t.Fatalf("UpsertLink: %v", err)
	}
	found, err = g.FindLink(l.ID)
	if err != nil {
		t.Fatalf("FindLink: %v", err)
	}
	checkLinkEqual(t, found, &linkgraph.Link{ID: l.ID, URL: u, RetrievedAt: micro(base.Add(2 * time.Hour))})
}

// testValidatorsInBatches checks that in one UpsertLinks the occurrence of
// a URL with the latest RetrievedAt brings the validators, and that every
// occurrence gets them back.
func testValidatorsInBatches(t *testing.T, g linkgraph.Graph) {
	const u = "https://example.com/twice"
	batch := []*linkgraph.Link{
		{URL: u, RetrievedAt: base, ETag: `"early"`},
		{URL: "https://example.com/other", ETag: `"o"`, LastModified: "Tue, 03 Jan 2006 00:00:00 GMT"},
		{URL: u, RetrievedAt: base.Add(time.Minute), ETag: `"late"`, LastModified: "Wed, 04 Jan 2006 00:00:00 GMT"},
		{URL: u, RetrievedAt: base.Add(time.Minute), ETag: `"tie"`},
		{URL: u},
	}
	if err := g.UpsertLinks(batch); err != nil {
		t.Fatalf("UpsertLinks: %v", err)
	}
	for _, i := range []int{0, 2, 3, 4} {
		if batch[i].ETag != `"late"` || batch[i].LastModified != "Wed, 04 Jan 2006 00:00:00 GMT" {
			t.Errorf("occurrence %d: validators %q %q, want those of the latest retrieval", i, batch[i].ETag, batch[i].LastModified)
		}
	}
	if batch[1].ETag != `"o"` || batch[1].LastModified != "Tue, 03 Jan 2006 00:00:00 GMT" {
		t.Errorf("new link without a retrieval: validators %q %q, want them stored as given", batch[1].ETag, batch[1].LastModified)
	}
	// Many links at once, some with validators, read back through Links
	// across pages of the iteration.
	var many []*linkgraph.Link
	for i := range 300 {
		l := &linkgraph.Link{URL: BenchURL(i), RetrievedAt: base}
		if i%3 == 0 {
			l.ETag = `"` + strings.Repeat("e", i%50) + `"`
		}
		many = append(many, l)
	}
	if err := g.UpsertLinks(many); err != nil {
		t.Fatalf("UpsertLinks: %v", err)
	}
	byID := make(map[uuid.UUID]string)
	for _, l := range many {
		byID[l.ID] = l.ETag
	}
	for _, l := range collectLinks(t, g, uuid.Nil, uuid.Nil, base.Add(time.Hour)) {
		if want, ok := byID[l.ID]; ok && l.ETag != want {
			t.Fatalf("Links: %s has ETag %q, want %q", l.URL, l.ETag, want)
		}
	}
}

func testInvalidValidators(t *testing.T, g linkgraph.Graph) {
	for name, l := range map[string]*linkgraph.Link{
		"long ETag":         {URL: "https://example.com/a", ETag: strings.Repeat("x", linkgraph.MaxValidatorLength+1)},
		"NUL in ETag":       {URL: "https://example.com/b", ETag: "a\x00b"},
		"bad UTF-8 in date": {URL: "https://example.com/c", LastModified: "\xff"},
	} {
		if err := g.UpsertLink(l); !errors.Is(err, linkgraph.ErrInvalidLink) {
			t.Errorf("%s: UpsertLink = %v, want ErrInvalidLink", name, err)
		}
	}
	ok := &linkgraph.Link{URL: "https://example.com/d", ETag: strings.Repeat("x", linkgraph.MaxValidatorLength)}
	if err := g.UpsertLink(ok); err != nil {
		t.Errorf("ETag of MaxValidatorLength: %v", err)
	}
}

// testRefreshEdges checks that RefreshEdges moves every edge of the given
// sources to the new time, never back, and leaves other sources alone.
func testRefreshEdges(t *testing.T, g linkgraph.Graph) {
	links := mustUpsertLinks(t, g, 4, base)
	a, b, c, d := links[0].ID, links[1].ID, links[2].ID, links[3].ID
	mustUpsertEdge(t, g, a, b, base)
	mustUpsertEdge(t, g, a, c, base.Add(2*time.Hour)) // newer than the refresh
	mustUpsertEdge(t, g, b, c, base)
	mustUpsertEdge(t, g, d, a, base) // not refreshed

	at := base.Add(time.Hour)
	if err := g.RefreshEdges([]uuid.UUID{a, b, uuid.New(), c, a}, at); err != nil {
		t.Fatalf("RefreshEdges: %v", err)
	}
	want := map[[2]uuid.UUID]time.Time{
		{a, b}: micro(at),
		{a, c}: micro(base.Add(2 * time.Hour)),
		{b, c}: micro(at),
		{d, a}: micro(base),
	}
	got := collectEdges(t, g, uuid.Nil, uuid.Nil, base.Add(3*time.Hour))
	if len(got) != len(want) {
		t.Fatalf("%d edges after refresh, want %d", len(got), len(want))
	}
	for _, e := range got {
		if w := want[[2]uuid.UUID{e.Src, e.Dst}]; !e.UpdatedAt.Equal(w) {
			t.Errorf("edge %s -> %s updated at %v, want %v", e.Src, e.Dst, e.UpdatedAt, w)
		}
	}
	// What the crawler relies on: after the refresh, removing the edges
	// stale as of the fetch keeps the refreshed ones.
	if err := g.RemoveStaleEdges(a, micro(at)); err != nil {
		t.Fatalf("RemoveStaleEdges: %v", err)
	}
	n := 0
	for _, e := range collectEdges(t, g, uuid.Nil, uuid.Nil, base.Add(3*time.Hour)) {
		if e.Src == a {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("refreshed edges of a: %d left after RemoveStaleEdges, want 2", n)
	}
	// A zero time is the graph's clock.
	before := time.Now()
	if err := g.RefreshEdges([]uuid.UUID{d}, time.Time{}); err != nil {
		t.Fatalf("RefreshEdges(zero time): %v", err)
	}
	for _, e := range collectEdges(t, g, d, uuid.Nil, time.Now().Add(time.Hour)) {
		if e.Src == d && e.UpdatedAt.Before(before) {
			t.Errorf("RefreshEdges(zero time) left the edge at %v, before the call (%v)", e.UpdatedAt, before)
		}
	}
	if err := g.RefreshEdges(nil, at); err != nil {
		t.Fatalf("RefreshEdges(nil): %v", err)
	}
}
