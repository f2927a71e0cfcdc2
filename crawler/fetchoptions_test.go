package crawler

import (
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/pipeline"
)

// Every setting that cannot be used is refused by the one check, with an
// *OptionError that names it by its path, gives its value and matches
// ErrInvalidConfig; NewCrawler, Stages and NewFetcher refuse it alike.
func TestOptionErrorsNameTheSetting(t *testing.T) {
	for _, tc := range []struct {
		cfg   Config
		field string
		value any
		text  string
	}{
		{Config{FetchOptions: FetchOptions{Workers: -1}}, "FetchOptions.Workers", -1, "FetchOptions.Workers: -1 is negative"},
		{Config{FetchOptions: FetchOptions{MaxBodyBytes: -5}}, "FetchOptions.MaxBodyBytes", int64(-5), "FetchOptions.MaxBodyBytes: -5 is negative"},
		{Config{FetchOptions: FetchOptions{FetchTimeout: -time.Second}}, "FetchOptions.FetchTimeout", -time.Second, "FetchOptions.FetchTimeout: -1s is negative"},
		{Config{FetchOptions: FetchOptions{Retry: RetryPolicy{BaseDelay: -1}}}, "FetchOptions.Retry.BaseDelay", time.Duration(-1), "FetchOptions.Retry.BaseDelay: -1ns is negative"},
		{Config{FetchOptions: FetchOptions{Retry: RetryPolicy{MaxDelay: -time.Second}}}, "FetchOptions.Retry.MaxDelay", -time.Second, "FetchOptions.Retry.MaxDelay: -1s is negative"},
		{Config{FetchOptions: FetchOptions{Retry: RetryPolicy{MaxRetryAfter: -time.Second}}}, "FetchOptions.Retry.MaxRetryAfter", -time.Second, "FetchOptions.Retry.MaxRetryAfter: -1s is negative"},
		// The default MaxDelay (10s) below a BaseDelay of a minute.
		{Config{FetchOptions: FetchOptions{Retry: RetryPolicy{BaseDelay: time.Minute}}}, "FetchOptions.Retry.MaxDelay", DefaultRetryMaxDelay, "FetchOptions.Retry.MaxDelay: 10s is below BaseDelay 1m0s"},
		{Config{StoreBatchSize: -1}, "Config.StoreBatchSize", -1, "Config.StoreBatchSize: -1 is negative"},
		{Config{GraphWriters: -2}, "Config.GraphWriters", -2, "Config.GraphWriters: -2 is negative"},
		{Config{Gates: []Gate{nil}}, "Config.Gates[0]", nil, "Config.Gates[0] is nil"},
		{Config{Processors: []pipeline.Processor{passThrough{}, nil}}, "Config.Processors[1]", nil, "Config.Processors[1] is nil"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			err := tc.cfg.Check()
			var oe *OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("Check() = %v (%T), want an *OptionError", err, err)
			}
			if oe.Field != tc.field || oe.Value != tc.value || err.Error() != tc.text {
				t.Errorf("Check() = %+v, %q; want Field %q, Value %v, text %q", *oe, err, tc.field, tc.value, tc.text)
			}
			if !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("Check() = %v, does not match ErrInvalidConfig", err)
			}
			for name, build := range map[string]func(Config) error{
				"NewCrawler": func(c Config) error { _, err := NewCrawler(c); return err },
				"Stages":     func(c Config) error { _, err := Stages(c); return err },
				"NewFetcher": func(c Config) error { _, err := NewFetcher(c); return err },
			} {
				err := build(tc.cfg)
				var got *OptionError
				if !errors.Is(err, ErrInvalidConfig) || !errors.As(err, &got) || got.Field != tc.field {
					t.Errorf("%s = %v, want ErrInvalidConfig and the OptionError of %s", name, err, tc.field)
				}
			}
		})
	}
	if err := (Config{}).Check(); err != nil {
		t.Errorf("the zero Config: %v", err)
	}
	// Negative MaxRedirects and MaxRetries are settings (none), not
	// mistakes.
	if err := (FetchOptions{MaxRedirects: -1, Retry: RetryPolicy{MaxRetries: -1}}).Check(); err != nil {
		t.Errorf("no redirects, no retries: %v", err)
	}
}

