package engine

import (
	"context"
	"net/url"
	"sync"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/scope"
	"github.com/linksrus/linksrus/linkgraph"
)

// discovery is how a run learns of the links its pages follow (through the
// crawler's Frontier.Found, once a batch of pages is stored and its links
// have IDs): it queues those in scope, in the run's partition and not
// retrieved recently enough. Following a page's followed links, not all
// its links, is what keeps rel=nofollow links, and the links of pages
// marked nofollow, out of the frontier. It also knows the IDs of links
// that cannot be queued again (claimed, or out of scope), which the
// crawler need not upsert again (Frontier.KnownLinkID).
type discovery struct {
	run *Run

	mu sync.Mutex
	// referrers keeps a few pages linking to each link found
	// (Options.Referrers).
	referrers map[uuid.UUID][]uuid.UUID

	// known holds the IDs of links the run has claimed (queued or
	// fetched), leftOut those of links out of its scope. They are caches
	// of maxKnownLinks each, apart, so that a site's many links elsewhere
	// do not push out the site's own.
	knownMu sync.Mutex
	known   *linkIDs
	leftOut *linkIDs
}

// maxKnownLinks bounds discovery.known and leftOut (see linkIDs): enough
// for the links pages share (their navigation) and the links found again
// soon after they were first found, without growing with a large crawl
// (at 1<<18 each they were a third of the live heap of a million-page
// crawl).
const maxKnownLinks = 1 << 16

func newDiscovery(run *Run) *discovery {
	return &discovery{
		run:       run,
		referrers: make(map[uuid.UUID][]uuid.UUID),
		known:     newLinkIDs(maxKnownLinks),
		leftOut:   newLinkIDs(maxKnownLinks),
	}
}

// knowLink records the ID of a link the run has claimed.
func (d *discovery) knowLink(url string, id uuid.UUID) {
	d.knownMu.Lock()
	defer d.knownMu.Unlock()
	d.known.put(url, id)
}

// leaveOut records the ID of a link out of the run's scope, and reports
// whether it was recorded already.
func (d *discovery) leaveOut(url string, id uuid.UUID) (before bool) {
	d.knownMu.Lock()
	defer d.knownMu.Unlock()
	if _, before = d.leftOut.get(url); !before {
		d.leftOut.put(url, id)
	}
	return before
}

// knownLinkID returns the ID of a link the run has claimed, or found out
// of its scope: as it cannot be queued (again), discovery has no use for
// the rest of what the graph stores of it.
func (d *discovery) knownLinkID(url string) (uuid.UUID, bool) {
	d.knownMu.Lock()
	defer d.knownMu.Unlock()
	if id, ok := d.known.get(url); ok {
		return id, true
	}
	return d.leftOut.get(url)
}

// found handles the links a batch of stored pages follows. In a shared
// crawl the links queued go to the shared queue before it returns, so
// before the pages are marked retrieved: a crash must not lose the links
// of a page it crawled.
func (d *discovery) found(ctx context.Context, found []crawler.Found) error {
	r := d.run
	// A link several pages of the batch follow is decided on once (but
	// for one too deep, which a shallower page may still reach).
	decided := make(map[uuid.UUID]bool)
	for _, fp := range found {
		// A redirected page is stored under its final URL's link, which
		// the frontier never queued: its links are one hop deeper than
		// the link it was handed out as.
		depth := 1
		if dd, ok := r.frontier.depthOf(fp.Page.LinkID); ok {
			depth = dd + 1
		}
		for _, l := range fp.Links {
			d.refer(fp.Page.PageID, l.ID)
			if decided[l.ID] {
				continue
			}
			final, err := d.follow(l, depth)
			if err != nil {
				return err
			}
			decided[l.ID] = final
		}
	}
	return r.frontier.work.flush(ctx)
}

// refer records that src links to dst, for Options.Referrers.
func (d *discovery) refer(src, dst uuid.UUID) {
	n := d.run.opts.Referrers
	if n <= 0 {
		return
	}
	d.mu.Lock()
	if refs := d.referrers[dst]; len(refs) < n {
		d.referrers[dst] = append(refs, src)
	}
	d.mu.Unlock()
}

// follow handles a followed link l found at depth; it reports whether the
// decision is final for this batch (all but a link too deep, which a
// shallower page may still reach).
func (d *discovery) follow(l linkgraph.Link, depth int) (bool, error) {
	r := d.run
	if r.frontier.isSeen(l.URL) {
		d.knowLink(l.URL, l.ID)
		return true, nil
	}
	// A link the crawler left out of its upserts carries its ID alone;
	// the run knows it (claimed or out of scope), so it is decided.
	if _, known := d.knownLinkID(l.URL); known || !l.RetrievedAt.Before(r.cutoff) {
		return true, nil
	}
	u, err := url.Parse(l.URL)
	reason := scope.SkipInvalid
	if err == nil {
		reason = r.scope.Check(u, depth)
	}
	switch {
	case reason == scope.SkipDepth:
		// A shorter path may still reach it.
		r.stats.note("depth")
		return false, nil
	case reason != scope.InScope:
		// Out of scope whatever the path to it (but for a filter, which
		// is given the depth): left out from now on, the link is neither
		// upserted again by the pages that have it nor counted again,
		// even when two batches stored at once both find it.
		if reason == scope.SkipFilter || !d.leaveOut(l.URL, l.ID) {
			r.stats.note("scope: " + reason.String())
		}
	case !r.frontier.work.owns(l.ID):
		// Another process's share; it finds the link in the graph.
	default:
		if _, err := r.frontier.add(l, depth); err != nil {
			return true, err
		}
		if r.frontier.isSeen(l.URL) {
			d.knowLink(l.URL, l.ID)
		}
	}
	return true, nil
}

// referrersOf returns the pages seen linking to id.
func (d *discovery) referrersOf(id uuid.UUID) []uuid.UUID {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]uuid.UUID(nil), d.referrers[id]...)
}
