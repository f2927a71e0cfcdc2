package graphtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

func testUpsertAndFindLink(t *testing.T, g linkgraph.Graph) {
	l := mustUpsertLink(t, g, "https://example.com/a", base)
	if !l.RetrievedAt.Equal(micro(base)) {
		t.Fatalf("UpsertLink filled RetrievedAt %v, want %v", l.RetrievedAt, micro(base))
	}
	got, err := g.FindLink(l.ID)
	if err != nil {
		t.Fatalf("FindLink(%s): %v", l.ID, err)
	}
	checkLinkEqual(t, got, &linkgraph.Link{ID: l.ID, URL: "https://example.com/a", RetrievedAt: micro(base)})
	if got.RetrievedAt.Location() != time.UTC {
		t.Fatalf("FindLink returned RetrievedAt in %v, want UTC", got.RetrievedAt.Location())
	}

	never := mustUpsertLink(t, g, "https://example.com/never", time.Time{})
	got, err = g.FindLink(never.ID)
	if err != nil {
		t.Fatalf("FindLink(%s): %v", never.ID, err)
	}
	if !got.RetrievedAt.IsZero() {
		t.Fatalf("never-retrieved link came back with RetrievedAt %v, want the zero time", got.RetrievedAt)
	}
	if never.ID == l.ID {
		t.Fatalf("two URLs got the same ID %s", l.ID)
	}
}

func testUpsertKeepsIDAndLaterRetrievedAt(t *testing.T, g linkgraph.Graph) {
	first := mustUpsertLink(t, g, "https://example.com/", base)

	// An older timestamp and a caller-chosen ID change neither ID nor time.
	older := &linkgraph.Link{ID: uuid.New(), URL: first.URL, RetrievedAt: base.Add(-time.Hour)}
	if err := g.UpsertLink(older); err != nil {
		t.Fatalf("UpsertLink(older): %v", err)
	}
	if older.ID != first.ID {
		t.Fatalf("re-upsert got ID %s, want the existing %s", older.ID, first.ID)
	}
	if !older.RetrievedAt.Equal(micro(base)) {
		t.Fatalf("re-upsert with an older time filled RetrievedAt %v, want the kept %v", older.RetrievedAt, micro(base))
	}
	got, err := g.FindLink(first.ID)
	if err != nil {
		t.Fatalf("FindLink: %v", err)
	}
	checkLinkEqual(t, got, &linkgraph.Link{ID: first.ID, URL: first.URL, RetrievedAt: micro(base)})

	// A later timestamp wins.
	later := base.Add(time.Hour)
	l := mustUpsertLink(t, g, first.URL, later)
	if l.ID != first.ID {
		t.Fatalf("re-upsert got ID %s, want %s", l.ID, first.ID)
	}
	got, err = g.FindLink(first.ID)
	if err != nil {
		t.Fatalf("FindLink: %v", err)
	}
	checkLinkEqual(t, got, &linkgraph.Link{ID: first.ID, URL: first.URL, RetrievedAt: micro(later)})

	// A zero time (never retrieved) does not erase a retrieval.
	l = mustUpsertLink(t, g, first.URL, time.Time{})
	if !l.RetrievedAt.Equal(micro(later)) {
		t.Fatalf("upsert with zero time filled RetrievedAt %v, want %v", l.RetrievedAt, micro(later))
	}
	if all := collectLinks(t, g, uuid.Nil, uuid.Nil, later.Add(time.Hour)); len(all) != 1 {
		t.Fatalf("graph holds %d links after upserting one URL four times, want 1", len(all))
	}
}

func testFindMissingLink(t *testing.T, g linkgraph.Graph) {
	mustUpsertLink(t, g, "https://example.com/", base)
	_, err := g.FindLink(uuid.New())
	if !errors.Is(err, linkgraph.ErrNotFound) {
		t.Fatalf("FindLink(random ID) error = %v, want ErrNotFound", err)
	}
	_, err = g.FindLink(uuid.Nil)
	if !errors.Is(err, linkgraph.ErrNotFound) {
		t.Fatalf("FindLink(uuid.Nil) error = %v, want ErrNotFound", err)
	}
}

