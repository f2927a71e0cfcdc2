package hostileweb_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

const bombPrefix = "<!doctype html><html><head><title>gzip bomb</title></head><body>"

func TestGzipBombInflatesToItsSize(t *testing.T) {
	sizes := []int64{
		1,
		int64(len(bombPrefix)),
		int64(len(bombPrefix)) + 1,
		int64(len(bombPrefix)) + 3<<20, // whole units only
		8<<20 + 12345,
	}
	for _, size := range sizes {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			opts := smallOptions
			opts.GzipBombSize = size
			s := start(t, opts)
			resp, raw := fetch(t, newClient(t, 10*time.Second), s.URL()+hostileweb.PathGzipBomb, 1<<20)
			if got := resp.Header.Get("Content-Encoding"); got != "gzip" {
				t.Fatalf("Content-Encoding = %q, want gzip", got)
			}
			if int64(len(raw)) != resp.ContentLength {
				t.Fatalf("read %d bytes, Content-Length %d", len(raw), resp.ContentLength)
			}
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("gzip header: %v", err)
			}
			// gzip.Reader checks the CRC-32 and size in the trailer at EOF.
			plain, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("inflate: %v", err)
			}
			if int64(len(plain)) != size {
				t.Fatalf("inflated to %d bytes, want %d", len(plain), size)
			}
			p := min(len(plain), len(bombPrefix))
			if string(plain[:p]) != bombPrefix[:p] {
				t.Errorf("inflated body starts %q, want %q", plain[:p], bombPrefix[:p])
			}
			if rest := plain[p:]; len(bytes.Trim(rest, " ")) != 0 {
				t.Errorf("after the prefix, want only spaces")
			}
		})
	}
}

func TestGzipBombDefaultRatio(t *testing.T) {
	s := start(t, hostileweb.Options{})
	resp, raw := fetch(t, newClient(t, 10*time.Second), s.URL()+hostileweb.PathGzipBomb, 4<<20)
	if resp.ContentLength > 2<<20 {
		t.Errorf("compressed size %d, want under 2 MiB for a 1 GiB bomb", resp.ContentLength)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	// Inflating the whole gigabyte takes too long under -race; the first
	// 64 MiB show the ratio, TestGzipBombInflatesToItsSize the trailer.
	const probe = 64 << 20
	if n, err := io.CopyN(io.Discard, zr, probe); err != nil {
		t.Fatalf("inflated %d bytes, then %v", n, err)
	}
	if ratio := float64(hostileweb.DefaultGzipBombSize) / float64(resp.ContentLength); ratio < 500 {
		t.Errorf("compression ratio %.0f:1, want at least 500:1", ratio)
	}
}
