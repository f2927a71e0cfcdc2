package warc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/archive/warc"
	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/textindex"
	indexmem "github.com/linksrus/linksrus/textindex/memory"
)

// writeSiteArchive writes one WARC file of n exchanges of a small site:
// HTML pages linking to the next three, with an image every 7th and a
// 404 every 11th (responses an import skips). It returns the file's path.
func writeSiteArchive(t *testing.T, dir string, n int) string {
	t.Helper()
	w, err := warc.NewWriter(warc.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		u := fmt.Sprintf("http://site.example/page/%d", i)
		var x *warc.Exchange
		switch {
		case i%7 == 3:
			x = exchange(u, 200, http.Header{"Content-Type": {"image/png"}}, nil, warc.TruncatedUnspecified)
		case i%11 == 5:
			x = exchange(u, 404, htmlHeader(), nil, warc.TruncatedUnspecified)
		default:
			body := fmt.Sprintf("<title>page %d</title><p>%s</p>", i, strings.Repeat("words of the page ", 20))
			for j := i + 1; j <= i+3; j++ {
				body += fmt.Sprintf(`<a href="/page/%d">next</a>`, j)
			}
			x = exchange(u, 200, htmlHeader(), []byte(body), "")
		}
		if err := w.Record(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	warcs := files(t, dir, ".warc.gz")
	if len(warcs) != 1 {
		t.Fatalf("files %v, want one", warcs)
	}
	return warcs[0]
}

// cutInRecord writes, into a new directory, the first part of the WARC
// file at path: up to the middle of the response record that spans the
// file's middle, which its CDXJ index locates.
func cutInRecord(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(path + ".cdxj")
	if err != nil {
		t.Fatal(err)
	}
	half := len(data) / 2
	cut := -1
	for line := range strings.Lines(string(index)) {
		_, js, _ := strings.Cut(strings.SplitN(line, " ", 2)[1], " ")
		var f struct{ Offset, Length string }
		if err := json.Unmarshal([]byte(js), &f); err != nil {
			t.Fatal(err)
		}
		off, _ := strconv.Atoi(f.Offset)
		length, _ := strconv.Atoi(f.Length)
		if off <= half && half < off+length {
			cut = off + length/2
		}
	}
	if cut < 0 {
		cut = half // between records there is a request record to cut
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(path)), data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// archiveCounts reads dir as an import does and counts the responses
// before the read fails (or ends): the HTML pages an import stores and
// the responses it skips.
func archiveCounts(t *testing.T, dir string) (pages, skipped int, err error) {
	t.Helper()
	for p, err := range warc.ReadDir(context.Background(), dir, crawler.DefaultMaxBodyBytes) {
		if err != nil {
			return pages, skipped, err
		}
		if p.Response.StatusCode == 200 && strings.HasPrefix(p.Response.Header.Get("Content-Type"), "text/html") {
			pages++
		} else {
			skipped++
		}
	}
	return pages, skipped, nil
}

// importedCounts counts the pages a graph holds as retrieved and the ones
// of them the index holds.
func importedCounts(t *testing.T, g *graphmem.Graph, ix *indexmem.Index) (crawled, indexed int) {
	t.Helper()
	it, err := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for it.Next() {
		l := it.Link()
		if l.RetrievedAt.IsZero() {
			continue
		}
		crawled++
		if _, err := ix.FindByID(l.ID); err == nil {
			indexed++
		} else if !errors.Is(err, textindex.ErrNotFound) {
			t.Fatal(err)
		}
	}
	return crawled, indexed
}

// An archive cut in the middle of a record imports every complete record
// before the cut, the same every time: the count returned is what the
// stores hold, the skips reported are the responses skipped for what they
// are, none for the stop; the error says the archive ends early. Importing
// the whole archive afterwards completes the stores.
func TestImportTruncatedArchive(t *testing.T) {
	whole := t.TempDir()
	path := writeSiteArchive(t, whole, 600)
	cut := cutInRecord(t, path)
	wantPages, wantSkipped, readErr := archiveCounts(t, cut)
	if !errors.Is(readErr, io.ErrUnexpectedEOF) || wantPages < 100 {
		t.Fatalf("the cut archive reads as %d pages, then %v; want many pages, then an unexpected EOF", wantPages, readErr)
	}
	allPages, _, err := archiveCounts(t, whole)
	if err != nil {
		t.Fatal(err)
	}

	for run := range 5 {
		g, ix := graphmem.New(), indexmem.New()
		var mu sync.Mutex
		reasons := map[crawler.Reason]int{}
		c, err := crawler.NewCrawler(crawler.Config{
			FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("0.0.0.0/0"))},
			Graph:        g,
			Index:        ix,
			OnOutcome: func(o crawler.Outcome) {
				mu.Lock()
				defer mu.Unlock()
				reasons[o.Reason]++
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		n, err := c.Import(context.Background(), crawler.WARCPages(warc.ReadDir(context.Background(), cut, crawler.DefaultMaxBodyBytes)))
		if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), filepath.Base(path)) {
			t.Fatalf("run %d: import error %v, want the file's unexpected EOF", run, err)
		}
		crawled, indexed := importedCounts(t, g, ix)
		mu.Lock()
		skipped := reasons[crawler.ReasonContentType] + reasons[crawler.ReasonHTTPStatus]
		if n != wantPages || crawled != wantPages || indexed != wantPages || reasons[crawler.ReasonCrawled] != wantPages ||
			skipped != wantSkipped || reasons[crawler.ReasonCanceled] != 0 || reasons[crawler.ReasonDropped] != 0 {
			t.Errorf("run %d: imported %d, stored %d, indexed %d, outcomes %v; want %d pages stored and %d skipped",
				run, n, crawled, indexed, reasons, wantPages, wantSkipped)
		}
		mu.Unlock()

		if run == 0 {
			// The whole archive, into the same stores, completes them.
			n, err := c.Import(context.Background(), crawler.WARCPages(warc.ReadDir(context.Background(), whole, crawler.DefaultMaxBodyBytes)))
			if err != nil {
				t.Fatal(err)
			}
			if crawled, indexed := importedCounts(t, g, ix); n != allPages || crawled != allPages || indexed != allPages {
				t.Errorf("whole archive after the cut one: imported %d, stored %d, indexed %d; want %d", n, crawled, indexed, allPages)
			}
		}
	}
}

// Cancelling the context the archive is read with stops an import
// cleanly: the pages read are stored, and counted, none abandoned.
func TestImportStoppedReading(t *testing.T) {
	dir := t.TempDir()
	writeSiteArchive(t, dir, 600)
	g, ix := graphmem.New(), indexmem.New()
	readCtx, stopReading := context.WithCancel(context.Background())
	defer stopReading()
	var mu sync.Mutex
	reasons := map[crawler.Reason]int{}
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("0.0.0.0/0"))},
		Graph:        g,
		Index:        ix,
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			reasons[o.Reason]++
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Reading stops after the 200th record, with the pages read before it
	// still on their way through the stages (stopping on an outcome
	// instead raced the reader, which could finish first).
	pages := crawler.WARCPages(warc.ReadDir(readCtx, dir, crawler.DefaultMaxBodyBytes))
	stopAt200 := func(yield func(*crawler.FetchedPage, error) bool) {
		read := 0
		for p, err := range pages {
			if !yield(p, err) {
				return
			}
			if read++; read == 200 {
				stopReading()
			}
		}
	}
	n, err := c.Import(context.Background(), stopAt200)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("import error %v, want context.Canceled", err)
	}
	crawled, indexed := importedCounts(t, g, ix)
	mu.Lock()
	defer mu.Unlock()
	if n < 50 || crawled != n || indexed != n || reasons[crawler.ReasonCrawled] != n || reasons[crawler.ReasonCanceled] != 0 {
		t.Errorf("imported %d, stored %d, indexed %d, outcomes %v; want the same count stored, at least 50, none canceled", n, crawled, indexed, reasons)
	}
}
