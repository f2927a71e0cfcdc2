package main

import "testing"

func TestParsePartitionRejectsNonsense(t *testing.T) {
	for _, s := range []string{"1", "3/3", "-1/2", "a/b", "0/0", "1/x"} {
		if _, err := parsePartition(s); err == nil {
			t.Errorf("parsePartition(%q): no error", s)
		}
	}
}
