package warc

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds on what a record's header may hold, so that a file of garbage
// (one endless line, say) costs bounded memory.
const (
	maxLine        = 64 << 10 // a WARC or HTTP header line
	maxHeaderBytes = 1 << 20  // all of a record's WARC or HTTP header
)

// ErrFormat is wrapped by the errors of input that is not WARC.
var ErrFormat = errors.New("warc: malformed")

// IsWARC reports whether a file name is a WARC file's: .warc or .warc.gz.
func IsWARC(name string) bool {
	return strings.HasSuffix(name, ".warc") || strings.HasSuffix(name, ".warc.gz")
}

// ReadDir iterates over the response records of the WARC files of dir (not
// its subdirectories), file after file in the order of their names (the
// order a Writer wrote them in), as Exchanges without their Request. A
// body longer than maxBody is cut there (TruncatedLength), so that no
// record, however large, takes more memory than that. Other records
// (requests, metadata, warcinfo), responses that are not HTTP and HTTP
// messages that do not parse are skipped. The first error ends the
// iteration: a file that cannot be read, or input that is not WARC (a
// truncated gzip stream among them), naming the file and the offset.
func ReadDir(ctx context.Context, dir string, maxBody int64) iter.Seq2[*Exchange, error] {
	return func(yield func(*Exchange, error) bool) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			yield(nil, fmt.Errorf("warc: read directory: %w", err))
			return
		}
		var names []string
		for _, e := range entries {
			if !e.IsDir() && IsWARC(e.Name()) {
				names = append(names, e.Name())
			}
		}
		slices.Sort(names)
		for _, name := range names {
			if !readFile(ctx, filepath.Join(dir, name), maxBody, yield) {
				return
			}
		}
	}
}

// readFile yields the responses of one file; it reports false if the
// iteration must stop.
func readFile(ctx context.Context, path string, maxBody int64, yield func(*Exchange, error) bool) bool {
	f, err := os.Open(path)
	if err != nil {
		return yield(nil, fmt.Errorf("warc: open: %w", err))
	}
	defer f.Close()
	for x, err := range Read(ctx, f, filepath.Base(path), maxBody) {
		if !yield(x, err) || err != nil {
			return false
		}
	}
	return true
}

// Read iterates over the response records of one WARC stream, as ReadDir
// does for each file: gzipped (a member per record, or several records to
// a member) or not. name names the stream in errors.
func Read(ctx context.Context, r io.Reader, name string, maxBody int64) iter.Seq2[*Exchange, error] {
	return func(yield func(*Exchange, error) bool) {
		cr := &countingReader{r: r}
		br := bufio.NewReaderSize(cr, maxLine)
		rd := &recordReader{ctx: ctx, maxBody: maxBody}
		var zr *gzip.Reader
		var zbr *bufio.Reader
		for {
			offset := cr.n - int64(br.Buffered())
			fail := func(err error) { yield(nil, fmt.Errorf("warc: read %s at offset %d: %w", name, offset, err)) }
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			magic, err := br.Peek(2)
			if len(magic) == 0 && err == io.EOF {
				return
			}
			src := br
			if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
				if zr == nil {
					zr, err = gzip.NewReader(br)
				} else {
					err = zr.Reset(br)
				}
				if err != nil {
					fail(fmt.Errorf("%w: gzip: %w", ErrFormat, err))
					return
				}
				zr.Multistream(false) // a member at a time, to know where the next begins
				if zbr == nil {
					zbr = bufio.NewReaderSize(zr, maxLine)
				} else {
					zbr.Reset(zr)
				}
				src = zbr
			}
			// Every record of a member (or one, uncompressed).
			for {
				x, err := rd.next(src)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					fail(err)
					return
				}
				if x != nil && !yield(x, nil) {
					return
				}
				if src == br {
					break
				}
			}
		}
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// recordReader reads records one after the other.
type recordReader struct {
	ctx     context.Context
	maxBody int64
}

// next reads one record from src and returns its exchange, or nil for a
// record that is not an HTTP response; io.EOF if src ends before a record
// begins.
func (rd *recordReader) next(src *bufio.Reader) (*Exchange, error) {
	// Blank lines between records are tolerated, as other readers do.
	var line []byte
	for {
		var err error
		line, err = readLine(src)
		if err == io.EOF && len(line) == 0 {
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			break
		}
	}
	if !bytes.HasPrefix(line, []byte("WARC/")) {
		return nil, fmt.Errorf("%w: expected a WARC version line, got %.40q", ErrFormat, line)
	}
	fields, err := readFields(src)
	if err != nil {
		return nil, err
	}
	length, err := strconv.ParseInt(fields.Get("Content-Length"), 10, 64)
	if err != nil || length < 0 {
		return nil, fmt.Errorf("%w: bad Content-Length %q", ErrFormat, fields.Get("Content-Length"))
	}
	block := &io.LimitedReader{R: src, N: length}
	x, err := rd.exchange(fields, block)
	if err != nil {
		return nil, err
	}
	// The rest of the block, unread, then the record's end (CRLF CRLF,
	// leniently: any CR and LF).
	if err := discard(rd.ctx, block); err != nil {
		return nil, err
	}
	if block.N > 0 {
		return nil, fmt.Errorf("%w: record ends %d bytes early: %w", ErrFormat, block.N, io.ErrUnexpectedEOF)
	}
	for range 4 {
		c, err := src.ReadByte()
		if err != nil {
			break // the end of the stream serves as the record's end
		}
		if c != '\r' && c != '\n' {
			_ = src.UnreadByte()
			break
		}
	}
	return x, nil
}

