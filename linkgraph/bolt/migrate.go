package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"
	bbolt "go.etcd.io/bbolt"
)

// Schema version 1 stored one key per edge in bucketV1Edges:
// src ID || dst ID -> edge ID (random), updatedAt. Open moves them into
// version 2's records in transactions of at most migrateBatch edges, so
// that a large file needs no transaction holding all its edges. Each
// transaction also records the last key it moved (keyMigrated), so a
// migration cut short by a crash or a kill goes on from there on the next
// Open; every state between two transactions is a valid file of version 2
// being migrated. The last transaction drops the old bucket: while it
// exists, the migration is unfinished.
//
// The migrated edges get derived IDs (edgeID) in place of their stored
// random ones.
var (
	bucketV1Edges = []byte("edges")
	keyMigrated   = []byte("migrated-edges")
)

// migrateBatch is the most version 1 edges one migration transaction
// moves: a few MB of dirty pages. Tests lower it.
var migrateBatch = 100_000

// migrate finishes moving version 1 edges into records, if there are any.
// When ctx ends it stops between two transactions, leaving the rest to the
// next Open.
func (s *store) migrate(ctx context.Context) error {
	for {
		var done bool
		err := s.update(func(tx *bbolt.Tx) error {
			var err error
			done, err = migrateStep(tx, migrateBatch)
			return err
		})
		if err == nil && !done {
			err = ctx.Err()
		}
		if err != nil {
			return fmt.Errorf("migrate edges to schema version %d: %w", schemaVersion, err)
		}
		if done {
			return nil
		}
	}
}

// migrateStep moves up to limit version 1 edges, the first ones not yet
// moved, and reports whether none is left.
func migrateStep(tx *bbolt.Tx, limit int) (done bool, err error) {
	old := tx.Bucket(bucketV1Edges)
	if old == nil {
		return true, nil
	}
	meta := tx.Bucket(bucketMeta)
	c := old.Cursor()
	k, v := c.First()
	if after := meta.Get(keyMigrated); after != nil {
		k, v = c.Seek(after)
		if k != nil && bytes.Equal(k, after) {
			k, v = c.Next()
		}
	}
	m := &migration{out: tx.Bucket(bucketOut)}
	var last []byte
	for n := 0; k != nil && n < limit; k, v = c.Next() {
		if err := m.add(k, v); err != nil {
			return false, err
		}
		last = k
		n++
	}
	if err := m.flush(); err != nil {
		return false, err
	}
	if k != nil {
		return false, meta.Put(keyMigrated, bytes.Clone(last))
	}
	if err := tx.DeleteBucket(bucketV1Edges); err != nil {
		return false, fmt.Errorf("drop version 1 edges: %w", err)
	}
	return true, meta.Delete(keyMigrated)
}

// migration gathers the version 1 edges of one source at a time (they are
// contiguous and sorted by destination) and merges them into its record,
// which an earlier transaction may have started when a source's edges
// straddled two.
type migration struct {
	out    *bbolt.Bucket
	src    uuid.UUID
	ups    []edgeUpdate
	stored []int64
}

func (m *migration) add(k, v []byte) error {
	if len(k) != 32 || len(v) != 24 {
		return corruptRecord(k, fmt.Sprintf("version 1 edge: key %d bytes, value %d bytes, want 32 and 24", len(k), len(v)))
	}
	if src := uuid.UUID(k[:16]); src != m.src || len(m.ups) == 0 {
		if err := m.flush(); err != nil {
			return err
		}
		m.src = src
	}
	m.ups = append(m.ups, edgeUpdate{dst: uuid.UUID(k[16:]), micros: int64(binary.BigEndian.Uint64(v[16:]))})
	return nil
}

func (m *migration) flush() error {
	if len(m.ups) == 0 {
		return nil
	}
	var rec edgeRecord
	if v := m.out.Get(m.src[:]); v != nil {
		var err error
		if rec, err = checkEdgeRecord(m.src[:], v); err != nil {
			return err
		}
	}
	if cap(m.stored) < len(m.ups) {
		m.stored = make([]int64, len(m.ups))
	}
	merged, _, err := mergeEdges(rec, m.ups, m.stored[:len(m.ups)], nil)
	if err != nil {
		return err
	}
	if err := m.out.Put(m.src[:], merged); err != nil {
		return fmt.Errorf("write edges of %s: %w", m.src, err)
	}
	m.ups = m.ups[:0]
	return nil
}
