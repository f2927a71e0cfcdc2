package warc

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// DefaultMaxFileSize is the size at which a WARC file is closed and the
// next begun: 1 GB, as the WARC standard recommends.
const DefaultMaxFileSize = 1_000_000_000

// Options configure a Writer.
type Options struct {
	// Dir is the directory of the files, created if missing. Required.
	Dir string
	// MaxFileSize is the size (compressed) at which a file is closed.
	// Default: DefaultMaxFileSize.
	MaxFileSize int64
	// Prefix begins the files' names. Default: "linksrus".
	Prefix string
	// Software names the program in the warcinfo records. Default:
	// DefaultSoftware.
	Software string
}

// DefaultSoftware is the Options.Software of a Writer given none: the
// name the linksrus crawler gives itself.
const DefaultSoftware = "linksrus-crawler/1.0 (+https://github.com/linksrus/linksrus)"

// Writer writes exchanges to rotating WARC files (see the package
// documentation). It is safe for concurrent use: records are
// written one exchange at a time.
type Writer struct {
	opts Options

	mu     sync.Mutex
	file   *os.File
	name   string // base name of the open file
	size   int64  // bytes written to it
	serial int
	infoID string   // the open file's warcinfo record
	index  []string // CDXJ lines of the open file
	err    error    // first write error: the Writer is then unusable
	closed bool
	files  int // files begun
	count  int // response records written
}

// Stats returns how many files the Writer has begun and how many
// responses it has written.
func (w *Writer) Stats() (files, responses int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.files, w.count
}

// NewWriter returns a Writer for opts; it creates the directory, and its
// first file with the first record.
func NewWriter(opts Options) (*Writer, error) {
	if opts.Dir == "" {
		return nil, errors.New("warc: no directory")
	}
	if opts.MaxFileSize < 0 {
		return nil, fmt.Errorf("warc: MaxFileSize %d < 0", opts.MaxFileSize)
	}
	opts.MaxFileSize = cmp.Or(opts.MaxFileSize, DefaultMaxFileSize)
	opts.Prefix = cmp.Or(opts.Prefix, "linksrus")
	opts.Software = cmp.Or(opts.Software, DefaultSoftware)
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("warc: create directory: %w", err)
	}
	return &Writer{opts: opts}, nil
}

// Record writes x as a response record and a request record (when x has
// its request) and indexes the response. It is safe to call concurrently.
func (w *Writer) Record(_ context.Context, x *Exchange) error {
	if x == nil || x.Response == nil {
		return errors.New("warc: exchange without a response")
	}
	// Records are built outside the lock: digests cost more than writes
	// (and SURT keys, at some microseconds, are not free either).
	digest := digestOf(x.Response.Body)
	key := SURT(x.URL)
	res := responseRecord(x, digest)
	var req *record
	if x.Request != nil && x.Request.URL != nil {
		req = requestRecord(x, res.id)
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	if w.file == nil {
		if err := w.open(); err != nil {
			return w.fail(err)
		}
	}
	offset := w.size
	n, err := w.write(res)
	if err != nil {
		return w.fail(err)
	}
	w.index = append(w.index, cdxjLine(x, key, digest, n, offset, w.name))
	w.count++
	if req != nil {
		if _, err := w.write(req); err != nil {
			return w.fail(err)
		}
	}
	if w.size >= w.opts.MaxFileSize {
		if err := w.closeFile(); err != nil {
			return w.fail(err)
		}
	}
	return nil
}

// Close closes the open file and writes its index. A Writer that failed
// returns its first error.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.file != nil {
		if err := w.closeFile(); err != nil && w.err == nil {
			w.err = err
		}
	}
	return w.err
}

func (w *Writer) usable() error {
	switch {
	case w.err != nil:
		return w.err
	case w.closed:
		return errors.New("warc: writer closed")
	}
	return nil
}