func testInvalidLinks(t *testing.T, g linkgraph.Graph) {
	for _, l := range []*linkgraph.Link{
		nil,
		{URL: ""},
		{URL: "https://example.com/\x00"},
		{URL: "https://example.com/\xff"},
		{URL: "https://example.com/" + strings.Repeat("x", linkgraph.MaxURLLength)},
	} {
		if err := g.UpsertLink(l); !errors.Is(err, linkgraph.ErrInvalidLink) {
			t.Errorf("UpsertLink(%+v) error = %v, want ErrInvalidLink", l, err)
		}
		if err := g.UpsertLinks([]*linkgraph.Link{{URL: "https://example.com/ok"}, l}); !errors.Is(err, linkgraph.ErrInvalidLink) {
			t.Errorf("UpsertLinks with %+v error = %v, want ErrInvalidLink", l, err)
		}
	}
	if got := collectLinks(t, g, uuid.Nil, uuid.Nil, base); len(got) != 0 {
		t.Fatalf("rejected batches stored %d links", len(got))
	}
	long := "https://example.com/" + strings.Repeat("y", linkgraph.MaxURLLength-len("https://example.com/"))
	l := mustUpsertLink(t, g, long, base)
	if got, err := g.FindLink(l.ID); err != nil || got.URL != long {
		t.Fatalf("URL of exactly MaxURLLength bytes: FindLink = %v, %v", got, err)
	}
}

func testUpsertLinksBatch(t *testing.T, g linkgraph.Graph) {
	existing := mustUpsertLink(t, g, "https://example.com/old", base)
	if err := g.UpsertLinks(nil); err != nil {
		t.Fatalf("UpsertLinks(nil): %v", err)
	}
	batch := []*linkgraph.Link{
		{URL: "https://example.com/x", RetrievedAt: base},
		{URL: "https://example.com/old"},
		{URL: "https://example.com/y", RetrievedAt: base.Add(time.Minute)},
		{URL: "https://example.com/x", RetrievedAt: base.Add(2 * time.Minute)},
		{URL: "https://example.com/x"},
	}
	if err := g.UpsertLinks(batch); err != nil {
		t.Fatalf("UpsertLinks: %v", err)
	}
	if batch[1].ID != existing.ID {
		t.Fatalf("batch upsert of an existing URL got ID %s, want %s", batch[1].ID, existing.ID)
	}
	if batch[0].ID != batch[3].ID || batch[0].ID != batch[4].ID {
		t.Fatalf("duplicates in one batch got IDs %s, %s, %s; want one", batch[0].ID, batch[3].ID, batch[4].ID)
	}
	if batch[0].ID == batch[2].ID || batch[0].ID == uuid.Nil || batch[2].ID == uuid.Nil {
		t.Fatalf("distinct URLs got IDs %s and %s", batch[0].ID, batch[2].ID)
	}
	for _, i := range []int{0, 3, 4} {
		if !batch[i].RetrievedAt.Equal(micro(base.Add(2 * time.Minute))) {
			t.Fatalf("batch[%d].RetrievedAt = %v, want the latest of its duplicates %v", i, batch[i].RetrievedAt, micro(base.Add(2*time.Minute)))
		}
	}
	want := map[uuid.UUID]*linkgraph.Link{
		existing.ID: {ID: existing.ID, URL: existing.URL, RetrievedAt: micro(base)},
		batch[0].ID: {ID: batch[0].ID, URL: "https://example.com/x", RetrievedAt: micro(base.Add(2 * time.Minute))},
		batch[2].ID: {ID: batch[2].ID, URL: "https://example.com/y", RetrievedAt: micro(base.Add(time.Minute))},
	}
	got := collectLinks(t, g, uuid.Nil, uuid.Nil, base.Add(time.Hour))
	if len(got) != len(want) {
		t.Fatalf("graph holds %d links, want %d", len(got), len(want))
	}
	for _, l := range got {
		checkLinkEqual(t, l, want[l.ID])
	}
}

func testUpsertLinksBatchIsAtomic(t *testing.T, g linkgraph.Graph) {
	err := g.UpsertLinks([]*linkgraph.Link{{URL: "https://example.com/a"}, {URL: ""}})
	if !errors.Is(err, linkgraph.ErrInvalidLink) {
		t.Fatalf("UpsertLinks with an empty URL error = %v, want ErrInvalidLink", err)
	}
	if got := collectLinks(t, g, uuid.Nil, uuid.Nil, base); len(got) != 0 {
		t.Fatalf("failed batch stored %d links, want none", len(got))
	}
}

