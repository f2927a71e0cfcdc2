package bolt

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

// Times are stored as signed microseconds since the Unix epoch, big-endian;
// the zero time.Time (year 1) fits comfortably.

func putTime(b []byte, t time.Time) { binary.BigEndian.PutUint64(b, uint64(t.UnixMicro())) }

func getTime(b []byte) time.Time { return time.UnixMicro(int64(binary.BigEndian.Uint64(b))).UTC() }

// link value: 8 bytes retrievedAt, then the URL.
func encodeLink(retrievedAt time.Time, url string) []byte {
	v := make([]byte, 8+len(url))
	putTime(v, retrievedAt)
	copy(v[8:], url)
	return v
}

func decodeLink(k, v []byte) (*linkgraph.Link, error) {
	if len(k) != 16 || len(v) < 8 {
		return nil, fmt.Errorf("corrupt link record (key %d bytes, value %d bytes)", len(k), len(v))
	}
	return &linkgraph.Link{ID: uuid.UUID(k), URL: string(v[8:]), RetrievedAt: getTime(v)}, nil
}

// edge key: 16 bytes src, 16 bytes dst, so edges sort by (Src, Dst) and one
// page's edges are contiguous. Value: 16 bytes edge ID, 8 bytes updatedAt.
func edgeKey(src, dst uuid.UUID) []byte {
	k := make([]byte, 32)
	copy(k, src[:])
	copy(k[16:], dst[:])
	return k
}

func encodeEdge(id uuid.UUID, updatedAt time.Time) []byte {
	v := make([]byte, 24)
	copy(v, id[:])
	putTime(v[16:], updatedAt)
	return v
}

func decodeEdge(k, v []byte) (*linkgraph.Edge, error) {
	if len(k) != 32 || len(v) != 24 {
		return nil, fmt.Errorf("corrupt edge record (key %d bytes, value %d bytes)", len(k), len(v))
	}
	return &linkgraph.Edge{
		ID:        uuid.UUID(v[:16]),
		Src:       uuid.UUID(k[:16]),
		Dst:       uuid.UUID(k[16:]),
		UpdatedAt: getTime(v[16:]),
	}, nil
}