// exchange returns the exchange of a record whose block is block, or nil
// if it is not an HTTP response.
func (rd *recordReader) exchange(fields http.Header, block io.Reader) (*Exchange, error) {
	if !strings.EqualFold(fields.Get("WARC-Type"), "response") ||
		!strings.HasPrefix(strings.ToLower(fields.Get("Content-Type")), "application/http") {
		return nil, nil
	}
	target := strings.Trim(fields.Get("WARC-Target-URI"), "<>") // WARC 1.0 wrote it in angle brackets
	if target == "" {
		return nil, fmt.Errorf("%w: response record without WARC-Target-URI", ErrFormat)
	}
	date, err := time.Parse(time.RFC3339Nano, fields.Get("WARC-Date"))
	if err != nil {
		return nil, fmt.Errorf("%w: bad WARC-Date of %s: %w", ErrFormat, target, err)
	}
	// The HTTP header is read with the same bounds as the WARC header,
	// then handed to net/http with the body behind it (which undoes a
	// chunked Transfer-Encoding that another tool may have kept).
	hb := bufio.NewReaderSize(block, maxLine)
	var head bytes.Buffer
	for {
		line, err := readLine(hb)
		if err != nil {
			return nil, nil // not an HTTP message: skipped
		}
		head.Write(line)
		if head.Len() > maxHeaderBytes {
			return nil, nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			break
		}
	}
	res, err := http.ReadResponse(bufio.NewReader(io.MultiReader(&head, hb)), nil)
	if err != nil {
		return nil, nil // not an HTTP response: skipped
	}
	out := &Response{
		Proto:      res.Proto,
		StatusCode: res.StatusCode,
		Status:     res.Status,
		Header:     res.Header,
		Truncated:  Truncation(fields.Get("WARC-Truncated")),
	}
	// One byte past the limit tells a body of exactly maxBody from a
	// longer one.
	out.Body, err = io.ReadAll(io.LimitReader(res.Body, rd.maxBody+1))
	if err != nil && out.Truncated == "" {
		// The message ends before its length or last chunk: cut by the
		// tool that wrote it, which did not say why.
		out.Truncated = TruncatedUnspecified
	}
	if int64(len(out.Body)) > rd.maxBody {
		out.Body = out.Body[:rd.maxBody]
		out.Truncated = cmp.Or(out.Truncated, TruncatedLength)
	}
	return &Exchange{URL: target, Date: date, Response: out}, nil
}

// readLine reads a line, ending in LF, of at most maxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, fmt.Errorf("%w: a header line longer than %d bytes", ErrFormat, maxLine)
	case err == io.EOF && len(line) > 0:
		return nil, fmt.Errorf("%w: %w", ErrFormat, io.ErrUnexpectedEOF)
	case err != nil:
		return nil, err
	}
	return line, nil
}

// readFields reads a record's named fields, up to the blank line.
func readFields(r *bufio.Reader) (http.Header, error) {
	h := http.Header{}
	size := 0
	var last string
	// The continuation lines of the last field, joined once the field
	// ends: appending each to the value as it comes would copy the value
	// every time, quadratic in a header of many short lines.
	var cont []string
	endField := func() {
		if len(cont) > 0 {
			vs := h[last]
			vs[len(vs)-1] += " " + strings.Join(cont, " ")
			cont = cont[:0]
		}
	}
	for {
		line, err := readLine(r)
		if err == io.EOF {
			err = fmt.Errorf("%w: %w", ErrFormat, io.ErrUnexpectedEOF)
		}
		if err != nil {
			return nil, err
		}
		if size += len(line); size > maxHeaderBytes {
			return nil, fmt.Errorf("%w: a WARC header longer than %d bytes", ErrFormat, maxHeaderBytes)
		}
		s := strings.TrimRight(string(line), "\r\n")
		if s == "" {
			endField()
			return h, nil
		}
		if (s[0] == ' ' || s[0] == '\t') && last != "" {
			// A continuation of the previous field's value.
			cont = append(cont, strings.TrimSpace(s))
			continue
		}
		endField()
		name, value, ok := strings.Cut(s, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("%w: bad header line %.40q", ErrFormat, s)
		}
		last = http.CanonicalHeaderKey(strings.TrimSpace(name))
		h[last] = append(h[last], strings.TrimSpace(value))
	}
}

// discard reads r to its end, a megabyte at a time, so that a long record
// (a gzip bomb inside a WARC member) can be given up on.
func discard(ctx context.Context, r io.Reader) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := io.CopyN(io.Discard, r, 1<<20)
		if err == io.EOF || n < 1<<20 && err == nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrFormat, err)
		}
	}
}
