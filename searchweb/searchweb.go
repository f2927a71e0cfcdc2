// Package searchweb serves a search engine's web pages over a text index:
// a query box, result pages (title, URL, a snippet with the query's words
// marked, the date the page was indexed, the number of results, pagination
// and a facet of the sites the results are on: host, and port unless it
// is the default), a status page, a JSON API and an OpenSearch
// description, so that a browser can add the site as a search engine.
//
// The pages are rendered on the server with html/template (every value
// escaped in its context) and need no JavaScript: they work with a
// keyboard, a screen reader and a phone. A query is read by ReadQuery, as
// `linksrus search` reads it, in textindex.QueryTypeSearch's syntax,
// bounded as every index bounds it, and told about in the same words.
// What the pages echo of a query is what was searched: a query past the
// bounds (4 KB, 32 words) is echoed cut, so a long query never makes a
// long page. Each search is given a deadline; what goes wrong is told to
// the user in words, while the details go to the log, never into the
// page.
//
// Results builds the page of results, for the pages, the API and
// `linksrus search` alike, with one paging rule: a page shows PageSize
// results, with the near-duplicates among them folded under the first
// result they are near, and the next page starts where it stopped reading
// (the API's next_offset). Pages are numbered from the first result, page
// n starting where page n-1 stopped, so the pagination links the pages up
// to the next one: those after it are not known until they are read.
//
// Routes:
//
//	GET /                  the query box; with ?q=, the results (also /search)
//	                       (?lang=fr: the query's language, textindex.Query.Language)
//	GET /status            what the crawl and the index hold
//	GET /api/search?q=     results as JSON (offset, limit; next_offset pages on)
//	GET /api/status        the status as JSON
//	GET /opensearch.xml    the OpenSearch description (with Options.BaseURL)
package searchweb

import (
	"context"
	"embed"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/linksrus/linksrus/textindex"
)

// Searcher is the part of a text index the pages read; every textindex
// backend implements it.
type Searcher interface {
	SearchContext(ctx context.Context, q textindex.Query) (textindex.Iterator, error)
}

// Status is what the status page shows. Zero counts that are unknown are
// marked with Known false.
type Status struct {
	// Known reports whether the crawl figures below are known; without
	// them the page shows the index alone.
	Known bool `json:"known"`
	// URLs is every URL the graph knows; Crawled the pages fetched of
	// them; NotFetched those linked from pages and not fetched (yet, or
	// ever: out of scope, failed).
	URLs       uint64 `json:"urls"`
	Crawled    uint64 `json:"crawled"`
	NotFetched uint64 `json:"not_fetched"`
	// Indexed is the number of pages in the index, when known: of
	// pages with the same text (duplicates, redirects), the one search
	// shows (textindex.Counter).
	Indexed uint64 `json:"indexed"`
	// LastCrawl is when the last crawl ended (or the last page was
	// fetched); zero when unknown.
	LastCrawl time.Time `json:"last_crawl,omitzero"`
	// Crawling reports a crawl running now, and RunPages how many pages
	// it has fetched so far.
	Crawling bool   `json:"crawling"`
	RunPages uint64 `json:"run_pages,omitempty"`
	// AsOf is when these figures were taken, and Source where from (for
	// example "the link graph" or "the crawl's status file"): figures
	// recorded by a running crawl lag behind it.
	AsOf   time.Time `json:"as_of,omitzero"`
	Source string    `json:"source,omitempty"`
}

