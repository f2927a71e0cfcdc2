package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt's on-disk format (go.etcd.io/bbolt, file format version 2), as far
// as walking its pages needs it.
const (
	pageHeaderSize  = 16
	elementSize     = 16 // branch and leaf elements alike
	branchPageFlag  = 0x01
	leafPageFlag    = 0x02
	bucketLeafFlag  = 0x01
	bucketHeaderLen = 16
	boltMagic       = 0xED0CDAED
	boltVersion     = 2
	metaSize        = 64 // its checksum covers the first 56 bytes
	maxTreeDepth    = 64
)

// walkFile checks the structure of the bbolt file at path by reading it,
// without mapping it and without bbolt: a valid meta page, then every page
// reachable from the root, as bbolt's own free-list rebuild walks them on
// open: page ids within the file's high-water mark and matching the page
// header, branch or leaf pages only, element offsets inside their page, no
// page reached twice. bbolt trusts all of these and panics or faults, in a
// goroutine of its own where no recover reaches, when one does not hold;
// checked here, a damaged file is an error instead.
func walkFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	w := &walker{f: f, size: fi.Size(), seen: make(map[uint64]bool)}
	root, err := w.readMeta()
	if err != nil {
		return err
	}
	_, err = w.walk(root, nil, nil, 0)
	return err
}

type walker struct {
	f        *os.File
	size     int64
	pageSize int64
	highMark uint64 // first page id not in use
	seen     map[uint64]bool
}

// readMeta picks the valid meta page with the later transaction, as bbolt
// does, and returns the root bucket's page id.
func (w *walker) readMeta() (uint64, error) {
	var best []byte
	var bestTx uint64
	for i, off := range []int64{0, -1} {
		if off < 0 {
			if best == nil && i == 1 {
				// Page size unknown without meta 0: try the usual ones.
				for _, ps := range []int64{4096, 8192, 16384, 65536} {
					if m := w.metaAt(ps); m != nil {
						best, bestTx = m, binary.LittleEndian.Uint64(m[48:])
						break
					}
				}
				continue
			}
			off = int64(binary.LittleEndian.Uint32(best[8:]))
		}
		if m := w.metaAt(off); m != nil {
			if tx := binary.LittleEndian.Uint64(m[48:]); best == nil || tx > bestTx {
				best, bestTx = m, tx
			}
		}
	}
	if best == nil {
		return 0, errors.New("no valid meta page")
	}
	w.pageSize = int64(binary.LittleEndian.Uint32(best[8:]))
	w.highMark = binary.LittleEndian.Uint64(best[40:])
	if w.pageSize < 1024 || w.pageSize > 1<<20 || int64(w.highMark)*w.pageSize > w.size {
		return 0, fmt.Errorf("meta page: page size %d and %d pages do not fit a file of %d bytes", w.pageSize, w.highMark, w.size)
	}
	return binary.LittleEndian.Uint64(best[16:]), nil
}

// metaAt returns the meta at the page starting at off, if it is valid.
func (w *walker) metaAt(off int64) []byte {
	m := make([]byte, metaSize)
	if _, err := w.f.ReadAt(m, off+pageHeaderSize); err != nil {
		return nil
	}
	if binary.LittleEndian.Uint32(m[0:]) != boltMagic || binary.LittleEndian.Uint32(m[4:]) != boltVersion {
		return nil
	}
	h := fnv.New64a()
	h.Write(m[:56])
	if h.Sum64() != binary.LittleEndian.Uint64(m[56:]) {
		return nil
	}
	return m
}

// walk checks page id and everything below it; the keys of the subtree
// must be in [minKey, maxKey) (nil: unbounded). It returns the subtree's
// largest key.
func (w *walker) walk(id uint64, minKey, maxKey []byte, depth int) ([]byte, error) {
	if id < 2 || id >= w.highMark {
		return nil, fmt.Errorf("page id %d outside 2..%d", id, w.highMark-1)
	}
	if w.seen[id] {
		return nil, fmt.Errorf("page %d reached twice", id)
	}
	w.seen[id] = true
	head := make([]byte, pageHeaderSize)
	if _, err := w.f.ReadAt(head, int64(id)*w.pageSize); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	if got := binary.LittleEndian.Uint64(head); got != id {
		return nil, fmt.Errorf("page %d has id %d in its header", id, got)
	}
	overflow := uint64(binary.LittleEndian.Uint32(head[12:]))
	if id+overflow >= w.highMark {
		return nil, fmt.Errorf("page %d overflows past the last page", id)
	}
	for o := uint64(1); o <= overflow; o++ {
		if w.seen[id+o] {
			return nil, fmt.Errorf("page %d reached twice", id+o)
		}
		w.seen[id+o] = true
	}
	page := make([]byte, int64(overflow+1)*w.pageSize)
	if _, err := w.f.ReadAt(page, int64(id)*w.pageSize); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	return w.walkPage(page, fmt.Sprintf("page %d", id), minKey, maxKey, depth)
}

