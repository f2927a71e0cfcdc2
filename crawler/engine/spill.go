package engine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
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

// write appends a queued link (its link, depth and sitemap lastmod).
func (s *spill) write(it item) error {
	l, depth := it.link, it.depth
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
	// ID, depth, RetrievedAt, lastmod, then the URL and the validators
	// (a recrawled page's, for its conditional request), each after its
	// length.
	var rec [binary.MaxVarintLen64*6 + 16]byte
	b := append(rec[:0], l.ID[:]...)
	b = binary.AppendUvarint(b, uint64(depth))
	b = binary.AppendVarint(b, retrievedNanos(l.RetrievedAt))
	b = binary.AppendVarint(b, retrievedNanos(it.lastMod))
	strs := [...]string{l.URL, l.ETag, l.LastModified}
	for _, str := range strs {
		b = binary.AppendUvarint(b, uint64(len(str)))
	}
	if _, err := lv.w.Write(b); err != nil {
		return fmt.Errorf("engine: frontier spill: %w", err)
	}
	n := len(b)
	for _, str := range strs {
		if _, err := lv.w.WriteString(str); err != nil {
			return fmt.Errorf("engine: frontier spill: %w", err)
		}
		n += len(str)
	}
	lv.writeOff += int64(n)
	lv.n++
	s.n++
	return nil
}

// read takes up to max links from the front, shallowest level first, and
// passes each to fn.
func (s *spill) read(max int, fn func(it item) error) error {
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
			it, size, err := readRecord(r)
			if err != nil {
				return fmt.Errorf("engine: frontier spill: %w", err)
			}
			lv.readOff += size
			lv.n--
			s.n--
			if err := fn(it); err != nil {
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

func readRecord(r *bufio.Reader) (item, int64, error) {
	var it item
	l := &it.link
	if _, err := io.ReadFull(r, l.ID[:]); err != nil {
		return it, 0, err
	}
	size := int64(16)
	depth, err := binary.ReadUvarint(r)
	if err != nil {
		return it, 0, err
	}
	size += int64(uvarintLen(depth))
	var nanos [2]int64 // retrieved, lastmod
	for i := range nanos {
		if nanos[i], err = binary.ReadVarint(r); err != nil {
			return it, 0, err
		}
		size += int64(varintLen(nanos[i]))
	}
	var lens [3]uint64 // URL, ETag, LastModified
	for i := range lens {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return it, 0, err
		}
		if n > 1<<20 {
			return it, 0, errors.New("corrupt record")
		}
		size += int64(uvarintLen(n))
		lens[i] = n
	}
	var strs [3]string
	for i, n := range lens {
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return it, 0, err
		}
		size += int64(n)
		strs[i] = string(buf)
	}
	l.URL, l.ETag, l.LastModified = strs[0], strs[1], strs[2]
	l.RetrievedAt = fromNanos(nanos[0])
	it.lastMod = fromNanos(nanos[1])
	it.depth = int(depth)
	return it, size, nil
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
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
