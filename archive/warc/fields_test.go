package warc

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

// A header of many continuation lines is read in linear time: appending
// each line to the value as it came made a 1 MiB header cost seconds.
func TestReadFieldsManyContinuations(t *testing.T) {
	var b strings.Builder
	b.WriteString("WARC-Type: response\r\nX-Long: start\r\n")
	for b.Len() < maxHeaderBytes-16 {
		b.WriteString(" x\r\n")
	}
	b.WriteString("\r\n")
	start := time.Now()
	h, err := readFields(bufio.NewReader(strings.NewReader(b.String())))
	if err != nil {
		t.Fatal(err)
	}
	if v := h.Get("X-Long"); !strings.HasPrefix(v, "start x x") || h.Get("WARC-Type") != "response" {
		t.Fatalf("fields read as %.60q, %q", v, h.Get("WARC-Type"))
	}
	t.Logf("%d header bytes read in %v", b.Len(), time.Since(start))
}
