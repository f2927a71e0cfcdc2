package hostileweb_test

import (
	"errors"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

func TestConnectionResetMidBody(t *testing.T) {
	s := start(t, smallOptions)
	resp, err := newClient(t, 5*time.Second).Get(s.URL() + hostileweb.PathConnectionReset)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength != 1<<20 {
		t.Fatalf("status %d, length %d; want 200 promising 1 MiB", resp.StatusCode, resp.ContentLength)
	}
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("read error = %v, want connection reset", err)
	}
	if len(body) == 0 || int64(len(body)) >= resp.ContentLength {
		t.Errorf("read %d bytes, want part of the %d promised", len(body), resp.ContentLength)
	}
}
