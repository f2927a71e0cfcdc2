package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
)

// The protocol's limits, the defaults of Options.
const (
	// MaxURLs is the most entries a sitemap or a sitemap index may hold.
	MaxURLs = 50_000
	// MaxBytes is the largest a sitemap may be, uncompressed (50 MiB).
	MaxBytes = 50 << 20
	// MaxLocLength is the longest <loc> the protocol allows.
	MaxLocLength = 2048
)

// maxRun is the most bytes Parse reads without a '<': the decoder holds a
// text node or a tag whole, and no text or tag of a sitemap comes near
// this, so a file of one enormous text node (a gzip bomb's usual shape)
// ends here instead of at MaxBytes held in memory.
const maxRun = 1 << 20

// Errors Parse wraps; entries read before the error have been handed to
// the callback.
var (
	// ErrTooLarge: the file is longer than Options.MaxBytes uncompressed,
	// or holds more than Options.MaxURLs entries.
	ErrTooLarge = errors.New("sitemap: over the size limit")
	// ErrNotSitemap: the document is well-formed XML (or starts as such)
	// but its root is neither <urlset> nor <sitemapindex>.
	ErrNotSitemap = errors.New("sitemap: not a sitemap")
	// ErrMalformed: the XML (or the gzip stream) is broken.
	ErrMalformed = errors.New("sitemap: malformed")
)

// Kind says what a file is.
type Kind uint8

const (
	// Unknown: the root element was not read (yet).
	Unknown Kind = iota
	// URLSet is a sitemap proper, a <urlset> of pages.
	URLSet
	// Index is a sitemap index, a <sitemapindex> of sitemaps.
	Index
)

func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "sitemapindex"
	}
	return "unknown"
}

// Entry is one <url> of a sitemap, or one <sitemap> of an index.
type Entry struct {
	// Loc is the URL, as the file gives it (whitespace trimmed), checked
	// to be absolute http(s) and within Options.Location.
	Loc string
	// LastMod is when the page (or the sitemap) last changed; zero when
	// the file does not say or says it in a form that does not parse.
	LastMod time.Time
	// LastModUntil is the latest instant LastMod's value can mean: the
	// end of the day for a date alone (of the month, the year), and 14
	// hours later for a time without a zone (taken as UTC, it may be any
	// zone's). A page fetched after it has not changed since, whatever
	// the file meant; one fetched between the two may have.
	LastModUntil time.Time
}

// Options configure Parse. The zero value applies the protocol's limits
// and no location check.
type Options struct {
	// Location is where the sitemap was fetched from (after redirects);
	// entries must be on its host (port included, scheme not: http and
	// https variants of a site are accepted) and under its directory. Nil:
	// any absolute http(s) URL is accepted.
	Location *url.URL
	// AnyPath accepts entries anywhere on Location's host: for a sitemap
	// named in the host's robots.txt, which the protocol lets list any URL
	// of the host.
	AnyPath bool
	// MaxURLs and MaxBytes default to the package's constants.
	MaxURLs  int
	MaxBytes int64
}

// Result is what Parse read.
type Result struct {
	Kind Kind
	// URLs is the number of entries handed to the callback, Skipped the
	// number left out (invalid or outside Options.Location).
	URLs, Skipped int
}

// Parse reads a sitemap or sitemap index from r (plain or gzip-compressed
// XML) and calls fn with each valid entry, in document order, as it is
// read; an error from fn stops the parse and is returned as is. It returns
// what it read and, for a file that breaks the protocol, an error wrapping
// ErrTooLarge, ErrNotSitemap or ErrMalformed: the entries handed to fn
// before it stand.
func Parse(r io.Reader, opts Options, fn func(Kind, Entry) error) (Result, error) {
	if opts.MaxURLs <= 0 {
		opts.MaxURLs = MaxURLs
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = MaxBytes
	}
	var res Result
	in, err := decompress(r, opts.MaxBytes)
	if err != nil {
		return res, err
	}
	d := xml.NewDecoder(in)
	// The protocol asks for UTF-8; a file that declares another encoding
	// (ISO-8859-1, say) is decoded as it declares rather than refused.
	d.CharsetReader = charset.NewReaderLabel
	p := parser{opts: opts, res: &res, fn: fn}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return res, wrapReadError(err)
		}
		if err := p.token(tok); err != nil {
			return res, err
		}
	}
	if res.Kind == Unknown {
		return res, fmt.Errorf("%w: no root element", ErrNotSitemap)
	}
	if p.depth != 0 {
		return res, fmt.Errorf("%w: unexpected end of file", ErrMalformed)
	}
	return res, nil
}

