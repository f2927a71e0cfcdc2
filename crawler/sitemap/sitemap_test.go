package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"
)

type got struct {
	kind    Kind
	entries []Entry
}

func parse(t *testing.T, r io.Reader, opts Options) (got, Result, error) {
	t.Helper()
	var g got
	res, err := Parse(r, opts, func(k Kind, e Entry) error {
		g.kind = k
		g.entries = append(g.entries, e)
		return nil
	})
	return g, res, err
}

func gz(t testing.TB, s []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(s); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc> https://example.com/dir/a </loc><lastmod>2024-05-06T07:08:09+02:00</lastmod><priority>0.5</priority></url>
  <url><loc>https://example.com/dir/b?x=1&amp;y=2</loc></url>
  <url><loc>https://example.com/other</loc></url>
  <url><loc>ftp://example.com/dir/c</loc></url>
  <url><loc>https://elsewhere.com/dir/d</loc></url>
  <url><loc>/dir/relative</loc></url>
  <url><loc>https://example.com/dir/../up</loc></url>
  <url><loc>http://EXAMPLE.com/dir/e</loc><lastmod>not a date</lastmod></url>
</urlset>`

func TestParseURLSet(t *testing.T) {
	loc, _ := url.Parse("https://example.com/dir/sitemap.xml")
	for _, compressed := range []bool{false, true} {
		in := []byte(urlset)
		if compressed {
			in = gz(t, in)
		}
		g, res, err := parse(t, bytes.NewReader(in), Options{Location: loc})
		if err != nil {
			t.Fatal(err)
		}
		want := []Entry{
			{Loc: "https://example.com/dir/a", LastMod: time.Date(2024, 5, 6, 5, 8, 9, 0, time.UTC), LastModUntil: time.Date(2024, 5, 6, 5, 8, 10, 0, time.UTC)},
			{Loc: "https://example.com/dir/b?x=1&y=2"},
			{Loc: "http://EXAMPLE.com/dir/e"},
		}
		if fmt.Sprint(g.entries) != fmt.Sprint(want) || g.kind != URLSet {
			t.Errorf("gzip %v: got %v %v, want %v", compressed, g.kind, g.entries, want)
		}
		if res.Kind != URLSet || res.URLs != 3 || res.Skipped != 5 {
			t.Errorf("gzip %v: result %+v", compressed, res)
		}
	}
	// Named in robots.txt: the whole host.
	g, _, err := parse(t, strings.NewReader(urlset), Options{Location: loc, AnyPath: true})
	if err != nil || len(g.entries) != 5 {
		t.Errorf("AnyPath: %v %v", g.entries, err)
	}
	// No location: every absolute http(s) URL.
	g, _, err = parse(t, strings.NewReader(urlset), Options{})
	if err != nil || len(g.entries) != 6 {
		t.Errorf("no Location: %v %v", g.entries, err)
	}
}

func TestParseIndexDoubleGzip(t *testing.T) {
	in := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://h/s1.xml.gz</loc><lastmod>2020-01-02</lastmod></sitemap>
<sitemap><loc>http://h/s2.xml</loc></sitemap></sitemapindex>`
	g, res, err := parse(t, bytes.NewReader(gz(t, gz(t, []byte(in)))), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != Index || g.kind != Index || len(g.entries) != 2 || !g.entries[0].LastMod.Equal(time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("got %+v %v", res, g.entries)
	}
}

// A file that declares another encoding than UTF-8 is decoded as declared.
func TestParseLatin1(t *testing.T) {
	in := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>http://h/caf\xe9</loc></url></urlset>"
	g, _, err := parse(t, strings.NewReader(in), Options{})
	if err != nil || len(g.entries) != 1 || g.entries[0].Loc != "http://h/café" {
		t.Errorf("got %v, %v", g.entries, err)
	}
}

func TestParseErrors(t *testing.T) {
	many := func(n int) string {
		var b strings.Builder
		b.WriteString("<urlset>")
		for i := range n {
			fmt.Fprintf(&b, "<url><loc>http://h/%d</loc></url>", i)
		}
		b.WriteString("</urlset>")
		return b.String()
	}
	for _, c := range []struct {
		name, in string
		opts     Options
		want     error
		entries  int
	}{
		{"html", "<!doctype html><html><body>hi</body></html>", Options{}, ErrNotSitemap, 0},
		{"broken", "<urlset><url></urlset>", Options{}, ErrMalformed, 0},
		{"xhtml", "<html><body>hi</body></html>", Options{}, ErrNotSitemap, 0},
		{"empty", "", Options{}, ErrNotSitemap, 0},
		{"cut", "<urlset><url><loc>http://h/a</loc></url><url><loc>http://h/b", Options{}, ErrMalformed, 1},
		{"unclosed", "<urlset><url><loc>http://h/a</loc></url>", Options{}, ErrMalformed, 1},
		{"bad gzip", "\x1f\x8bnot gzip at all", Options{}, ErrMalformed, 0},
		{"too many", many(11), Options{MaxURLs: 10}, ErrTooLarge, 10},
		{"too long", many(100), Options{MaxBytes: 200}, ErrTooLarge, -1},
		{"unknown encoding", `<?xml version="1.0" encoding="x-no-such"?><urlset></urlset>`, Options{}, nil, 0},
	} {
		g, _, err := parse(t, strings.NewReader(c.in), c.opts)
		if c.want == nil {
			if err == nil {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
		if c.entries >= 0 && len(g.entries) != c.entries {
			t.Errorf("%s: %d entries before the error, want %d", c.name, len(g.entries), c.entries)
		}
	}
}

// A gzip bomb stops at MaxBytes of output, however much it would expand
// to (here 4 MiB of blanks against a 64 KiB limit).
func TestParseGzipBomb(t *testing.T) {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte("<urlset>"))
	blanks := bytes.Repeat([]byte(" "), 1<<20)
	for range 4 {
		_, _ = w.Write(blanks)
	}
	_ = w.Close()
	_, _, err := parse(t, &b, Options{MaxBytes: 64 << 10})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error %v, want ErrTooLarge", err)
	}
}

// A text node longer than any sitemap's stops the parse long before
// MaxBytes: the decoder would hold it whole.
func TestParseLongTextNode(t *testing.T) {
	in := io.MultiReader(strings.NewReader("<urlset><url><loc>http://h/"), strings.NewReader(strings.Repeat("a", 2<<20)))
	_, _, err := parse(t, in, Options{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "text or tag") {
		t.Fatalf("error %v, want ErrTooLarge for the text", err)
	}
	// Many short nodes of the same size in all are fine.
	var b strings.Builder
	b.WriteString("<urlset>")
	for i := range 40_000 {
		fmt.Fprintf(&b, "<url><loc>http://h/%d</loc></url>\n", i)
	}
	b.WriteString("</urlset>")
	if _, res, err := parse(t, strings.NewReader(b.String()), Options{}); err != nil || res.URLs != 40_000 {
		t.Fatalf("%d URLs, %v", res.URLs, err)
	}
}

func TestCallbackErrorStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	_, err := Parse(strings.NewReader(urlset), Options{}, func(Kind, Entry) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("err %v after %d entries", err, n)
	}
}

func TestParseLastMod(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	for in, want := range map[string]time.Time{
		"2024":                         utc(2024, 1, 1, 0, 0, 0, 0),
		"2024-03":                      utc(2024, 3, 1, 0, 0, 0, 0),
		"2024-03-04":                   utc(2024, 3, 4, 0, 0, 0, 0),
		"2024-03-04T05:06Z":            utc(2024, 3, 4, 5, 6, 0, 0),
		"2024-03-04T05:06+01:00":       utc(2024, 3, 4, 4, 6, 0, 0),
		"2024-03-04T05:06:07Z":         utc(2024, 3, 4, 5, 6, 7, 0),
		"2024-03-04T05:06:07.5-01:00":  utc(2024, 3, 4, 6, 6, 7, 5e8),
		"2024-03-04T05:06:07+0100":     utc(2024, 3, 4, 4, 6, 7, 0),
		"2024-03-04T05:06:07":          utc(2024, 3, 4, 5, 6, 7, 0),
		"2024-03-04 05:06:07":          utc(2024, 3, 4, 5, 6, 7, 0),
		" 2024-03-04T05:06:07.123Z \n": utc(2024, 3, 4, 5, 6, 7, 123e6),
		"yesterday":                    {},
		"2024-13-01":                   {},
		"":                             {},
		strings.Repeat("2024", 100):    {},
	} {
		if got := ParseLastMod(in); !got.Equal(want) {
			t.Errorf("ParseLastMod(%q) = %v, want %v", in, got, want)
		}
	}
}

// LastModUntil is the latest instant a value can mean: a page fetched at
// noon on a day listed by its date alone may have changed after.
func TestLastModUntil(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s int) time.Time {
		return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
	}
	for in, want := range map[string]time.Time{
		"2024":                      utc(2025, 1, 1, 14, 0, 0),
		"2024-03":                   utc(2024, 4, 1, 14, 0, 0),
		"2024-03-04":                utc(2024, 3, 5, 14, 0, 0),
		"2024-03-04T05:06Z":         utc(2024, 3, 4, 5, 7, 0),
		"2024-03-04T05:06:07+01:00": utc(2024, 3, 4, 4, 6, 8),
		"2024-03-04T05:06:07":       utc(2024, 3, 4, 19, 6, 8),
		"nonsense":                  {},
	} {
		if _, got := parseLastMod(in); !got.Equal(want) {
			t.Errorf("parseLastMod(%q) until %v, want %v", in, got, want)
		}
	}
}
