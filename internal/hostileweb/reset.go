package hostileweb

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/linksrus/linksrus/internal/ctxtime"
)

// Shape of the connection-reset response: the declared length and the part
// actually sent. The part fits one read of a client's buffer, so the client
// reliably receives it before the reset.
const (
	resetDeclaredLength = 1 << 20
	resetPartial        = 2 << 10
	// resetDelay lets the partial body reach the client before the reset
	// would discard it from the kernel's queues.
	resetDelay = 50 * time.Millisecond
)

var resetBody = func() string {
	head := "<!doctype html><html><head><title>connection reset</title></head><body>\n"
	return head + strings.Repeat("<p>cut</p>", (resetPartial-len(head))/len("<p>cut</p>"))
}()

// serveConnectionReset promises resetDeclaredLength bytes, sends a couple of
// kilobytes and resets the TCP connection (SO_LINGER 0 makes close send RST
// instead of FIN). A crawler must report the truncated fetch, not index half
// a page as if it were whole.
func (s *Server) serveConnectionReset(w http.ResponseWriter, r *http.Request) {
	c, brw, err := s.hijack(w)
	if err != nil {
		return
	}
	defer s.release(c)
	_, err = brw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: " + contentTypeHTML +
		"\r\nContent-Length: " + strconv.Itoa(resetDeclaredLength) + "\r\n\r\n" + resetBody)
	if err != nil || brw.Flush() != nil {
		return
	}
	_ = ctxtime.Sleep(r.Context(), resetDelay)
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
}