// Options configure New.
type Options struct {
	// Index is searched. Required.
	Index Searcher
	// Status returns the status page's figures; nil leaves the page with
	// the index's search alone.
	Status func(ctx context.Context) (Status, error)
	// Name is the site's name, in titles and the OpenSearch description.
	// Default: "linksrus".
	Name string
	// BaseURL is the absolute http(s) URL the pages are served at, such
	// as "https://search.example.com" (see ParseBaseURL): the OpenSearch
	// description names it, since a browser needs absolute URLs there. It
	// is never taken from a request, whose Host header anyone can set.
	// Empty: there is no description (/opensearch.xml is not found, and
	// no page links it).
	BaseURL string
	// PageSize is the number of results a page shows (PageOptions.Limit
	// of Results). Default: 10.
	PageSize int
	// FacetResults is how many of the best results the host facet counts
	// hosts in. Default: 500.
	FacetResults int
	// Timeout bounds each search. Default: 5s.
	Timeout time.Duration
	// Logger receives what went wrong in a search, which the page only
	// names. Default: slog.Default().
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultName         = "linksrus"
	DefaultPageSize     = 10
	DefaultFacetResults = 500
	DefaultTimeout      = 5 * time.Second
	// MaxAPILimit bounds /api/search's limit parameter.
	MaxAPILimit = 100
	// maxFacetHosts is how many hosts the facet lists.
	maxFacetHosts = 10
)

//go:embed templates/*.html static/style.css
var files embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"date": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2 Jan 2006")
	},
	// form gives the search form of a page without a query.
	"form": func(name string) struct{ Name, Query, Lang string } {
		return struct{ Name, Query, Lang string }{name, "", ""}
	},
	"quote": Quote,
	// openSearch reports whether pages link an OpenSearch description;
	// each Server's copy of the templates says (see New).
	"openSearch": func() bool { return false },
}).ParseFS(files, "templates/*.html"))

// openSearchXML is the OpenSearch 1.1 description; text/template, since
// it is XML, with every value escaped by xmlEscape.
var openSearchXML = texttemplate.Must(texttemplate.New("").Funcs(texttemplate.FuncMap{"xml": xmlEscape}).Parse(`<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
<ShortName>{{xml .Name}}</ShortName>
<Description>Search the pages crawled by {{xml .Name}}</Description>
<InputEncoding>UTF-8</InputEncoding>
<Url type="text/html" method="get" template="{{xml .Base}}/search?q={searchTerms}"/>
<Url type="application/json" method="get" template="{{xml .Base}}/api/search?q={searchTerms}"/>
<Url type="application/opensearchdescription+xml" rel="self" template="{{xml .Base}}/opensearch.xml"/>
</OpenSearchDescription>
`))

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// Server is the http.Handler New returns.
type Server struct {
	opts  Options
	mux   *http.ServeMux
	pages *template.Template
}

// ParseBaseURL checks that raw is an absolute http or https URL of a
// site's root ("https://search.example.com", a trailing "/" allowed) and
// returns it without the trailing "/". The pages link each other from the
// root, so a path is refused, as are user information, a query and a
// fragment.
func ParseBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("base URL %q: %w", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("base URL %q: not an absolute http or https URL (like https://search.example.com)", raw)
	case u.Host == "" || u.Hostname() == "":
		return "", fmt.Errorf("base URL %q: no host", raw)
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "":
		return "", fmt.Errorf("base URL %q: only a scheme, host and port, without user, query or fragment", raw)
	case u.Path != "" && u.Path != "/":
		return "", fmt.Errorf("base URL %q: the pages are served at the root of a host, not under %s", raw, u.Path)
	}
	return u.Scheme + "://" + u.Host, nil
}