// The defaults are set in one place, and setting them again changes
// nothing: package engine fills them in, then its crawler does.
func TestFetchOptionsWithDefaults(t *testing.T) {
	d := FetchOptions{}.WithDefaults()
	if d.Workers != DefaultFetchWorkers || d.UserAgent != DefaultUserAgent || d.MaxBodyBytes != DefaultMaxBodyBytes ||
		d.FetchTimeout != DefaultFetchTimeout || d.MaxRedirects != DefaultMaxRedirects || d.PrivateNetworkDetector == nil ||
		d.URLGetter == nil || d.HeadFirst || d.SortQuery || d.StripTracking || d.Recorder != nil || d.DecorateRequest != nil {
		t.Errorf("FetchOptions{}.WithDefaults() = %+v", d)
	}
	if want := (RetryPolicy{DefaultMaxRetries, DefaultRetryBaseDelay, DefaultRetryMaxDelay, DefaultMaxRetryAfter}); d.Retry != want {
		t.Errorf("default Retry = %+v, want %+v", d.Retry, want)
	}
	if tr := d.URLGetter.(*http.Client).Transport.(*http.Transport); tr.MaxIdleConnsPerHost != DefaultFetchWorkers {
		t.Errorf("default getter keeps %d connections per host, want one per worker", tr.MaxIdleConnsPerHost)
	}
	none := FetchOptions{Workers: 3, MaxRedirects: -1, Retry: RetryPolicy{MaxRetries: -1}}.WithDefaults()
	again := none.WithDefaults()
	if again.Workers != 3 || again.MaxRedirects != -1 || again.Retry != none.Retry || again.Retry.MaxRetries != -1 ||
		again.URLGetter != none.URLGetter || again.PrivateNetworkDetector != none.PrivateNetworkDetector {
		t.Errorf("defaults filled in twice: %+v, then %+v", none, again)
	}
	if tr := none.URLGetter.(*http.Client).Transport.(*http.Transport); tr.MaxIdleConnsPerHost != 3 {
		t.Errorf("default getter keeps %d connections per host, want 3", tr.MaxIdleConnsPerHost)
	}
}

// The zero Config retries transient failures with RetryPolicy's defaults,
// as package engine always did; MaxRetries -1 sends one request.
func TestZeroRetryPolicyRetries(t *testing.T) {
	var n atomic.Int32
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>up</title>"))
	})
	if p, kept := fetchWith(t, loopbackConfig(), s.URL+"/"); !kept || n.Load() != 3 {
		t.Fatalf("zero Retry: kept %v after %d requests (%v), want the third to succeed", kept, n.Load(), p.outcome)
	}
	n.Store(0)
	cfg := loopbackConfig()
	cfg.Retry.MaxRetries = -1
	if _, kept := fetchWith(t, cfg, s.URL+"/"); kept || n.Load() != 1 {
		t.Errorf("MaxRetries -1: kept %v after %d requests, want one request", kept, n.Load())
	}
}

// The fetch stage sends FetchOptions.UserAgent itself, on every request,
// before DecorateRequest sees it.
func TestUserAgentSetByFetchStage(t *testing.T) {
	var mu sync.Mutex
	var got []string
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r.Header.Get("User-Agent")+" "+r.Method)
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/page", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>page</title>"))
	})
	cfg := loopbackConfig()
	cfg.UserAgent = "acme-bot/2.0"
	cfg.HeadFirst = true
	var seen []string
	cfg.DecorateRequest = func(r *http.Request) error {
		seen = append(seen, r.Header.Get("User-Agent"))
		return nil
	}
	if _, kept := fetchWith(t, cfg, s.URL+"/"); !kept {
		t.Fatal("page not kept")
	}
	// HEAD and GET of the redirect, HEAD and GET of its target.
	want := []string{"acme-bot/2.0 HEAD", "acme-bot/2.0 GET", "acme-bot/2.0 HEAD", "acme-bot/2.0 GET"}
	if len(got) != len(want) {
		t.Fatalf("requests %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] || seen[i] != "acme-bot/2.0" {
			t.Errorf("request %d: server saw %q, decorator %q; want %q", i, got[i], seen[i], want[i])
		}
	}
	if _, kept := fetchWith(t, loopbackConfig(), s.URL+"/page"); !kept || got[len(got)-1] != DefaultUserAgent+" GET" {
		t.Errorf("zero UserAgent sent %q, want %q", got[len(got)-1], DefaultUserAgent)
	}
}