// checkKey checks a key's place: after the previous one of its page (or
// at least minKey for the first), and before maxKey, as bbolt's own check
// requires (a seek through keys out of order lands on the wrong element).
func checkKey(name string, i int, key, prev, minKey, maxKey []byte) error {
	switch {
	case i == 0 && minKey != nil && bytes.Compare(minKey, key) > 0:
		return fmt.Errorf("%s: first key below its parent's", name)
	case i > 0 && bytes.Compare(prev, key) >= 0:
		return fmt.Errorf("%s: key %d not after the previous one", name, i)
	case maxKey != nil && bytes.Compare(key, maxKey) >= 0:
		return fmt.Errorf("%s: key %d not before the next key of its parent", name, i)
	}
	return nil
}

// walkPage checks one page held in page (a file page, or an inline
// bucket's page inside a value), its keys in [minKey, maxKey), and returns
// its largest key.
func (w *walker) walkPage(page []byte, name string, minKey, maxKey []byte, depth int) ([]byte, error) {
	if depth > maxTreeDepth {
		return nil, fmt.Errorf("%s: tree deeper than %d", name, maxTreeDepth)
	}
	if len(page) < pageHeaderSize {
		return nil, fmt.Errorf("%s: truncated", name)
	}
	flags := binary.LittleEndian.Uint16(page[8:])
	count := int(binary.LittleEndian.Uint16(page[10:]))
	if flags != branchPageFlag && flags != leafPageFlag {
		return nil, fmt.Errorf("%s: flags %#x, not a branch or leaf page", name, flags)
	}
	if flags == branchPageFlag && count == 0 {
		// bbolt's cursors read a branch's first element without looking.
		return nil, fmt.Errorf("%s: a branch page without elements", name)
	}
	if pageHeaderSize+count*elementSize > len(page) {
		return nil, fmt.Errorf("%s: %d elements do not fit", name, count)
	}
	keyAt := func(e int, pos, ksize int64) ([]byte, bool) {
		start := int64(e) + pos
		if pos < 0 || ksize < 0 || start+ksize > int64(len(page)) {
			return nil, false
		}
		return page[start : start+ksize], true
	}
	var prev, largest []byte
	running := minKey
	for i := range count {
		e := pageHeaderSize + i*elementSize
		switch flags {
		case branchPageFlag:
			key, ok := keyAt(e, int64(binary.LittleEndian.Uint32(page[e:])), int64(binary.LittleEndian.Uint32(page[e+4:])))
			if !ok {
				return nil, fmt.Errorf("%s: branch element %d outside the page", name, i)
			}
			if err := checkKey(name, i, key, running, running, maxKey); err != nil {
				return nil, err
			}
			next := maxKey
			if i < count-1 {
				ne := e + elementSize
				nk, ok := keyAt(ne, int64(binary.LittleEndian.Uint32(page[ne:])), int64(binary.LittleEndian.Uint32(page[ne+4:])))
				if !ok {
					return nil, fmt.Errorf("%s: branch element %d outside the page", name, i+1)
				}
				next = nk
			}
			sub, err := w.walk(binary.LittleEndian.Uint64(page[e+8:]), key, next, depth+1)
			if err != nil {
				return nil, err
			}
			running, largest = sub, sub
		case leafPageFlag:
			eflags := binary.LittleEndian.Uint32(page[e:])
			pos := int64(binary.LittleEndian.Uint32(page[e+4:]))
			ksize := int64(binary.LittleEndian.Uint32(page[e+8:]))
			vsize := int64(binary.LittleEndian.Uint32(page[e+12:]))
			if int64(e)+pos+ksize+vsize > int64(len(page)) {
				return nil, fmt.Errorf("%s: leaf element %d outside the page", name, i)
			}
			key, _ := keyAt(e, pos, ksize)
			if err := checkKey(name, i, key, prev, minKey, maxKey); err != nil {
				return nil, err
			}
			prev, largest = key, key
			if eflags&bucketLeafFlag == 0 {
				continue
			}
			v := page[int64(e)+pos+ksize : int64(e)+pos+ksize+vsize]
			if len(v) < bucketHeaderLen {
				return nil, fmt.Errorf("%s: bucket %d too short", name, i)
			}
			if root := binary.LittleEndian.Uint64(v); root != 0 {
				if _, err := w.walk(root, nil, nil, depth+1); err != nil {
					return nil, err
				}
			} else if _, err := w.walkPage(v[bucketHeaderLen:], name+" inline bucket", nil, nil, depth+1); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%s: flags %#x, not a branch or leaf page", name, flags)
		}
	}
	return largest, nil
}
