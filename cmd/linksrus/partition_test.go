package main

import (
	"strconv"
	"testing"

	"github.com/google/uuid"
)

func TestPartitionsCoverTheSpaceExactlyOnce(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		parts := make([]partition, n)
		for i := range parts {
			p, err := parsePartition(strconv.Itoa(i) + "/" + strconv.Itoa(n))
			if err != nil {
				t.Fatal(err)
			}
			parts[i] = p
		}
		ids := []uuid.UUID{uuid.Nil, uuid.Max}
		for range 2000 {
			ids = append(ids, uuid.New())
		}
		for _, id := range ids {
			hits := 0
			for _, p := range parts {
				if p.contains(id) {
					hits++
				}
			}
			if hits != 1 {
				t.Fatalf("n=%d: %v is in %d partitions, want 1", n, id, hits)
			}
		}
	}
}

func TestParsePartitionRejectsNonsense(t *testing.T) {
	for _, s := range []string{"1", "3/3", "-1/2", "a/b", "0/0", "1/x"} {
		if _, err := parsePartition(s); err == nil {
			t.Errorf("parsePartition(%q): no error", s)
		}
	}
}