func testConcurrentUpsertsOfOneURL(t *testing.T, g linkgraph.Graph) {
	const workers = 8
	const rounds = 10
	ids := make(chan uuid.UUID, workers*rounds*2)
	errs := make(chan error, workers*rounds*2)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				url := fmt.Sprintf("https://example.com/contended/%d", r)
				l := &linkgraph.Link{URL: url, RetrievedAt: base.Add(time.Duration(w) * time.Second)}
				if err := g.UpsertLink(l); err != nil {
					errs <- err
					return
				}
				ids <- l.ID
				batch := []*linkgraph.Link{{URL: "https://example.com/other"}, {URL: url}}
				if err := g.UpsertLinks(batch); err != nil {
					errs <- err
					return
				}
				if batch[1].ID != l.ID {
					errs <- fmt.Errorf("URL %s got IDs %s and %s", url, l.ID, batch[1].ID)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	close(ids)
	for err := range errs {
		t.Fatalf("concurrent upsert: %v", err)
	}
	distinct := map[uuid.UUID]bool{}
	for id := range ids {
		distinct[id] = true
	}
	if len(distinct) != rounds {
		t.Fatalf("%d URLs upserted concurrently got %d distinct IDs", rounds, len(distinct))
	}
	all := collectLinks(t, g, uuid.Nil, uuid.Nil, base.Add(time.Hour))
	if len(all) != rounds+1 {
		t.Fatalf("graph holds %d links, want %d", len(all), rounds+1)
	}
	for _, l := range all {
		if l.URL != "https://example.com/other" && !l.RetrievedAt.Equal(micro(base.Add((workers-1)*time.Second))) {
			t.Fatalf("link %s kept RetrievedAt %v, want the latest %v", l.URL, l.RetrievedAt, micro(base.Add((workers-1)*time.Second)))
		}
	}
}

func testLinkRangePartitioning(t *testing.T, g linkgraph.Graph) {
	links := mustUpsertLinks(t, g, 300, base)
	want := sortedIDs(links)
	for _, n := range []int{1, 3, 16} {
		var got []uuid.UUID
		for _, r := range partitionBounds(n) {
			part := collectLinks(t, g, r[0], r[1], base.Add(time.Second))
			for i, l := range part {
				if linkgraph.CompareIDs(l.ID, r[0]) < 0 || (r[1] != uuid.Nil && linkgraph.CompareIDs(l.ID, r[1]) >= 0) {
					t.Fatalf("partition [%s, %s) returned %s", r[0], r[1], l.ID)
				}
				if i > 0 && linkgraph.CompareIDs(part[i-1].ID, l.ID) >= 0 {
					t.Fatalf("partition [%s, %s) not in byte-wise ID order: %s before %s", r[0], r[1], part[i-1].ID, l.ID)
				}
				got = append(got, l.ID)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d partitions visited %d links (want each of %d once)", n, len(got), len(want))
		}
	}
}

func testLinkRangeBounds(t *testing.T, g linkgraph.Graph) {
	ids := sortedIDs(mustUpsertLinks(t, g, 20, base))
	after := base.Add(time.Second)

	// fromID is included, toID excluded.
	got := collectLinks(t, g, ids[3], ids[7], after)
	if len(got) != 4 || got[0].ID != ids[3] || got[3].ID != ids[6] {
		t.Fatalf("Links(ids[3], ids[7]) = %d links, want ids[3..6]", len(got))
	}
	// An upper bound of uuid.Nil means no bound.
	if got := collectLinks(t, g, ids[10], uuid.Nil, after); len(got) != 10 {
		t.Fatalf("Links(ids[10], Nil) = %d links, want 10", len(got))
	}
	// Empty and inverted ranges.
	if got := collectLinks(t, g, ids[5], ids[5], after); len(got) != 0 {
		t.Fatalf("Links(x, x) = %d links, want 0", len(got))
	}
	if got := collectLinks(t, g, ids[9], ids[2], after); len(got) != 0 {
		t.Fatalf("Links(high, low) = %d links, want 0", len(got))
	}
	if got := collectLinks(t, g, uuid.Nil, uuid.Max, after); len(got) != 20 {
		t.Fatalf("Links(Nil, Max) = %d links, want 20", len(got))
	}
}

func testLinkTimeFilter(t *testing.T, g linkgraph.Graph) {
	never := mustUpsertLink(t, g, "https://example.com/never", time.Time{})
	old := mustUpsertLink(t, g, "https://example.com/old", base)
	recent := mustUpsertLink(t, g, "https://example.com/recent", base.Add(time.Hour))

	ids := func(links []*linkgraph.Link) map[uuid.UUID]bool {
		m := map[uuid.UUID]bool{}
		for _, l := range links {
			m[l.ID] = true
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		before time.Time
		want   []uuid.UUID
	}{
		{"zero bound", time.Time{}, nil},
		{"before old", base.Add(-time.Second), []uuid.UUID{never.ID}},
		{"exactly old is excluded", micro(base), []uuid.UUID{never.ID}},
		// Stored times are rounded up to the microsecond, never before
		// the time given: a bound at that time leaves old out.
		{"old's own time is excluded", base, []uuid.UUID{never.ID}},
		// Bounds are not rounded: old, stored at micro(base), is before a
		// bound later in the same microsecond, and must be found.
		{"within old's microsecond", micro(base).Add(999 * time.Nanosecond), []uuid.UUID{never.ID, old.ID}},
		{"one nanosecond after old", micro(base).Add(time.Nanosecond), []uuid.UUID{never.ID, old.ID}},
		{"just after old", micro(base).Add(time.Microsecond), []uuid.UUID{never.ID, old.ID}},
		{"after all", base.Add(2 * time.Hour), []uuid.UUID{never.ID, old.ID, recent.ID}},
	} {
		got := ids(collectLinks(t, g, uuid.Nil, uuid.Nil, tc.before))
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %d links, want %d", tc.name, len(got), len(tc.want))
			continue
		}
		for _, id := range tc.want {
			if !got[id] {
				t.Errorf("%s: link %s missing", tc.name, id)
			}
		}
	}
}

// testManyLinksAcrossPages makes backends that read in pages cross several
// page boundaries.
func testManyLinksAcrossPages(t *testing.T, g linkgraph.Graph) {
	const n = 2500
	var all []*linkgraph.Link
	for i := 0; i < n; i += 500 {
		batch := make([]*linkgraph.Link, 500)
		for j := range batch {
			batch[j] = &linkgraph.Link{URL: fmt.Sprintf("https://example.com/page/%d", i+j), RetrievedAt: base}
		}
		if err := g.UpsertLinks(batch); err != nil {
			t.Fatalf("UpsertLinks: %v", err)
		}
		all = append(all, batch...)
	}
	want := sortedIDs(all)
	var got []uuid.UUID
	for _, l := range collectLinks(t, g, uuid.Nil, uuid.Nil, base.Add(time.Second)) {
		got = append(got, l.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("iterating %d links returned %d, or in the wrong order", n, len(got))
	}
}

// testWritesDuringIteration checks that an open iterator does not block
// writers (a crawler iterates the frontier while it upserts what it finds).
func testWritesDuringIteration(t *testing.T, g linkgraph.Graph) {
	mustUpsertLinks(t, g, 1200, base)
	it, err := g.Links(uuid.Nil, uuid.Nil, base.Add(time.Second))
	if err != nil {
		t.Fatalf("Links: %v", err)
	}
	defer it.Close()
	seen := 0
	for it.Next() {
		seen++
		if seen%100 != 1 {
			continue
		}
		round := seen
		done := make(chan error, 1)
		go func() {
			batch := make([]*linkgraph.Link, 200)
			for i := range batch {
				batch[i] = &linkgraph.Link{URL: fmt.Sprintf("https://example.com/during/%d/%d", round, i), RetrievedAt: base.Add(time.Hour)}
			}
			done <- g.UpsertLinks(batch)
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("UpsertLinks during iteration: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("UpsertLinks blocked by an open iterator")
		}
	}
	if err := it.Error(); err != nil {
		t.Fatalf("iterator: %v", err)
	}
	// New links are too recent for the filter, so exactly the old ones show.
	if seen != 1200 {
		t.Fatalf("iteration saw %d links, want 1200", seen)
	}
}

// testRetrievedAtFollowsClockReadings is testEdgeStampsFollowClockReadings
// for links: a link retrieved (its RetrievedAt read from time.Now) after
// the clock was read is not among the links retrieved before that
// reading, and is among those retrieved before a reading made after the
// upsert returned.
func testRetrievedAtFollowsClockReadings(t *testing.T, g linkgraph.Graph) {
	ids := func(links []*linkgraph.Link) map[uuid.UUID]bool {
		m := make(map[uuid.UUID]bool, len(links))
		for _, l := range links {
			m[l.ID] = true
		}
		return m
	}
	for try := range clockTries {
		// A new link, then the same link retrieved again.
		for _, u := range []string{fmt.Sprintf("https://example.com/%d", try), "https://example.com/again"} {
			before := time.Now()
			l := &linkgraph.Link{URL: u, RetrievedAt: time.Now()}
			err := g.UpsertLink(l)
			after := time.Now()
			if err != nil {
				t.Fatalf("UpsertLink: %v", err)
			}
			if ids(collectLinks(t, g, uuid.Nil, uuid.Nil, before))[l.ID] {
				t.Fatalf("try %d, %s: Links retrieved before %v (read before the retrieval) include the link retrieved at %v",
					try, u, before.UTC(), l.RetrievedAt)
			}
			if !ids(collectLinks(t, g, uuid.Nil, uuid.Nil, after))[l.ID] {
				t.Fatalf("try %d, %s: Links retrieved before %v (read after the upsert) leave out the link retrieved at %v",
					try, u, after.UTC(), l.RetrievedAt)
			}
			if l.RetrievedAt.Before(before) || !l.RetrievedAt.Before(after) {
				t.Fatalf("try %d, %s: RetrievedAt %v, want in [%v, %v), the clock read before and after the call",
					try, u, l.RetrievedAt, before.UTC(), after.UTC())
			}
		}
	}
}
