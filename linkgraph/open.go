package linkgraph

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// ErrUnknownScheme is returned by Open when no backend is registered for the
// URL's scheme; the message lists the schemes that are.
var ErrUnknownScheme = errors.New("linkgraph: unknown scheme")

// OpenFunc opens a backend for a parsed URL. ctx bounds the opening only
// (connecting, migrating), not the life of the returned Graph.
type OpenFunc func(ctx context.Context, u *url.URL) (Graph, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]OpenFunc{}
)

// Register makes a backend available to Open under scheme (compared without
// regard to case). Backends call it from an init function, so a program
// selects the backends it supports by importing them, as with database/sql
// drivers. Register panics if scheme is empty, open is nil or the scheme is
// already taken, because each is a programming error found at start-up.
func Register(scheme string, open OpenFunc) {
	scheme = strings.ToLower(scheme)
	if scheme == "" || open == nil {
		panic("linkgraph: Register needs a scheme and an open function")
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[scheme]; dup {
		panic("linkgraph: Register called twice for scheme " + scheme)
	}
	registry[scheme] = open
}

// Schemes returns the registered schemes in sorted order.
func Schemes() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	s := make([]string, 0, len(registry))
	for k := range registry {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// backendPackages are the backends this module ships, by scheme: a
// program that forgot to import one is told which import it needs.
var backendPackages = map[string]string{
	"bolt":       "github.com/linksrus/linksrus/linkgraph/bolt",
	"memory":     "github.com/linksrus/linksrus/linkgraph/memory",
	"postgres":   "github.com/linksrus/linksrus/linkgraph/postgres",
	"postgresql": "github.com/linksrus/linksrus/linkgraph/postgres",
}

// registeredList is Schemes for an error message.
func registeredList() string {
	if s := Schemes(); len(s) > 0 {
		return strings.Join(s, ", ")
	}
	return "none (no backend package is imported)"
}

// Open opens the graph that rawURL names, for example "memory://",
// "bolt:///var/lib/linksrus/graph.db" or
// "postgres://user@host:5432/db?sslmode=disable". The backend for the URL's
// scheme must have been registered, usually by importing its package.
func Open(ctx context.Context, rawURL string) (Graph, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("linkgraph: open: malformed URL: %w", err)
	}
	if u.Scheme == "" {
		return nil, fmt.Errorf("linkgraph: open %q: missing scheme, want one of %s: %w",
			rawURL, registeredList(), ErrUnknownScheme)
	}
	registryMu.RLock()
	open := registry[strings.ToLower(u.Scheme)]
	registryMu.RUnlock()
	if open == nil {
		if pkg, ok := backendPackages[strings.ToLower(u.Scheme)]; ok {
			return nil, fmt.Errorf("linkgraph: open: scheme %q not registered: import _ %q to open it: %w",
				u.Scheme, pkg, ErrUnknownScheme)
		}
		return nil, fmt.Errorf("linkgraph: open: scheme %q not registered, want one of %s (is the backend package imported?): %w",
			u.Scheme, registeredList(), ErrUnknownScheme)
	}
	g, err := open(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("linkgraph: open %s: %w", u.Redacted(), err)
	}
	return g, nil
}
