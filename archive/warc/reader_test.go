package warc_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/archive/warc"
)

// readAll reads every response of a stream, or the error that ended it.
func readAll(data []byte, maxBody int64) ([]*warc.Exchange, error) {
	var pages []*warc.Exchange
	for p, err := range warc.Read(context.Background(), bytes.NewReader(data), "test", maxBody) {
		if err != nil {
			return pages, err
		}
		pages = append(pages, p)
	}
	return pages, nil
}

// rawRecord is a WARC record as another tool may write it.
func rawRecord(typ, target, block string, extra ...string) string {
	h := "WARC/1.0\r\nWARC-Type: " + typ + "\r\nWARC-Target-URI: " + target + "\r\nWARC-Date: 2020-01-02T03:04:05Z\r\n" +
		"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000000>\r\nContent-Type: application/http; msgtype=" + typ + "\r\n"
	for _, e := range extra {
		h += e + "\r\n"
	}
	return h + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(block)) + block + "\r\n\r\n"
}

func TestReadForeignRecords(t *testing.T) {
	chunked := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n<p>hi\r\n0\r\n\r\n"
	plain := "HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nnope"
	stream := rawRecord("request", "http://a.example/", "GET / HTTP/1.1\r\n\r\n") +
		rawRecord("response", "<http://a.example/>", chunked) +
		rawRecord("response", "http://a.example/x", plain) +
		rawRecord("response", "http://a.example/cut", plain, "WARC-Truncated: length") +
		rawRecord("metadata", "http://a.example/", "whatever")
	for name, data := range map[string][]byte{
		"plain":       []byte(stream),
		"one member":  gz([]byte(stream)), // several records to a member
		"per record ": bytes.Join([][]byte{gz([]byte(rawRecord("response", "http://a.example/", chunked))), gz([]byte(rawRecord("response", "http://a.example/x", plain)))}, nil),
	} {
		pages, err := readAll(data, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(pages) < 2 || pages[0].URL != "http://a.example/" || string(pages[0].Response.Body) != "<p>hi" || pages[0].Response.StatusCode != 200 ||
			pages[1].Response.StatusCode != 404 || string(pages[1].Response.Body) != "nope" || pages[0].Date.Year() != 2020 {
			t.Errorf("%s: pages %+v", name, pages)
		}
		if name == "plain" && (len(pages) != 3 || pages[2].Response.Truncated == "") {
			t.Errorf("%s: %d pages, the last truncated: %+v", name, len(pages), pages[len(pages)-1])
		}
	}
}

func TestReadBadInput(t *testing.T) {
	good := gz([]byte(rawRecord("response", "http://a.example/", "HTTP/1.1 200 OK\r\n\r\nhello")))
	for name, data := range map[string][]byte{
		"garbage":         []byte("this is not a WARC file\n"),
		"endless line":    bytes.Repeat([]byte("x"), 1<<20),
		"truncated gzip":  good[:len(good)-10],
		"short block":     []byte("WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 100\r\n\r\nabc"),
		"no length":       []byte("WARC/1.1\r\nWARC-Type: response\r\n\r\n"),
		"bad gzip header": {0x1f, 0x8b, 0, 0, 0},
		"good then junk":  append(bytes.Clone(good), "junk\n"...),
	} {
		pages, err := readAll(data, 1<<20)
		if err == nil || !errors.Is(err, warc.ErrFormat) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %d pages, error %v; want a format error", name, len(pages), err)
		}
		if err != nil && !strings.Contains(err.Error(), "test at offset") {
			t.Errorf("%s: error %q does not say where", name, err)
		}
	}
}

// A record whose body is far larger than the limit (inside a gzip member
// a few kilobytes long) yields a truncated page of the limit's size.
func TestReadHugeRecord(t *testing.T) {
	const size = 16 << 20
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	fmt.Fprintf(zw, "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\nWARC-Date: 2020-01-02T03:04:05Z\r\n"+
		"Content-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n%s", len(head)+size, head)
	zeros := make([]byte, 1<<20)
	for range size >> 20 {
		_, _ = zw.Write(zeros)
	}
	_, _ = io.WriteString(zw, "\r\n\r\n")
	_ = zw.Close()
	pages, err := readAll(buf.Bytes(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 || len(pages[0].Response.Body) != 1000 || pages[0].Response.Truncated == "" {
		t.Fatalf("got %d pages: %+v", len(pages), pages)
	}
}

// FuzzRead feeds Read arbitrary input: it must end with pages or an
// error, never panic or hang, and never hand out a body over the limit.
func FuzzRead(f *testing.F) {
	rec := rawRecord("response", "http://a.example/", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hello")
	f.Add([]byte(rec))
	f.Add(gz([]byte(rec)))
	f.Add(gz([]byte(rec + rec)))
	f.Add([]byte("WARC/1.1\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"))
	f.Add([]byte(rawRecord("response", "http://a.example/", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffff\r\nab")))
	f.Fuzz(func(t *testing.T, data []byte) {
		pages, _ := readAll(data, 64)
		for _, p := range pages {
			if len(p.Response.Body) > 64 || p.URL == "" || p.Response.Header == nil {
				t.Fatalf("bad page %+v", p)
			}
		}
	})
}
