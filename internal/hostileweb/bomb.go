package hostileweb

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net/http"
	"strconv"
)

// bombPrefix opens the inflated body, so that what a crawler sees is an HTML
// page followed by an ocean of spaces.
const bombPrefix = "<!doctype html><html><head><title>gzip bomb</title></head><body>"

// bombUnit is how many spaces one repeated deflate segment inflates to.
const bombUnit = 1 << 20

// gzipBomb is a gzip stream assembled from deflate segments instead of
// compressed in one go: compressing a gigabyte would take seconds, while
// repeating one precompressed segment costs nothing. Each segment comes from
// a fresh compressor and ends with a sync flush, so it is byte-aligned and
// refers to no earlier data, which makes any concatenation of segments a
// valid deflate stream (RFC 1951). Only the trailer's CRC-32 needs a pass
// over the inflated size, done once in newGzipBomb.
type gzipBomb struct {
	head   []byte // gzip header and the segment for the prefix
	unit   []byte // segment inflating to bombUnit spaces
	units  int64  // how many times unit repeats
	tail   []byte // segment for the remaining spaces, final block and gzip trailer
	length int64  // compressed length: the Content-Length
}

func newGzipBomb(size int64) (*gzipBomb, error) {
	prefix := []byte(bombPrefix)
	if int64(len(prefix)) > size {
		prefix = prefix[:size]
	}
	spaces := size - int64(len(prefix))
	units, rest := spaces/bombUnit, spaces%bombUnit
	unitPlain := bytes.Repeat([]byte{' '}, bombUnit)

	b := &gzipBomb{units: units}
	// RFC 1952 header: magic, deflate, no flags, no mtime, no extra flags, unknown OS.
	b.head = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	seg, err := deflateSegment(prefix, false)
	if err != nil {
		return nil, err
	}
	b.head = append(b.head, seg...)
	if b.unit, err = deflateSegment(unitPlain, false); err != nil {
		return nil, err
	}
	if b.tail, err = deflateSegment(unitPlain[:rest], true); err != nil {
		return nil, err
	}

	sum := crc32.ChecksumIEEE(prefix)
	for range units {
		sum = crc32.Update(sum, crc32.IEEETable, unitPlain)
	}
	sum = crc32.Update(sum, crc32.IEEETable, unitPlain[:rest])
	b.tail = binary.LittleEndian.AppendUint32(b.tail, sum)
	b.tail = binary.LittleEndian.AppendUint32(b.tail, uint32(size)) // ISIZE is the size mod 2^32

	b.length = int64(len(b.head)) + units*int64(len(b.unit)) + int64(len(b.tail))
	return b, nil
}

// deflateSegment compresses p with a fresh compressor. A non-final segment
// ends with a sync flush; a final one ends the deflate stream.
func deflateSegment(p []byte, final bool) ([]byte, error) {
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("new deflate writer: %w", err)
	}
	if _, err := fw.Write(p); err != nil {
		return nil, fmt.Errorf("deflate: %w", err)
	}
	if final {
		err = fw.Close()
	} else {
		err = fw.Flush()
	}
	if err != nil {
		return nil, fmt.Errorf("deflate flush: %w", err)
	}
	return buf.Bytes(), nil
}

// serveGzipBomb sends the bomb with Content-Encoding: gzip whatever the
// request's Accept-Encoding says, as a hostile server would. The transfer is
// small; only a limit on the decoded size defends the crawler.
func (s *Server) serveGzipBomb(w http.ResponseWriter, r *http.Request) {
	b := s.bomb
	h := w.Header()
	h.Set("Content-Type", contentTypeHTML)
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.FormatInt(b.length, 10))
	if _, err := w.Write(b.head); err != nil {
		return
	}
	for i := range b.units {
		if i%64 == 0 && r.Context().Err() != nil {
			return
		}
		if _, err := w.Write(b.unit); err != nil {
			return
		}
	}
	_, _ = w.Write(b.tail) // the client may be gone; there is no one left to tell
}
