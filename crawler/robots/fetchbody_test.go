package robots

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestFetchBodyRoundTrip keeps a fetch's body and basis, as a shared cache
// does, and checks that RulesFor turns them back into the same decisions as
// Fetch for every kind of answer.
func TestFetchBodyRoundTrip(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		basis  Basis
		path   string
		allow  bool
	}{
		{"rules", 200, "User-agent: *\nDisallow: /private\n", BasisRules, "/private/x", false},
		{"rules allow", 200, "User-agent: *\nDisallow: /private\n", BasisRules, "/public", true},
		{"unavailable", 404, "", BasisUnavailable, "/private/x", true},
		{"unreachable", 503, "", BasisUnreachable, "/public", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			body, basis, err := FetchBody(context.Background(), srv.Client(), srv.URL, Options{})
			if basis != c.basis || (err != nil) != (c.basis == BasisUnreachable) {
				t.Fatalf("FetchBody = %q, %v, %v; want basis %v", body, basis, err, c.basis)
			}
			if c.basis != BasisRules && body != nil {
				t.Fatalf("FetchBody kept a body %q for basis %v", body, basis)
			}
			rules, fbasis, _ := Fetch(context.Background(), srv.Client(), srv.URL, Options{})
			cached := RulesFor(basis, body, DefaultRobotName)
			if fbasis != basis || cached.Allowed(c.path) != c.allow || rules.Allowed(c.path) != c.allow {
				t.Fatalf("%s: Fetch allows %v (basis %v), RulesFor allows %v; want %v", c.path, rules.Allowed(c.path), fbasis, cached.Allowed(c.path), c.allow)
			}
		})
	}
}