// fail keeps the first error: a file a write failed in may end in half a
// record, so nothing more is written to it.
func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// open begins the next file with its warcinfo record.
func (w *Writer) open() error {
	w.serial++
	name := fmt.Sprintf("%s-%s-%05d.warc.gz", w.opts.Prefix, time.Now().UTC().Format("20060102150405"), w.serial)
	f, err := os.OpenFile(filepath.Join(w.opts.Dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("warc: create file: %w", err)
	}
	w.file, w.name, w.size, w.index = f, name, 0, w.index[:0]
	w.files++
	info := record{typ: "warcinfo", id: newID(), date: time.Now(), contentType: "application/warc-fields"}
	info.fields = append(info.fields, [2]string{"WARC-Filename", name})
	info.block = [][]byte{fmt.Appendf(nil, "software: %s\r\nformat: WARC File Format 1.1\r\n"+
		"conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n", oneLine(w.opts.Software))}
	if _, err := w.write(&info); err != nil {
		return err
	}
	w.infoID = info.id
	return nil
}

// write writes rec as a gzip member of its own and returns the member's
// length.
func (w *Writer) write(rec *record) (int64, error) {
	rec.infoID = w.infoID
	cw := &countingWriter{w: w.file}
	zw := gzip.NewWriter(cw)
	if err := rec.writeTo(zw); err != nil {
		return 0, fmt.Errorf("warc: write %s: %w", w.name, err)
	}
	if err := zw.Close(); err != nil {
		return 0, fmt.Errorf("warc: write %s: %w", w.name, err)
	}
	w.size += cw.n
	return cw.n, nil
}

// closeFile closes the open file and writes its sorted index beside it.
func (w *Writer) closeFile() error {
	f := w.file
	w.file, w.infoID = nil, ""
	if err := f.Close(); err != nil {
		return fmt.Errorf("warc: close %s: %w", w.name, err)
	}
	slices.Sort(w.index) // pywb searches the index by binary search
	var buf bytes.Buffer
	for _, l := range w.index {
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(w.opts.Dir, w.name+".cdxj"), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("warc: write index of %s: %w", w.name, err)
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// record is a WARC record to write. The records are written here rather
// than with gowarc's RecordBuilder: gowarc v3.1.0 calls uuid.EnableRandPool
// in every NewRecordBuilder, an unsynchronised write to a global of
// github.com/google/uuid that races with every uuid.New of the process
// (the link graph makes IDs while pages are recorded).
type record struct {
	typ, id     string
	date        time.Time
	contentType string
	infoID      string
	fields      [][2]string // other named fields
	block       [][]byte    // the content block, in parts
}

func newID() string { return uuid.New().URN() }

// writeTo writes the record: version line, named fields, block and the
// two CRLF that end it.
func (r *record) writeTo(w io.Writer) error {
	var n int64
	for _, b := range r.block {
		n += int64(len(b))
	}
	var head bytes.Buffer
	head.WriteString("WARC/1.1\r\n")
	field := func(name, value string) { fmt.Fprintf(&head, "%s: %s\r\n", name, oneLine(value)) }
	field("WARC-Type", r.typ)
	field("WARC-Record-ID", "<"+r.id+">")
	field("WARC-Date", r.date.UTC().Format("2006-01-02T15:04:05.000000Z"))
	if r.infoID != "" {
		field("WARC-Warcinfo-ID", "<"+r.infoID+">")
	}
	for _, f := range r.fields {
		field(f[0], f[1])
	}
	field("Content-Type", r.contentType)
	field("Content-Length", strconv.FormatInt(n, 10))
	head.WriteString("\r\n")
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	for _, b := range r.block {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\r\n\r\n")
	return err
}

// oneLine keeps a field value on its line: a CR or LF in it (from a
// server's header, say) would start a field of its own.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

// digestOf is the SHA-1 of b in the base32 form of WARC files and CDX
// indexes.
func digestOf(b ...[]byte) string {
	h := sha1.New()
	for _, p := range b {
		h.Write(p)
	}
	return "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil))
}

// responseRecord builds the response record of x; its block holds the
// status line, the headers and the body.
func responseRecord(x *Exchange, payloadDigest string) *record {
	res := x.Response
	var head bytes.Buffer
	// HTTP/1.1 form whatever the protocol (see Response.Proto).
	proto := res.Proto
	if proto != "HTTP/1.0" {
		proto = "HTTP/1.1"
	}
	status := res.Status
	if status == "" {
		status = strconv.Itoa(res.StatusCode) + " " + http.StatusText(res.StatusCode)
	}
	fmt.Fprintf(&head, "%s %s\r\n", proto, oneLine(status))
	// Header.Write drops CR and LF from values itself.
	_ = res.Header.WriteSubset(&head, map[string]bool{"Transfer-Encoding": true}) // a bytes.Buffer does not fail
	head.WriteString("\r\n")

	r := &record{typ: "response", id: newID(), date: x.Date, contentType: "application/http;msgtype=response"}
	r.fields = append(r.fields,
		[2]string{"WARC-Target-URI", x.URL},
		[2]string{"WARC-Block-Digest", digestOf(head.Bytes(), res.Body)},
		[2]string{"WARC-Payload-Digest", payloadDigest})
	if res.Truncated != "" {
		r.fields = append(r.fields, [2]string{"WARC-Truncated", string(res.Truncated)})
	}
	r.block = [][]byte{head.Bytes(), res.Body}
	return r
}

// leftOutOfRequests are the request headers a request record leaves out:
// Host, written first, and the credentials a request decorator may add,
// which an archive (shared, published) must not give away.
var leftOutOfRequests = map[string]bool{"Host": true, "Authorization": true, "Proxy-Authorization": true, "Cookie": true}

// requestRecord builds the request record of x, concurrent to the
// response record resID.
func requestRecord(x *Exchange, resID string) *record {
	req := x.Request
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\n", oneLine(cmp.Or(req.Method, http.MethodGet)), oneLine(req.URL.RequestURI()), oneLine(req.URL.Host))
	_ = req.Header.WriteSubset(&head, leftOutOfRequests)
	head.WriteString("\r\n")
	r := &record{typ: "request", id: newID(), date: x.Date, contentType: "application/http;msgtype=request"}
	r.fields = append(r.fields,
		[2]string{"WARC-Target-URI", x.URL},
		[2]string{"WARC-Concurrent-To", "<" + resID + ">"},
		[2]string{"WARC-Block-Digest", digestOf(head.Bytes())})
	r.block = [][]byte{head.Bytes()}
	return r
}

// cdxjLine is the index line of a response record; key is its URL's SURT.
func cdxjLine(x *Exchange, key, digest string, length, offset int64, file string) string {
	mime := x.Response.Header.Get("Content-Type")
	mime, _, _ = strings.Cut(mime, ";")
	fields := struct {
		URL      string `json:"url"`
		Mime     string `json:"mime"`
		Status   string `json:"status"`
		Digest   string `json:"digest"`
		Length   string `json:"length"`
		Offset   string `json:"offset"`
		Filename string `json:"filename"`
	}{x.URL, cmp.Or(strings.TrimSpace(mime), "unk"), strconv.Itoa(x.Response.StatusCode), strings.TrimPrefix(digest, "sha1:"),
		strconv.FormatInt(length, 10), strconv.FormatInt(offset, 10), file}
	js, _ := json.Marshal(fields) // strings only: cannot fail
	return key + " " + x.Date.UTC().Format("20060102150405") + " " + string(js)
}