// New returns the handler serving the pages over opts.Index.
func New(opts Options) (*Server, error) {
	if opts.Index == nil {
		return nil, errors.New("searchweb: new: Options.Index is nil")
	}
	if opts.PageSize < 0 || opts.FacetResults < 0 || opts.Timeout < 0 {
		return nil, errors.New("searchweb: new: negative PageSize, FacetResults or Timeout")
	}
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if opts.BaseURL != "" {
		base, err := ParseBaseURL(opts.BaseURL)
		if err != nil {
			return nil, fmt.Errorf("searchweb: new: Options.BaseURL: %w", err)
		}
		opts.BaseURL = base
	}
	if opts.PageSize == 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.FacetResults == 0 {
		opts.FacetResults = DefaultFacetResults
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	withOpenSearch := opts.BaseURL != ""
	s := &Server{opts: opts, mux: http.NewServeMux(),
		pages: template.Must(pages.Clone()).Funcs(template.FuncMap{"openSearch": func() bool { return withOpenSearch }})}
	s.mux.HandleFunc("GET /{$}", s.searchPage)
	s.mux.HandleFunc("GET /search", s.searchPage)
	s.mux.HandleFunc("GET /status", s.statusPage)
	s.mux.HandleFunc("GET /api/search", s.searchAPI)
	s.mux.HandleFunc("GET /api/status", s.statusAPI)
	if withOpenSearch {
		s.mux.HandleFunc("GET /opensearch.xml", s.openSearch)
	}
	s.mux.HandleFunc("GET /style.css", s.style)
	s.mux.HandleFunc("/", s.notFound)
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// The pages need nothing from elsewhere and no script at all.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

// hostCount is an entry of the host facet: a site, as site: names it.
type hostCount struct {
	Host  string `json:"host"`
	Count int    `json:"count"`
	// Link restricts the query to the host.
	Link string `json:"-"`
}

// answer is a search's outcome, for a page or the API.
type answer struct {
	// Query is the query as searched: as typed, or its searched part
	// when Cut (Request.Shown).
	Query string `json:"query"`
	// Lang is the query's language (textindex.Query.Language), "" for
	// English.
	Lang    string   `json:"lang,omitempty"`
	Cut     bool     `json:"query_cut,omitempty"`
	Total   uint64   `json:"total"`
	Offset  uint64   `json:"offset"`
	Results []Result `json:"results"`
	// NextOffset is the offset of the next page (Page.Next); absent on
	// the last page.
	NextOffset uint64      `json:"next_offset,omitempty"`
	Hosts      []hostCount `json:"hosts"`
	// FacetOf is how many results the host counts come from.
	FacetOf uint64 `json:"hosts_of_results"`
	// Problem says, in words, why there are no results, if not simply
	// because nothing matched.
	Problem string `json:"problem,omitempty"`
	// Status is the HTTP status the answer goes out with.
	Status int `json:"-"`
	// CutNotice says that the query was cut (Request.CutNotice).
	CutNotice string `json:"-"`
	// page is the page of results, for the pagination.
	page Page
}

// search runs the query text typed, in language lang, from offset and
// builds the page of results opts asks for, and the host facet.
func (s *Server) search(ctx context.Context, text, lang string, offset uint64, opts PageOptions) answer {
	req := ReadQuery(text, textindex.QueryTypeSearch, offset)
	a := answer{Query: req.Shown, Cut: req.Cut, CutNotice: req.CutNotice(), Offset: offset,
		Results: []Result{}, Hosts: []hostCount{}, Status: http.StatusOK}
	if req.Problem != "" {
		a.Problem = req.Problem
		if req.BadRequest {
			a.Status = http.StatusBadRequest
		}
		return a
	}
	if !ValidLanguage(lang) {
		a.Problem = "The language must be a language tag such as fr or pt-BR."
		a.Status = http.StatusBadRequest
		return a
	}
	a.Lang = lang
	q := req.Query
	q.Language = lang
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	p, err := Results(ctx, s.opts.Index, q, opts)
	if err != nil {
		return s.failed(ctx, a, err)
	}
	a.page, a.Total, a.Offset, a.Results = p, p.Total, p.Offset, p.Results
	if p.More {
		a.NextOffset = p.Next()
	}
	for i, r := range a.Results {
		if r.Title == "" {
			a.Results[i].Title = r.URL
		}
	}
	if err := s.facet(ctx, q, &a); err != nil {
		return s.failed(ctx, a, err)
	}
	return a
}

// facet counts the hosts of the best FacetResults results, reading their
// URLs only.
func (s *Server) facet(ctx context.Context, q textindex.Query, a *answer) error {
	if a.Total == 0 {
		return nil
	}
	q.Offset, q.URLsOnly = 0, true
	it, err := s.opts.Index.SearchContext(ctx, q)
	if err != nil {
		return err
	}
	defer it.Close()
	counts := make(map[string]int)
	for a.FacetOf < uint64(s.opts.FacetResults) && it.Next() {
		a.FacetOf++
		if h := textindex.SiteOf(it.Document().URL); h != "" {
			counts[h]++
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	// a.Query is what was searched: a cut query's facet links restrict
	// that, where site:host added to the whole query would fall past the
	// cut.
	for h, n := range counts {
		a.Hosts = append(a.Hosts, hostCount{Host: h, Count: n, Link: searchURL(restrict(a.Query, h), a.Lang, 1)})
	}
	slices.SortFunc(a.Hosts, func(x, y hostCount) int {
		if x.Count != y.Count {
			return y.Count - x.Count
		}
		return strings.Compare(x.Host, y.Host)
	})
	if len(a.Hosts) > maxFacetHosts {
		a.Hosts = a.Hosts[:maxFacetHosts]
	}
	return nil
}

// failed turns a search error into words for the user; the error itself
// goes to the log.
func (s *Server) failed(ctx context.Context, a answer, err error) answer {
	a.Results, a.Hosts, a.Total, a.FacetOf, a.NextOffset, a.page = []Result{}, []hostCount{}, 0, 0, 0, Page{}
	if errors.Is(err, context.DeadlineExceeded) {
		a.Problem = fmt.Sprintf("The search took longer than %v and was stopped. A narrower query may answer.", s.opts.Timeout)
		a.Status = http.StatusServiceUnavailable
		return a
	}
	if ctx.Err() != nil { // the client went away
		a.Problem = "The search was canceled."
		a.Status = http.StatusServiceUnavailable
		return a
	}
	s.opts.Logger.Error("searchweb: search failed", "query", a.Query, "err", err)
	a.Problem = "The search failed. Please try again later."
	a.Status = http.StatusInternalServerError
	return a
}

// restrict adds site:host to query, unless it is there already.
func restrict(query, host string) string {
	if slices.Contains(strings.Fields(strings.ToLower(query)), "site:"+host) {
		return query
	}
	return strings.TrimSpace(query) + " site:" + host
}

// ValidLanguage reports whether lang is "" or has the shape of a BCP 47
// language tag ("fr", "pt-BR", "zh-Hant-TW"): letters and digits in
// subtags of 1 to 8, joined by hyphens, at most 35 bytes, starting with a
// language of 2 to 8 letters.
func ValidLanguage(lang string) bool {
	if lang == "" {
		return true
	}
	if len(lang) > 35 {
		return false
	}
	for n, sub := range strings.Split(lang, "-") {
		if len(sub) < 1 || len(sub) > 8 || (n == 0 && len(sub) < 2) {
			return false
		}
		for _, c := range []byte(sub) {
			letter := 'a' <= c|0x20 && c|0x20 <= 'z'
			if !letter && (n == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

// searchURL is the address of page of the results of query in language
// lang.
func searchURL(query, lang string, page int) string {
	v := url.Values{"q": {query}}
	if lang != "" {
		v.Set("lang", lang)
	}
	if page > 1 {
		v.Set("p", strconv.Itoa(page))
	}
	return "/search?" + v.Encode()
}

// pageData is what the search template renders.
type pageData struct {
	Name string
	answer
	Page, Pages int
	First, Last uint64
	Prev, Next  string
	PageLinks   []pageLink
}

type pageLink struct {
	Number  int
	Link    string
	Current bool
}

// maxPageLinks is how many numbered page links the pagination shows.
const maxPageLinks = 9

// MaxPageNumber is the last page of results the page serves. Page n is
// found by reading the pages before it (see Results), so a deep page costs
// all the results before it; like the web's search engines, the page
// stops at about a thousand results and asks for a narrower query instead
// of letting any request read a whole index.
const MaxPageNumber = 100

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	page := 1
	if p := r.URL.Query().Get("p"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			s.render(w, http.StatusBadRequest, "error.html", errorData{Name: s.opts.Name, Message: "There is no such page of results."})
			return
		}
		if n > MaxPageNumber {
			s.render(w, http.StatusBadRequest, "error.html", errorData{Name: s.opts.Name,
				Message: fmt.Sprintf("Pages of results go up to %d: a narrower query (more words, site:host) finds what lies deeper.", MaxPageNumber)})
			return
		}
		page = n
	}
	d := pageData{Name: s.opts.Name, Page: page}
	if !r.URL.Query().Has("q") {
		d.answer = answer{Status: http.StatusOK}
		s.render(w, http.StatusOK, "search.html", d)
		return
	}
	// Pages are numbered from the first result; page n is where page n-1
	// stopped reading (see Results), so its number is exact, but the pages
	// after the next one are not known yet.
	d.answer = s.search(r.Context(), r.URL.Query().Get("q"), r.URL.Query().Get("lang"), 0, PageOptions{Limit: s.opts.PageSize, Number: page})
	// Links echo the query as searched (d.Query), never more of it.
	query := d.Query
	if d.Total > 0 {
		d.Pages = d.page.KnownPages
		d.First = d.Offset + 1
		d.Last = d.page.Next()
		if page > 1 {
			d.Prev = searchURL(query, d.Lang, min(page-1, d.Pages))
		}
		if page < d.Pages {
			d.Next = searchURL(query, d.Lang, page+1)
		}
		lo := max(1, min(page-maxPageLinks/2, d.Pages-maxPageLinks+1))
		for n := lo; n <= d.Pages && n < lo+maxPageLinks; n++ {
			d.PageLinks = append(d.PageLinks, pageLink{Number: n, Link: searchURL(query, d.Lang, n), Current: n == page})
		}
	}
	s.render(w, d.Status, "search.html", d)
}

func (s *Server) searchAPI(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	offset, limit := uint64(0), s.opts.PageSize
	if o := v.Get("offset"); o != "" {
		n, err := strconv.ParseUint(o, 10, 64)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "offset must be a whole number"})
			return
		}
		offset = n
	}
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > MaxAPILimit {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("limit must be from 1 to %d", MaxAPILimit)})
			return
		}
		limit = n
	}
	a := s.search(r.Context(), v.Get("q"), v.Get("lang"), offset, PageOptions{Limit: limit})
	writeJSON(w, a.Status, a)
}

