package urlnorm

import (
	"bytes"
	"slices"
)

// span locates one query parameter inside a byte slice.
type span struct{ start, end, keyEnd int }

// rewriteQuery applies SortQuery and StripTracking to the normalised query
// b[queryStart:] and returns b with the rewritten query.
func rewriteQuery(b []byte, queryStart int, opts Options) []byte {
	var tmpArr [stackBuf]byte
	q := append(tmpArr[:0], b[queryStart:]...)

	var spansArr [32]span
	spans := spansArr[:0]
	for start := 0; start <= len(q); {
		end := bytes.IndexByte(q[start:], '&')
		if end < 0 {
			end = len(q)
		} else {
			end += start
		}
		if end > start {
			keyEnd := bytes.IndexByte(q[start:end], '=')
			if keyEnd < 0 {
				keyEnd = end
			} else {
				keyEnd += start
			}
			sp := span{start, end, keyEnd}
			if !opts.StripTracking || !isTracking(q[start:keyEnd]) {
				spans = append(spans, sp)
			}
		}
		start = end + 1
	}
	if opts.SortQuery {
		slices.SortStableFunc(spans, func(x, y span) int {
			return bytes.Compare(q[x.start:x.keyEnd], q[y.start:y.keyEnd])
		})
	}

	b = b[:queryStart]
	for i, sp := range spans {
		if i > 0 {
			b = append(b, '&')
		}
		b = append(b, q[sp.start:sp.end]...)
	}
	return b
}

// isTracking reports whether key names an analytics parameter that does not
// select content: utm_*, gclid or fbclid, in any case.
func isTracking(key []byte) bool {
	return len(key) >= 4 && bytes.EqualFold(key[:4], []byte("utm_")) ||
		bytes.EqualFold(key, []byte("gclid")) ||
		bytes.EqualFold(key, []byte("fbclid"))
}
