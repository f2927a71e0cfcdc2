package crawler

import (
	"bytes"
	"cmp"
	"hash/maphash"
	"slices"
	"sync"
)

// A site's template, the navigation and footer its pages share, is not
// always marked as such (chromeTag): an old table layout, a footer in a
// plain <div>. What gives it away is that it is everywhere: the same
// navigation links and the same notice on page after page of the site.
// repeatedText learns, per host, the blocks of text (textBlock) its pages
// hold, and leaves out of a page's text a block that is on at least three
// quarters of the host's pages seen so far, and on repeatPages of them,
// this one included, when the block is of the kind a template repeats:
//
//   - all of it is link text (a cell or list item that is one link: "Next",
//     "Home", a menu entry), or
//   - it is at least repeatWords words long (a copyright line, a cookie
//     notice), so that short repeated content ("Synopsis", "Parameters", a
//     table cell saying "integer") stays;
//
// and no longer than repeatBytes, a template's notice rather than a
// paragraph; and among the first or the last repeatEnds blocks of the
// page, where a template puts its header, menus and footer (this also
// keeps content that pages share in their middle, and bounds the work a
// page costs).
//
// The share is what tells a template from content that pages share: the
// PostgreSQL documentation repeats sentences such as "User name to connect
// as." on a dozen of its 1,169 pages, which a crawl must keep; a count
// alone (3 pages) took them, and half of the pages seen took them from
// pages read in file order, where the client programs' come in a row.
//
// It learns as the crawl goes, so the first pages of a host keep what only
// later pages show to be repeated. A page whose every block is repeated
// keeps its text, as a page that is all chrome does.
//
// Memory is bounded: at most repeatHosts hosts (the least recently seen
// is forgotten first) and repeatBlocks blocks a host (see count).
//
// Its zero value is ready to use.
type repeatedText struct {
	shards [repeatShards]repeatShard
}

// repeatSeed seeds the hashes of blocks and hosts: per process, so that
// nobody can make a page's block collide with a template's ahead of time.
var repeatSeed = maphash.MakeSeed()

const (
	repeatPages  = 5
	repeatWords  = 5
	repeatBytes  = 1024
	repeatEnds   = 32
	repeatHosts  = 512
	repeatBlocks = 2048
	repeatShards = 16
)

type repeatShard struct {
	mu    sync.Mutex
	hosts map[string]*hostBlocks
	clock uint64 // counts pages, for the least recently seen host
}

// hostBlocks is what repeatedText knows of one host: on how many pages it
// saw each block (by hash).
type hostBlocks struct {
	pages    map[uint64]uint32
	seen     uint32 // pages
	purged   bool   // on the page being counted
	lastSeen uint64
}

// leaveOut returns text, a page's text of host whose blocks are blocks,
// without the blocks repeated on the host's pages, written to dst if any
// is left out (dst is reset first); sums is room for the blocks' hashes.
func (r *repeatedText) leaveOut(host string, text []byte, blocks []textBlock, sums []blockSum, dst *bytes.Buffer) ([]byte, []blockSum) {
	if len(blocks) < 2 {
		return text, sums // one block repeated is the page itself again
	}
	sums = sums[:0]
	for n := 0; n < len(blocks); n++ {
		if n == repeatEnds && len(blocks) > 2*repeatEnds {
			n = len(blocks) - repeatEnds // the middle is the page's own
		}
		b := blocks[n]
		if h := repeatSum(text[b.start:b.end], b.bare); h != 0 {
			sums = append(sums, blockSum{h, n})
		}
	}
	if len(sums) == 0 {
		return text, sums
	}
	// Sorted, a block the page holds twice is counted once.
	slices.SortFunc(sums, func(a, b blockSum) int { return cmp.Compare(a.hash, b.hash) })
	repeated := 0
	shard := &r.shards[shardOf(host)]
	shard.mu.Lock()
	hb := shard.host(host)
	hb.seen++
	hb.purged = false
	for i := 0; i < len(sums); {
		h := sums[i].hash
		j := i + 1
		for j < len(sums) && sums[j].hash == h {
			j++
		}
		if c := hb.count(h); c >= repeatPages && 4*c >= 3*hb.seen {
			for _, s := range sums[i:j] {
				blocks[s.block].repeated = true
			}
			repeated += j - i
		}
		i = j
	}
	shard.mu.Unlock()
	if repeated == len(blocks) {
		// Nothing is left out of a page that is all template.
		for n := range blocks {
			blocks[n].repeated = false
		}
	}
	if repeated == 0 || repeated == len(blocks) {
		return text, sums
	}
	dst.Reset()
	last := 0
	for _, b := range blocks {
		if b.repeated {
			dst.Write(text[last:b.start])
			dst.WriteByte(' ')
			last = b.end
		}
	}
	dst.Write(text[last:])
	return dst.Bytes(), sums
}

// blockSum is the hash of a page's block, and the block's number.
type blockSum struct {
	hash  uint64
	block int
}

// repeatSum returns the hash of block, a block's text without the white
// space around it, or 0 if the block is not of a template's kind (see
// repeatedText): bare (not all link text) and shorter than repeatWords
// words, or longer than repeatBytes (a paragraph). A template's blocks
// come from one generator, byte for byte; hashing the bytes as they are,
// rather than word by word, keeps this a small part of extracting text.
func repeatSum(block []byte, bare bool) uint64 {
	block = bytes.TrimSpace(block)
	if len(block) == 0 || len(block) > repeatBytes {
		return 0
	}
	if bare && bytes.Count(block, []byte{' '})+bytes.Count(block, []byte{'\n'}) < repeatWords-1 {
		return 0 // fewer words than that
	}
	if s := maphash.Bytes(repeatSeed, block); s != 0 {
		return s
	}
	return 1
}

// shardOf returns the number of the shard that holds host.
func shardOf(host string) uint64 { return maphash.String(repeatSeed, host) % repeatShards }

// host returns what the shard knows of host, making room for it if it is
// new. The shard's lock is held.
func (s *repeatShard) host(host string) *hostBlocks {
	s.clock++
	if s.hosts == nil {
		s.hosts = make(map[string]*hostBlocks)
	}
	hb := s.hosts[host]
	if hb == nil {
		if len(s.hosts) >= repeatHosts/repeatShards {
			var oldest string
			for name, o := range s.hosts {
				if oldest == "" || o.lastSeen < s.hosts[oldest].lastSeen {
					oldest = name
				}
			}
			delete(s.hosts, oldest)
		}
		hb = &hostBlocks{pages: make(map[uint64]uint32)}
		s.hosts[host] = hb
	}
	hb.lastSeen = s.clock
	return hb
}

// count counts a page holding the block whose hash is h and returns on
// how many pages the host has had it. When the host's blocks fill their
// room, it forgets those on fewer than half of its pages, which cannot be
// a template's yet, at most once a page: when that frees no room, the
// page's other new blocks are not remembered.
func (hb *hostBlocks) count(h uint64) uint32 {
	c := hb.pages[h] + 1
	if c == 1 && len(hb.pages) >= repeatBlocks {
		if hb.purged {
			return c
		}
		hb.purged = true
		for h, c := range hb.pages {
			if 2*c < hb.seen || c == 1 {
				delete(hb.pages, h)
			}
		}
		if len(hb.pages) >= repeatBlocks {
			return c // no room: not remembered
		}
	}
	hb.pages[h] = c
	return c
}
