package textindex

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// ErrUnknownScheme is returned by Open when no backend is registered for the
// scheme of its URL.
var ErrUnknownScheme = errors.New("textindex: unknown scheme")

// OpenFunc opens an index from a URL whose scheme the backend registered.
type OpenFunc func(ctx context.Context, u *url.URL) (Indexer, error)

var (
	backendsMu sync.RWMutex
	backends   = make(map[string]OpenFunc)
)

// Register makes a backend available to Open under the given URL scheme
// (compared case-insensitively). Backends call it from an init function, so
// that importing the backend package for its side effect is enough, as with
// database/sql drivers. Register panics if open is nil or the scheme is
// empty or already registered, since either is a programming error.
func Register(scheme string, open func(ctx context.Context, u *url.URL) (Indexer, error)) {
	scheme = strings.ToLower(scheme)
	if scheme == "" || open == nil {
		panic("textindex: Register needs a scheme and an open function")
	}
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if _, dup := backends[scheme]; dup {
		panic("textindex: Register called twice for scheme " + scheme)
	}
	backends[scheme] = open
}

// Schemes returns the registered URL schemes, sorted.
func Schemes() []string {
	backendsMu.RLock()
	defer backendsMu.RUnlock()
	out := make([]string, 0, len(backends))
	for s := range backends {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// backendPackages are the backends this module ships, by scheme: a
// program that forgot to import one is told which import it needs.
var backendPackages = map[string]string{
	"memory":     "github.com/linksrus/linksrus/textindex/memory",
	"sqlite":     "github.com/linksrus/linksrus/textindex/sqlite",
	"postgres":   "github.com/linksrus/linksrus/textindex/postgres",
	"postgresql": "github.com/linksrus/linksrus/textindex/postgres",
}

// registeredList is Schemes for an error message.
func registeredList() string {
	if s := Schemes(); len(s) > 0 {
		return strings.Join(s, ", ")
	}
	return "none (no backend package is imported)"
}

// Open opens the index that rawURL names, using the backend registered for
// its scheme, for example "memory://", "sqlite:///var/lib/linksrus/index.db"
// or "postgres://user@host/db". The backend package must have been imported.
func Open(ctx context.Context, rawURL string) (Indexer, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// The url.Error would repeat the whole URL, password included.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("textindex: open: malformed URL: %w", err)
	}
	if u.Scheme == "" {
		return nil, fmt.Errorf("%w: %q has none (want one of %s)", ErrUnknownScheme, u.Redacted(), registeredList())
	}
	backendsMu.RLock()
	open, ok := backends[strings.ToLower(u.Scheme)]
	backendsMu.RUnlock()
	if !ok {
		if pkg, ok := backendPackages[strings.ToLower(u.Scheme)]; ok {
			return nil, fmt.Errorf("%w %q: not registered: import _ %q to open it", ErrUnknownScheme, u.Scheme, pkg)
		}
		return nil, fmt.Errorf("%w %q (registered: %s; is the backend package imported?)", ErrUnknownScheme, u.Scheme, registeredList())
	}
	idx, err := open(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("textindex: open %s index: %w", u.Scheme, err)
	}
	return idx, nil
}
