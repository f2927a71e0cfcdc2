package hostileweb

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidOptions is returned (wrapped) by [Start] when an option is out of range.
var ErrInvalidOptions = errors.New("hostileweb: invalid options")

// Options sizes the traps. The zero value gives the sizes the crawler's
// hostile-web suite is specified against; tests of the server itself shrink
// them to stay fast. A zero field takes its default; a negative one is an error.
type Options struct {
	// DripInterval is the pause between body bytes on [PathDrip]. Default 1s.
	DripInterval time.Duration
	// GzipBombSize is the inflated size in bytes of [PathGzipBomb]. Default
	// 1 GiB, which travels as about 1 MiB.
	GzipBombSize int64
	// RedirectHops is the length of the chain at [PathRedirectChain]. Default 50.
	RedirectHops int
	// ManyLinks is the number of links on [PathManyLinks]. Default 100,000.
	ManyLinks int
	// NestingDepth is how deep [PathDeepNesting] nests. Default 100,000.
	NestingDepth int
	// HeaderBytes is the size of the header lines of [PathHugeHeaders].
	// Default 12 MiB, above net/http's 10 MiB client limit so that even an
	// unconfigured Go client refuses it.
	HeaderBytes int
	// RobotsBytes is the size of [PathRobots]. Default 64 KiB.
	RobotsBytes int
	// Seed seeds the random bytes of [PathRobots]; the same seed gives the
	// same bytes.
	Seed uint64
	// MaxSilentConns caps the connections the silent listener holds at once;
	// beyond it the oldest is closed, so a runaway client cannot exhaust file
	// descriptors. Default 256.
	MaxSilentConns int
}

// Default sizes; see [Options].
const (
	DefaultDripInterval   = time.Second
	DefaultGzipBombSize   = 1 << 30
	DefaultRedirectHops   = 50
	DefaultManyLinks      = 100_000
	DefaultNestingDepth   = 100_000
	DefaultHeaderBytes    = 12 << 20
	DefaultRobotsBytes    = 64 << 10
	DefaultMaxSilentConns = 256
)

// maxGzipBombSize bounds the bomb so that the checksum pass over its inflated
// size, done in Start, stays under a second (1 GiB takes about 40 ms).
const maxGzipBombSize = 8 << 30

// withDefaults validates o and fills in its zero fields.
func (o Options) withDefaults() (Options, error) {
	if o.DripInterval < 0 {
		return o, fmt.Errorf("%w: DripInterval %v is negative", ErrInvalidOptions, o.DripInterval)
	}
	if o.DripInterval == 0 {
		o.DripInterval = DefaultDripInterval
	}
	if o.GzipBombSize < 0 || o.GzipBombSize > maxGzipBombSize {
		return o, fmt.Errorf("%w: GzipBombSize %d is outside [0, %d]", ErrInvalidOptions, o.GzipBombSize, int64(maxGzipBombSize))
	}
	if o.GzipBombSize == 0 {
		o.GzipBombSize = DefaultGzipBombSize
	}
	ints := []struct {
		name string
		v    *int
		def  int
	}{
		{"RedirectHops", &o.RedirectHops, DefaultRedirectHops},
		{"ManyLinks", &o.ManyLinks, DefaultManyLinks},
		{"NestingDepth", &o.NestingDepth, DefaultNestingDepth},
		{"HeaderBytes", &o.HeaderBytes, DefaultHeaderBytes},
		{"RobotsBytes", &o.RobotsBytes, DefaultRobotsBytes},
		{"MaxSilentConns", &o.MaxSilentConns, DefaultMaxSilentConns},
	}
	for _, f := range ints {
		if *f.v < 0 {
			return o, fmt.Errorf("%w: %s %d is negative", ErrInvalidOptions, f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return o, nil
}
