# The targets a developer and CI use. `make test` is the test command that
# README.md names and .ci/run calls.
GO            ?= go
STATICCHECK   ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
MOCKGEN       ?= go.uber.org/mock/mockgen@v0.6.0
GOBIN         ?= $(shell $(GO) env GOPATH)/bin
TESTFLAGS     ?=
BENCH         ?= .
BENCHTIME     ?= 1s
FUZZTIME      ?= 20s
# make relevance: where the bench harness and the judged sets are (see
# scripts/relevance.sh for the rest: CORPORA, BACKENDS, PG, OUT)
HARNESS       ?= ../shared/bench
PG_JUDGED     ?= $(if $(wildcard ../shared/search/pg-judged.tsv),../shared/search/pg-judged.tsv,testdata/relevance/pg-judged.tsv)
RUST_JUDGED   ?= testdata/relevance/rust-judged.tsv
RENDER_SAMPLE ?= pg=/usr/share/doc/postgresql-doc-15/html py=/usr/share/doc/python3.11/html rust=/usr/share/doc/rust-doc/html

.PHONY: all deps build test lint bench fuzz generate clean screenshot relevance render-bench render-sample

all: lint test

## deps: download modules and install the tools lint and generate need
deps:
	$(GO) mod download
	$(GO) install $(STATICCHECK)
	$(GO) install $(MOCKGEN)

## build: build the linksrus command into ./bin
build:
	$(GO) build -o bin/linksrus ./cmd/linksrus

## test: every test with the race detector (PostgreSQL suites need LINKSRUS_TEST_PG),
## one package at a time: the politeness tests time requests on loopback
## servers, and another package's test binaries starving a server's process
## for tens of milliseconds would blur those times on a 2-core machine
test:
	$(GO) test -race -count=1 -p 1 $(TESTFLAGS) ./...

## lint: go vet and staticcheck
lint:
	$(GO) vet ./...
	@test -x $(GOBIN)/staticcheck || $(GO) install $(STATICCHECK)
	$(GOBIN)/staticcheck ./...

## bench: every benchmark, with allocations, no tests
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) ./...

## fuzz: each fuzz target for FUZZTIME (CI runs this with a short time)
fuzz:
	@./.ci/fuzz.sh $(FUZZTIME)

## render-bench: pages per second rendered in headless Chromium (crawler/render), two tabs,
## over internal/jsweb's generated JavaScript site (needs chromium); then the same site crawled
## with --render always (engine) beside plain chromedp crawls (navigate, wait for the load event
## or for networkIdle, read the anchors), pages per second and share of the site found
render-bench:
	$(GO) test -run '^$$' -bench Render -benchtime 200x ./crawler/render
	$(GO) test -run '^$$' -bench 'RenderedCrawl|PlainBrowserCrawl' -benchtime 3x ./crawler/engine

## render-sample: what --render auto renders, and what rendering finds, on the first 300 pages
## of the pg, py and rust documentation (apt-get install postgresql-doc-15 python3-doc rust-doc)
render-sample:
	LINKSRUS_RENDER_SAMPLE='$(RENDER_SAMPLE)' $(GO) test -count=1 -run '^TestRenderSample$$' -v -timeout 30m ./crawler

## relevance: MRR@10, success@1 and success@3 of the judged queries, per corpus and backend
## (crawls the bench harness's corpora, HARNESS; PostgreSQL too when PG or LINKSRUS_TEST_PG
## names a server; not run by CI, which has no corpus)
relevance:
	HARNESS='$(HARNESS)' PG_JUDGED='$(PG_JUDGED)' RUST_JUDGED='$(RUST_JUDGED)' GO='$(GO)' ./scripts/relevance.sh

## screenshot: docs/search.png, the search page's results, from the browser test (needs chromium)
screenshot:
	mkdir -p docs
	LINKSRUS_SCREENSHOT=$(CURDIR)/docs/search.png $(GO) test -count=1 -run '^TestSearchPageInBrowser$$' ./cmd/linksrus

## generate: regenerate mocks
generate:
	@test -x $(GOBIN)/mockgen || $(GO) install $(MOCKGEN)
	PATH="$(GOBIN):$$PATH" $(GO) generate ./...

clean:
	rm -rf bin
