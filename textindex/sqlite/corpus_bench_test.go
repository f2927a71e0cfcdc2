package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/sqlite"
)

// BenchmarkCrawledCorpus indexes the pages of an index built by a real
// crawl, in batches of the sizes the crawler's indexer stage sees (up to
// crawler.DefaultStoreBatchSize, 256, under load), into a
// new index per round (opening excluded, closing with its final checkpoint
// included). Generated text says little about FTS5's cost on real pages,
// so the corpus is an index.db from `linksrus crawl --data DIR`, named by
// LINKSRUS_BENCH_CORPUS; without it the benchmark is skipped. It reports
// pages per wall second and per CPU second of the process, the latter
// being steadier on a shared machine.
//
// hashed=true gives the pages their ContentHash, as the crawler does, so
// that the index keeps duplicate groups (one lookup of the group's
// canonical per new page, and only the canonical's text in FTS5).
func BenchmarkCrawledCorpus(b *testing.B) {
	plain := loadCrawledCorpus(b)
	hashed := make([]*textindex.Document, len(plain))
	for n, d := range plain {
		h := *d
		h.ContentHash = textindex.ContentHash(d.Title, d.Content)
		hashed[n] = &h
	}
	for _, bc := range []struct {
		size int
		docs []*textindex.Document
		name string
	}{{7, plain, "false"}, {64, plain, "false"}, {256, plain, "false"}, {7, hashed, "true"}, {64, hashed, "true"}, {256, hashed, "true"}} {
		size, docs := bc.size, bc.docs
		b.Run(fmt.Sprintf("batch=%d/hashed=%s", size, bc.name), func(b *testing.B) {
			var wall, cpu time.Duration
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				idx, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "index.db"), sqlite.Options{})
				if err != nil {
					b.Fatalf("Open: %v", err)
				}
				b.StartTimer()
				start, cpu0 := time.Now(), cpuTime(b)
				for lo := 0; lo < len(docs); lo += size {
					if err := idx.IndexBatch(docs[lo:min(lo+size, len(docs))]); err != nil {
						b.Fatalf("IndexBatch: %v", err)
					}
				}
				if err := idx.Close(); err != nil {
					b.Fatalf("Close: %v", err)
				}
				wall += time.Since(start)
				cpu += cpuTime(b) - cpu0
			}
			pages := float64(len(docs) * b.N)
			b.ReportMetric(pages/wall.Seconds(), "pages/s")
			b.ReportMetric(pages/cpu.Seconds(), "pages/cpu-s")
		})
	}
}

// loadCrawledCorpus reads the stored pages of the index named by
// LINKSRUS_BENCH_CORPUS, giving each a new LinkID.
func loadCrawledCorpus(b *testing.B) []*textindex.Document {
	path := os.Getenv("LINKSRUS_BENCH_CORPUS")
	if path == "" {
		b.Skip("LINKSRUS_BENCH_CORPUS names no index.db from a crawl")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatalf("open corpus: %v", err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT url, title, content, indexed_at FROM bodies ORDER BY id`)
	if err != nil {
		b.Fatalf("read corpus: %v", err)
	}
	defer rows.Close()
	var docs []*textindex.Document
	for rows.Next() {
		d := &textindex.Document{LinkID: uuid.New()}
		var at string
		if err := rows.Scan(&d.URL, &d.Title, &d.Content, &at); err != nil {
			b.Fatalf("read corpus: %v", err)
		}
		d.IndexedAt, _ = time.Parse(time.RFC3339Nano, at)
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		b.Fatalf("read corpus: %v", err)
	}
	if len(docs) == 0 {
		b.Fatalf("corpus %s holds no pages", path)
	}
	return docs
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