// parser is Parse's state between tokens.
type parser struct {
	opts  Options
	res   *Result
	fn    func(Kind, Entry) error
	depth int
	// inEntry is set inside a <url> or <sitemap> element; field is the
	// child being read ("loc", "lastmod") and text its content so far.
	inEntry     bool
	field       string
	text        strings.Builder
	loc, modRaw string
}

func (p *parser) token(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.StartElement:
		p.depth++
		name := t.Name.Local
		switch {
		case p.depth == 1:
			switch name {
			case "urlset":
				p.res.Kind = URLSet
			case "sitemapindex":
				p.res.Kind = Index
			default:
				return fmt.Errorf("%w: root element <%s>", ErrNotSitemap, name)
			}
		case p.depth == 2 && (name == "url" && p.res.Kind == URLSet || name == "sitemap" && p.res.Kind == Index):
			p.inEntry, p.loc, p.modRaw = true, "", ""
		case p.depth == 3 && p.inEntry && (name == "loc" || name == "lastmod"):
			p.field = name
			p.text.Reset()
		}
	case xml.CharData:
		if p.field != "" {
			// Bounded: a <loc> longer than the protocol allows is
			// invalid anyway, so the rest need not be kept.
			if room := MaxLocLength + 1 - p.text.Len(); room > 0 {
				p.text.Write(t[:min(len(t), room)])
			}
		}
	case xml.EndElement:
		switch {
		case p.depth == 3 && p.field != "":
			if p.field == "loc" {
				p.loc = strings.TrimSpace(p.text.String())
			} else {
				p.modRaw = strings.TrimSpace(p.text.String())
			}
			p.field = ""
		case p.depth == 2 && p.inEntry:
			p.inEntry = false
			if err := p.entry(); err != nil {
				return err
			}
		}
		p.depth--
	}
	return nil
}

// entry checks the entry just read and hands it on.
func (p *parser) entry() error {
	if p.res.URLs+p.res.Skipped >= p.opts.MaxURLs {
		return fmt.Errorf("%w: more than %d entries", ErrTooLarge, p.opts.MaxURLs)
	}
	if !p.valid(p.loc) {
		p.res.Skipped++
		return nil
	}
	p.res.URLs++
	from, until := parseLastMod(p.modRaw)
	return p.fn(p.res.Kind, Entry{Loc: p.loc, LastMod: from, LastModUntil: until})
}

// valid reports whether loc is an absolute http(s) URL within the
// sitemap's location.
func (p *parser) valid(loc string) bool {
	if loc == "" || len(loc) > MaxLocLength {
		return false
	}
	u, err := url.Parse(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return false
	}
	base := p.opts.Location
	if base == nil {
		return true
	}
	// Dot segments are resolved first: /dir/../x is not under /dir/.
	u = u.ResolveReference(&url.URL{})
	if !strings.EqualFold(u.Host, base.Host) {
		return false
	}
	if p.opts.AnyPath {
		return true
	}
	dir := base.EscapedPath()
	dir = dir[:strings.LastIndexByte(dir, '/')+1]
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return dir == "" || strings.HasPrefix(path, dir)
}

// decompress returns r, or a gzip reader of it if it starts with gzip's
// magic bytes, limited to limit bytes of output: reading past them fails
// with ErrTooLarge. One level of gzip is undone after the one the HTTP
// client may have undone: a .xml.gz served with Content-Encoding gzip
// arrives compressed twice from a client that does not decode.
func decompress(r io.Reader, limit int64) (io.Reader, error) {
	for range 2 {
		br := bufio.NewReader(r)
		magic, err := br.Peek(2)
		if err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
			r = br
			break
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %w", ErrMalformed, err)
		}
		// Concatenated members are one file, as gunzip sees them.
		r = zr
	}
	return &limitReader{r: r, left: limit, maxRun: maxRun}, nil
}

