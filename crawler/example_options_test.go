package crawler_test

import (
	"errors"
	"fmt"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
)

// One FetchOptions value says how pages are fetched, for a Crawler and for
// package engine's whole crawl alike: both embed it and use it as it is.
func ExampleFetchOptions() {
	fetch := crawler.FetchOptions{
		Workers:       8,
		UserAgent:     "acme-bot/1.0 (+https://acme.example/bot)",
		StripTracking: true,
		// No retries: the zero RetryPolicy would retry twice.
		Retry: crawler.RetryPolicy{MaxRetries: -1},
	}
	cfg := crawler.Config{FetchOptions: fetch}
	opts := engine.Options{FetchOptions: fetch, PerHost: 1}
	fmt.Println(cfg.Check(), opts.Check())
	fmt.Println(cfg.Workers, opts.UserAgent)
	// Output:
	// <nil> <nil>
	// 8 acme-bot/1.0 (+https://acme.example/bot)
}

// WithDefaults is where every zero setting gets its default, once.
func ExampleFetchOptions_WithDefaults() {
	o := crawler.FetchOptions{Workers: 4, MaxRedirects: -1}.WithDefaults()
	fmt.Println(o.Workers, o.MaxRedirects, o.FetchTimeout, o.MaxBodyBytes, o.Retry.MaxRetries, o.Retry.MaxRetryAfter)
	fmt.Println(o.UserAgent == crawler.DefaultUserAgent)
	// Output:
	// 4 -1 30s 4194304 2 30s
	// true
}

// A program that builds its Config from inputs of its own (flags, a file)
// says which input was wrong from the error's Field, without reading the
// message.
func ExampleOptionError() {
	flags := map[string]string{"FetchOptions.Workers": "--workers", "Config.StoreBatchSize": "--batch"}
	cfg := crawler.Config{FetchOptions: crawler.FetchOptions{Workers: -1}}
	err := cfg.Check()
	fmt.Println(err)
	fmt.Println(errors.Is(err, crawler.ErrInvalidConfig))
	var oe *crawler.OptionError
	if errors.As(err, &oe) {
		fmt.Println(&crawler.OptionError{Field: flags[oe.Field], Value: oe.Value, Problem: oe.Problem})
	}
	// Output:
	// FetchOptions.Workers: -1 is negative
	// true
	// --workers: -1 is negative
}

// Normalize spells a URL as the crawl stores it, so that a URL given to a
// program compares equal to the crawled one.
func ExampleFetchOptions_Normalize() {
	for _, o := range []crawler.FetchOptions{{}, {SortQuery: true, StripTracking: true}} {
		fmt.Println(o.Normalize("HTTPS://Example.COM:443/docs/../b?z=1&a=2&utm_source=feed#top"))
	}
	_, err := crawler.FetchOptions{}.Normalize("ftp://example.com/")
	fmt.Println(err != nil)
	// Output:
	// https://example.com/b?z=1&a=2&utm_source=feed <nil>
	// https://example.com/b?a=2&z=1 <nil>
	// true
}
