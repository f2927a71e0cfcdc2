package engine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/linksrus/linksrus/linkgraph"
)

// spill holds the links the frontier has no room for in memory, in a
// temporary file per depth level, so that they come back shallowest first
// and with their depth. Each level is a queue: records are appended at the
// end and read from the front; a level read to its end is truncated.
// The files are created on first use and removed by close.
type spill struct {
	dir    string
	levels []*spillLevel
	n      int
}

type spillLevel struct {
	f        *os.File
	w        *bufio.Writer
	readOff  int64
	writeOff int64
	n        int
}

func newSpill(dir string, levels int) *spill {
	return &spill{dir: dir, levels: make([]*spillLevel, levels)}
}

func (s *spill) len() int { return s.n }

// write appends l at depth.
func (s *spill) write(l linkgraph.Link, depth int) error {
	li := min(depth, len(s.levels)-1)
	lv := s.levels[li]
	if lv == nil {
		f, err := os.CreateTemp(s.dir, "linksrus-frontier-*.spill")
		if err != nil {
			return fmt.Errorf("engine: frontier spill: %w", err)
		}
		// Unlinked at once where the OS allows: nothing is left behind
		// even if the process dies.
		_ = os.Remove(f.Name())
		lv = &spillLevel{f: f, w: bufio.NewWriterSize(f, 64<<10)}
		s.levels[li] = lv
	}
	// ID, depth, RetrievedAt, then the URL and the validators (a
	// recrawled page's, for its conditional request), each after its
	// length.
	var rec [binary.MaxVarintLen64*5 + 16]byte
	b := append(rec[:0], l.ID[:]...)
	b = binary.AppendUvarint(b, uint64(depth))
	b = binary.AppendVarint(b, retrievedNanos(l.RetrievedAt))
	b = binary.AppendUvarint(b, uint64(len(l.URL)))
	b = binary.AppendUvarint(b, uint64(len(l.ETag)))
	b = binary.AppendUvarint(b, uint64(len(l.LastModified)))
	if _, err := lv.w.Write(b); err != nil {
		return fmt.Errorf("engine: frontier spill: %w", err)
	}
	for _, str := range [...]string{l.URL, l.ETag, l.LastModified} {
		if _, err := lv.w.WriteString(str); err != nil {
			return fmt.Errorf("engine: frontier spill: %w", err)
		}
	}
	lv.writeOff += int64(len(b) + len(l.URL) + len(l.ETag) + len(l.LastModified))
	lv.n++
	s.n++
	return nil
}

// read takes up to max links from the front, shallowest level first, and
// passes each to fn.
func (s *spill) read(max int, fn func(l linkgraph.Link, depth int) error) error {
	for _, lv := range s.levels {
		if lv == nil || lv.n == 0 {
			continue
		}
		if max <= 0 {
			return nil
		}
		if err := lv.w.Flush(); err != nil {
			return fmt.Errorf("engine: frontier spill: %w", err)
		}
		r := bufio.NewReaderSize(io.NewSectionReader(lv.f, lv.readOff, lv.writeOff-lv.readOff), 64<<10)
		for ; max > 0 && lv.n > 0; max-- {
			l, depth, size, err := readRecord(r)
			if err != nil {
				return fmt.Errorf("engine: frontier spill: %w", err)
			}
			lv.readOff += size
			lv.n--
			s.n--
			if err := fn(l, depth); err != nil {
				return err
			}
		}
		if lv.n == 0 {
			if err := lv.f.Truncate(0); err != nil {
				return fmt.Errorf("engine: frontier spill: %w", err)
			}
			lv.readOff, lv.writeOff = 0, 0
			if _, err := lv.f.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("engine: frontier spill: %w", err)
			}
		}
	}
	return nil
}

func readRecord(r *bufio.Reader) (linkgraph.Link, int, int64, error) {
	var l linkgraph.Link
	if _, err := io.ReadFull(r, l.ID[:]); err != nil {
		return l, 0, 0, err
	}
	size := int64(16)
	depth, err := binary.ReadUvarint(r)
	if err != nil {
		return l, 0, 0, err
	}
	size += int64(uvarintLen(depth))
	nanos, err := binary.ReadVarint(r)
	if err != nil {
		return l, 0, 0, err
	}
	size += int64(varintLen(nanos))
	var lens [3]uint64
	for i := range lens {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return l, 0, 0, err
		}
		if n > 1<<20 {
			return l, 0, 0, errors.New("corrupt record")
		}
		size += int64(uvarintLen(n))
		lens[i] = n
	}
	var strs [3]string
	for i, n := range lens {
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return l, 0, 0, err
		}
		size += int64(n)
		strs[i] = string(buf)
	}
	l.URL, l.ETag, l.LastModified = strs[0], strs[1], strs[2]
	if nanos != 0 {
		l.RetrievedAt = time.Unix(0, nanos).UTC()
	}
	return l, int(depth), size, nil
}

func retrievedNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func uvarintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], v)
}

func varintLen(v int64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutVarint(b[:], v)
}

// close removes the files.
func (s *spill) close() error {
	var errs []error
	for i, lv := range s.levels {
		if lv == nil {
			continue
		}
		errs = append(errs, lv.f.Close())
		_ = os.Remove(lv.f.Name())
		s.levels[i] = nil
	}
	s.n = 0
	return errors.Join(errs...)
}