// limitReader fails once more than its limit has been read, unlike
// io.LimitReader, which ends quietly: a cut sitemap must not pass as a
// whole one.
// It also fails after maxRun bytes without a '<' (see maxRun).
type limitReader struct {
	r      io.Reader
	left   int64
	maxRun int
	run    int // bytes since the last '<'
}

func (l *limitReader) Read(b []byte) (int, error) {
	if l.left < 0 {
		return 0, errOverLimit
	}
	if int64(len(b)) > l.left+1 {
		b = b[:l.left+1]
	}
	n, err := l.r.Read(b)
	l.left -= int64(n)
	if l.left < 0 {
		return 0, errOverLimit
	}
	if i := bytes.LastIndexByte(b[:n], '<'); i >= 0 {
		l.run = n - i - 1
	} else {
		l.run += n
	}
	if l.run > l.maxRun {
		return 0, errLongRun
	}
	return n, err
}

var (
	errOverLimit = fmt.Errorf("%w: more than the uncompressed size allowed", ErrTooLarge)
	errLongRun   = fmt.Errorf("%w: a text or tag of more than %d bytes", ErrTooLarge, maxRun)
)

// wrapReadError classifies an error of the XML decoder.
func wrapReadError(err error) error {
	if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrMalformed) {
		return err
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) ||
		errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	// A read error of the underlying stream (the network), or a decoder
	// error of another kind (an unsupported encoding declaration).
	return fmt.Errorf("sitemap: read: %w", err)
}

// lastModLayouts are the forms of W3C datetime (https://www.w3.org/TR/NOTE-datetime)
// at each precision, and the near-misses sites publish: no time zone, a
// space for the T, a zone without a colon.
// Each comes with how far past the parsed instant the value may reach
// (see Entry.LastModUntil).
var lastModLayouts = []struct {
	layout string
	until  func(time.Time) time.Time
}{
	{time.RFC3339Nano, plus(time.Second)},
	{"2006-01-02T15:04Z07:00", plus(time.Minute)},
	{"2006-01-02T15:04:05.999999999Z0700", plus(time.Second)},
	{"2006-01-02T15:04:05Z0700", plus(time.Second)},
	{"2006-01-02T15:04Z0700", plus(time.Minute)},
	{"2006-01-02T15:04:05.999999999", plus(time.Second + zoneSpread)},
	{"2006-01-02T15:04:05", plus(time.Second + zoneSpread)},
	{"2006-01-02T15:04", plus(time.Minute + zoneSpread)},
	{"2006-01-02 15:04:05.999999999Z07:00", plus(time.Second)},
	{"2006-01-02 15:04:05Z07:00", plus(time.Second)},
	{"2006-01-02 15:04:05 Z0700", plus(time.Second)},
	{"2006-01-02 15:04:05", plus(time.Second + zoneSpread)},
	{"2006-01-02", func(t time.Time) time.Time { return t.AddDate(0, 0, 1).Add(zoneSpread) }},
	{"2006-01", func(t time.Time) time.Time { return t.AddDate(0, 1, 0).Add(zoneSpread) }},
	{"2006", func(t time.Time) time.Time { return t.AddDate(1, 0, 0).Add(zoneSpread) }},
}

// zoneSpread is how much later than read as UTC a time without a zone may
// be (UTC-12 is the westernmost zone; 14 covers UTC+14's day as well).
const zoneSpread = 14 * time.Hour

func plus(d time.Duration) func(time.Time) time.Time {
	return func(t time.Time) time.Time { return t.Add(d) }
}

// ParseLastMod parses a <lastmod> value leniently; a value without a time
// zone is taken as UTC. It returns the zero time for a value it cannot
// read.
func ParseLastMod(s string) time.Time {
	t, _ := parseLastMod(s)
	return t
}

// parseLastMod is ParseLastMod, also returning the latest instant the value
// can mean (Entry.LastModUntil).
func parseLastMod(s string) (from, until time.Time) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return time.Time{}, time.Time{}
	}
	for _, l := range lastModLayouts {
		if t, err := time.Parse(l.layout, s); err == nil {
			return t.UTC(), l.until(t).UTC()
		}
	}
	return time.Time{}, time.Time{}
}