func (s *Server) status(ctx context.Context) (Status, error) {
	if s.opts.Status == nil {
		return Status{}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	return s.opts.Status(ctx)
}

func (s *Server) statusPage(w http.ResponseWriter, r *http.Request) {
	st, err := s.status(r.Context())
	d := statusData{Name: s.opts.Name, Status: st}
	code := http.StatusOK
	if err != nil {
		s.opts.Logger.Error("searchweb: status failed", "err", err)
		d.Problem = "The crawl's figures could not be read just now."
		code = http.StatusServiceUnavailable
	}
	s.render(w, code, "status.html", d)
}

func (s *Server) statusAPI(w http.ResponseWriter, r *http.Request) {
	st, err := s.status(r.Context())
	if err != nil {
		s.opts.Logger.Error("searchweb: status failed", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the crawl's figures could not be read just now"})
		return
	}
	writeJSON(w, http.StatusOK, st)
}

type statusData struct {
	Name string
	Status
	Problem string
}

type errorData struct {
	Name    string
	Message string
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	s.render(w, http.StatusNotFound, "error.html", errorData{Name: s.opts.Name, Message: "There is no page here."})
}

// openSearch serves the OpenSearch 1.1 description, with the URLs of
// Options.BaseURL.
func (s *Server) openSearch(w http.ResponseWriter, _ *http.Request) {
	var b strings.Builder
	if err := openSearchXML.Execute(&b, struct{ Name, Base string }{s.opts.Name, s.opts.BaseURL}); err != nil {
		s.opts.Logger.Error("searchweb: render opensearch.xml", "err", err)
		http.Error(w, "the description could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/opensearchdescription+xml")
	_, _ = w.Write([]byte(b.String()))
}

func (s *Server) style(w http.ResponseWriter, _ *http.Request) {
	css, err := files.ReadFile("static/style.css")
	if err != nil {
		http.Error(w, "no style", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=3600")
	_, _ = w.Write(css)
}

// render executes the template into a buffer first, so that a failure is
// a clean error rather than half a page.
func (s *Server) render(w http.ResponseWriter, code int, name string, data any) {
	var b strings.Builder
	if err := s.pages.ExecuteTemplate(&b, name, data); err != nil {
		s.opts.Logger.Error("searchweb: render", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(b.String()))
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
