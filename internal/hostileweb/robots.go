package hostileweb

import (
	"encoding/binary"
	"math/rand/v2"
	"net/http"
)

// randomBytes returns n bytes from a ChaCha8 stream keyed by seed, so that a
// failure seen once can be replayed.
func randomBytes(seed uint64, n int) []byte {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	p := make([]byte, n)
	_, _ = rand.NewChaCha8(key).Read(p) // never fails
	return p
}

// serveRobots answers /robots.txt with random bytes under a text/plain
// header. A robots parser must neither crash nor read a rule into the
// noise; RFC 9309 treats what it cannot parse as no rule at all.
func (s *Server) serveRobots(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", contentTypeText)
	_, _ = w.Write(s.robots)
}
