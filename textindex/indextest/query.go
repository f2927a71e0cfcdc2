package indextest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"
)

func testMatch(t *testing.T, idx textindex.Indexer) {
	both := newDoc("Gopher news", "The quick brown fox jumps over the lazy dog.")
	reversed := newDoc("Dogs", "A lazy dog watched a quick brown fox.")
	one := newDoc("Foxes", "A fox, alone.")
	titleOnly := newDoc("Lazy fox", "Nothing else here.")
	mustIndex(t, idx, both, reversed, one, titleOnly)

	wantIDs(t, idx, match("fox"), both, reversed, one, titleOnly)
	wantIDs(t, idx, match("lazy fox"), both, reversed, titleOnly)
	wantIDs(t, idx, match("fox lazy"), both, reversed, titleOnly)
	wantIDs(t, idx, match("fox dog"), both, reversed)
	wantIDs(t, idx, match("fox unicorn"))
	wantIDs(t, idx, match("gopher"), both) // title is searchable
}

func testPhrase(t *testing.T, idx textindex.Indexer) {
	exact := newDoc("one", "the quick brown fox jumps")
	swapped := newDoc("two", "the brown quick fox jumps")
	apart := newDoc("three", "quick thinking and a brown fox")
	mustIndex(t, idx, exact, swapped, apart)

	wantIDs(t, idx, phrase("quick brown"), exact)
	wantIDs(t, idx, phrase("brown quick"), swapped)
	wantIDs(t, idx, phrase("brown fox"), exact, apart)
	wantIDs(t, idx, phrase("quick brown fox jumps"), exact)
	wantIDs(t, idx, phrase("quick, brown!"), exact) // punctuation separates terms
	wantIDs(t, idx, phrase("fox"), exact, swapped, apart)
	wantIDs(t, idx, phrase("fox quick"))
	// A match query ignores order and distance.
	wantIDs(t, idx, match("brown quick"), exact, swapped, apart)
}

func testCaseInsensitive(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("Title", "Mixed CASE Words")
	mustIndex(t, idx, doc)
	wantIDs(t, idx, match("mixed case"), doc)
	wantIDs(t, idx, match("MIXED words"), doc)
	wantIDs(t, idx, phrase("case WORDS"), doc)
}

func testNoTerms(t *testing.T, idx textindex.Indexer) {
	mustIndex(t, idx, newDoc("punctuation", "some ... text !!! here"))
	for _, expr := range []string{"", "   ", "...", "!!!", "\"", "'", "*", "()", "&|!<->:*", "--", "\t\n"} {
		for _, q := range []textindex.Query{match(expr), phrase(expr)} {
			got, total := search(t, idx, q)
			if len(got) != 0 || total != 0 {
				t.Fatalf("Search(%q, %v) = %d docs (TotalCount %d), want none", expr, q.Type, len(got), total)
			}
		}
	}
}

// testSearchHonoursContext: every backend takes a context for its searches
// (textindex.ContextSearcher), and one that has ended, cancelled or past
// its deadline, stops the search with an error saying so, from
// SearchContext or from the iterator, never results.
func testSearchHonoursContext(t *testing.T, idx textindex.Indexer) {
	if _, ok := idx.(textindex.ContextSearcher); !ok {
		t.Fatalf("%T does not implement textindex.ContextSearcher", idx)
	}
	for i := range 50 {
		mustIndex(t, idx, newDoc(fmt.Sprintf("doc %d", i), "a common word in every document"))
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		ctx  context.Context
		want error
	}{{cancelled, context.Canceled}, {expired, context.DeadlineExceeded}} {
		for _, q := range []textindex.Query{match("common word"), phrase("common word")} {
			it, err := textindex.SearchContext(c.ctx, idx, q)
			if err == nil {
				n := 0
				for it.Next() {
					n++
				}
				err = it.Error()
				_ = it.Close()
				if err == nil {
					t.Fatalf("search under an ended context (%v) returned %d results and no error", c.want, n)
				}
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("search under an ended context: %v, want an error wrapping %v", err, c.want)
			}
		}
	}
	// The same search under a live context answers.
	it, err := textindex.SearchContext(context.Background(), idx, match("common word"))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if it.TotalCount() != 50 {
		t.Fatalf("TotalCount = %d, want 50", it.TotalCount())
	}
}

// testSearchSyntax: QueryTypeSearch reads words (all required), "exact
// phrases", -word and site:host the same in every backend.
func testSearchSyntax(t *testing.T, idx textindex.Indexer) {
	doc := func(url, title, content string) *textindex.Document {
		d := newDoc(title, content)
		d.URL = url
		return d
	}
	fox := doc("https://example.com/fox", "Fox", "the quick brown fox jumps over the lazy dog")
	dog := doc("https://docs.example.com:8443/dog", "Dog", "a lazy dog and a quick brown cat")
	cat := doc("http://example.org/cat", "Cat", "quick brown cat naps; no fox here")
	lookalike := doc("https://notexample.com/x", "Look-alike", "quick brown fox on a look-alike host")
	mustIndex(t, idx, fox, dog, cat, lookalike)
	for expr, want := range map[string][]*textindex.Document{
		`quick brown`:                                {fox, dog, cat, lookalike},
		`"quick brown fox"`:                          {fox, lookalike},
		`"brown quick"`:                              nil,
		`quick -fox`:                                 {dog},
		`quick -"fox cat"`:                           nil,
		`lazy dog -cat`:                              {fox},
		`quick site:example.com`:                     {fox},
		`quick site:EXAMPLE.com.`:                    {fox},
		`quick site:example.com:8443`:                {dog},
		`quick site:docs.example.com:8443`:           {dog},
		`quick site:docs.example.com`:                nil,
		`quick site:example.org site:notexample.com`: {cat, lookalike},
		`"quick brown" -dog site:example.com`:        nil,
		`"quick brown" fox site:example.com`:         {fox},
		`-fox`:                                       nil,
		`site:example.com`:                           nil,
		`quick OR nothing`:                           nil, // "or" and "nothing" are words, required
	} {
		got, total := search(t, idx, textindex.Query{Type: textindex.QueryTypeSearch, Expression: expr})
		if total != uint64(len(got)) {
			t.Fatalf("%q: TotalCount %d, %d results", expr, total, len(got))
		}
		if !sameDocs(ids(got), ids(want)) {
			t.Errorf("search %q = %v, want %v", expr, titles(got), titles(want))
		}
	}
}

// testSearchSitePorts: site:host is the host (and its subdomains) on its
// scheme's default port, site:host:port that port only, as the crawl's
// scope and politeness tell hosts apart; every backend reads a URL's host
// and port as package url does.
func testSearchSitePorts(t *testing.T, idx textindex.Indexer) {
	docs := map[string]*textindex.Document{}
	for name, u := range map[string]string{
		"plain":         "http://example.com/plain",
		"https":         "https://example.com/https",
		"https443":      "https://example.com:443/https443",
		"http80":        "http://example.com:80/http80",
		"query":         "http://example.com?page=query",
		"https80":       "https://example.com:80/https80",
		"port":          "http://example.com:8081/port",
		"sub":           "http://docs.example.com:8081/sub",
		"subplain":      "https://docs.example.com/subplain",
		"userinfo":      "http://user:pw@Example.COM.:08081/userinfo?x=1",
		"local18083":    "http://127.0.0.1:18083/local18083",
		"local8081":     "http://127.0.0.1:8081/local8081",
		"ten":           "http://10.0.0.1/ten",
		"ipv6":          "http://[::1]:8081/ipv6",
		"lookalikePath": "http://evil.example/?u=http://example.com:8081/",
		"upper":         "HTTP://EXAMPLE.COM:8081/upper",
		"emptyPort":     "http://example.com:/emptyPort",
		"fragment":      "http://example.com:8081#fragment",
		"badPort":       "http://example.com:80x/badPort",
	} {
		d := newDoc(name, "a page called "+name)
		d.URL = u
		docs[name] = d
		mustIndex(t, idx, d)
	}
	for expr, want := range map[string][]string{
		`page site:example.com`:                      {"plain", "https", "https443", "http80", "query", "subplain", "emptyPort"},
		`page site:example.com:8081`:                 {"port", "sub", "userinfo", "upper", "fragment"},
		`page site:Example.com.:08081`:               {"port", "sub", "userinfo", "upper", "fragment"},
		`page site:http://example.com:8081/x`:        {"port", "sub", "userinfo", "upper", "fragment"},
		`page site:docs.example.com:8081`:            {"sub"},
		`page site:example.com:443`:                  {"https", "https443", "subplain"},
		`page site:example.com:80`:                   {"plain", "http80", "query", "https80", "emptyPort"},
		`page site:https://example.com:443/`:         {"plain", "https", "https443", "http80", "query", "subplain", "emptyPort"},
		`page site:127.0.0.1:18083`:                  {"local18083"},
		`page site:127.0.0.1:8081`:                   {"local8081"},
		`page site:127.0.0.1`:                        nil,
		`page site:0.0.1:8081`:                       nil, // an address has no subdomains
		`page site:10.0.0.1`:                         {"ten"},
		`page site:[::1]:8081`:                       {"ipv6"},
		`page site:evil.example`:                     {"lookalikePath"},
		`page site:example.com:8081 site:[::1]:8081`: {"port", "sub", "userinfo", "upper", "fragment", "ipv6"},
	} {
		got, total := search(t, idx, textindex.Query{Type: textindex.QueryTypeSearch, Expression: expr})
		if total != uint64(len(got)) {
			t.Fatalf("%q: TotalCount %d, %d results", expr, total, len(got))
		}
		var wantDocs []*textindex.Document
		for _, name := range want {
			wantDocs = append(wantDocs, docs[name])
		}
		if !sameDocs(ids(got), ids(wantDocs)) {
			t.Errorf("search %q = %v, want %v", expr, titles(got), want)
		}
	}
}

// testSearchSyntaxIsBounded: a search query is cut at the same bounds as
// the others, and answered.
func testSearchSyntaxIsBounded(t *testing.T, idx textindex.Indexer) {
	mustIndex(t, idx, newDoc("w", "w0 w1 w2"))
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, `w%d -x%d "p%d q%d" site:h%d.org `, i%3, i, i, i, i)
	}
	q := textindex.Query{Type: textindex.QueryTypeSearch, Expression: b.String()}
	if _, cut := textindex.BoundQuery(q); !cut {
		t.Fatal("BoundQuery did not cut a search query of 200 terms")
	}
	// The cut query keeps w0-w2 and the first exclusions, phrases and
	// sites: no document is on h0.org…, so nothing matches, and it answers.
	if got, total := search(t, idx, q); len(got) != 0 || total != 0 {
		t.Fatalf("bounded search = %d results", total)
	}
}

func sameDocs(a, b []uuid.UUID) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.SortFunc(x, linkgraph.CompareIDs)
	slices.SortFunc(y, linkgraph.CompareIDs)
	return slices.Equal(x, y)
}

func titles(docs []*textindex.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Title)
	}
	return out
}

// testQuerySyntaxIsText checks that what a query language would read as
// operators is taken as plain text: no error, no injected semantics.
func testQuerySyntaxIsText(t *testing.T, idx textindex.Indexer) {
	apple := newDoc("apple", "apple pie")
	pear := newDoc("pear", "pear tart")
	mustIndex(t, idx, apple, pear)
	for _, expr := range []string{
		`apple OR pear`, `apple | pear`, `apple & !pear`, `"apple" OR "pear"`, `apple*`,
		`NEAR(apple pear)`, `title:apple`, `apple'); DROP TABLE documents; --`, `apple <-> pear`,
		`^apple`, `apple NOT pear`, `{apple}`, `apple + pear`, `"unbalanced`, `apple\`,
	} {
		for _, q := range []textindex.Query{match(expr), phrase(expr)} {
			got, total := search(t, idx, q)
			if uint64(len(got)) != total {
				t.Fatalf("Search(%q): %d docs but TotalCount %d", expr, len(got), total)
			}
			for _, d := range got {
				if d.LinkID == pear.LinkID && !strings.Contains(strings.ToLower(expr), "pear") {
					t.Fatalf("Search(%q) returned pear", expr)
				}
			}
		}
	}
	// Terms around operators still have to match like any other term.
	wantIDs(t, idx, match(`"apple"`), apple)
	wantIDs(t, idx, match(`apple*`), apple)
	wantIDs(t, idx, match(`(apple) -- pie!`), apple)
	wantIDs(t, idx, match(`apple OR pear`)) // "or" is an ordinary term here
	wantIDs(t, idx, match(`apple & !pear`)) // needs both apple and pear
	wantIDs(t, idx, match(`apple'); DROP TABLE documents; --`))
	wantIDs(t, idx, match(`pear`), pear) // and the index survived
}

func testPaging(t *testing.T, idx textindex.Indexer) {
	// Enough results that a backend fetching in batches crosses batch
	// boundaries.
	const n = 150
	var all []*textindex.Document
	for i := range n {
		// Equal text, so equal relevance: the order rests on the tie-break.
		d := newDoc("page", "paging test document")
		d.PageRank = float64(i%3) * 0.001
		all = append(all, d)
	}
	mustIndex(t, idx, all...)

	full, total := search(t, idx, match("paging"))
	if total != n || len(full) != n {
		t.Fatalf("got %d docs, TotalCount %d, want %d", len(full), total, n)
	}
	for _, off := range []uint64{0, 1, 10, 63, 64, 65, 100, 149} {
		q := match("paging")
		q.Offset = off
		got, total := search(t, idx, q)
		if total != n {
			t.Fatalf("Offset %d: TotalCount = %d, want %d", off, total, n)
		}
		if !slices.Equal(ids(got), ids(full[off:])) {
			t.Fatalf("Offset %d: got %v, want %v", off, ids(got), ids(full[off:]))
		}
	}
	for _, off := range []uint64{n, n + 1, 1 << 40, 1<<64 - 1} {
		q := match("paging")
		q.Offset = off
		got, total := search(t, idx, q)
		if len(got) != 0 || total != n {
			t.Fatalf("Offset %d: got %d docs, TotalCount %d, want 0 and %d", off, len(got), total, n)
		}
	}
	// Equal scores are ordered by LinkID. (The URLs' terms differ in
	// length, numbers having no stems, so not every equal PageRank is an
	// equal score.)
	for i := 1; i < n; i++ {
		a, b := full[i-1], full[i]
		if a.PageRank == b.PageRank && a.Relevance == b.Relevance && linkgraph.CompareIDs(a.LinkID, b.LinkID) > 0 {
			t.Fatalf("results %d and %d have equal scores but are not in LinkID order", i-1, i)
		}
	}
}

func testPageRankOrder(t *testing.T, idx textindex.Indexer) {
	ranks := []float64{0.1, 0.5, 0.0001, 0.3, 0.05}
	docs := make([]*textindex.Document, len(ranks))
	for i := range ranks {
		docs[i] = newDoc("same", "equally relevant text")
	}
	mustIndex(t, idx, docs...)
	for i, r := range ranks {
		if err := idx.UpdateScore(docs[i].LinkID, r); err != nil {
			t.Fatalf("UpdateScore: %v", err)
		}
	}
	for _, q := range []textindex.Query{match("relevant"), phrase("equally relevant")} {
		got, _ := search(t, idx, q)
		if len(got) != len(ranks) {
			t.Fatalf("got %d docs, want %d", len(got), len(ranks))
		}
		for i := 1; i < len(got); i++ {
			if got[i-1].PageRank < got[i].PageRank {
				t.Fatalf("%v: result %d has PageRank %v, below result %d's %v", q.Type, i-1, got[i-1].PageRank, i, got[i].PageRank)
			}
		}
		if got[0].LinkID != docs[1].LinkID {
			t.Fatalf("top result is not the document with the highest PageRank")
		}
	}
}

func testRelevanceOrder(t *testing.T, idx textindex.Indexer) {
	filler := strings.Repeat("filler words go here ", 5)
	strong := newDoc("otter", "otter otter otter "+filler)
	weak := newDoc("report", "one otter "+filler+filler)
	mustIndex(t, idx, weak, strong)
	got, _ := search(t, idx, match("otter"))
	if len(got) != 2 || got[0].LinkID != strong.LinkID {
		t.Fatalf("the document mentioning the term more often should rank first, got %v", ids(got))
	}
}

// testFieldWeights: a word of the title or of the URL's path counts more
// than the same word in the text (textindex.DefaultWeights), so the page
// titled "Otter" comes before the report that mentions otters twice, and
// the page at /guides/beaver-dams.html before the one that mentions a
// beaver once; with every field weighing the same, mentions decide again.
// Weights that are negative, not finite, or leave the text out are
// refused.
func testFieldWeights(t *testing.T, idx textindex.Indexer) {
	filler := strings.Repeat("words about rivers and the animals living there ", 3)
	titled := newDoc("Otter", "a short note "+filler)
	mentioned := newDoc("Report", "otter seen, then another otter "+filler)
	pathed := newDoc("Guide", "how dams are built "+filler)
	pathed.URL = "https://example.com/guides/beaver-dams.html"
	beaver := newDoc("Notes", "a beaver was seen "+filler)
	mustIndex(t, idx, mentioned, titled, beaver, pathed)

	for _, c := range []struct {
		q    textindex.Query
		want []uuid.UUID
	}{
		{match("otter"), []uuid.UUID{titled.LinkID, mentioned.LinkID}},
		{match("beaver"), []uuid.UUID{pathed.LinkID, beaver.LinkID}},
		{textindex.Query{Expression: "otter", Weights: textindex.Weights{Title: 1, URL: 1, Body: 1}}, []uuid.UUID{mentioned.LinkID, titled.LinkID}},
	} {
		got, total := search(t, idx, c.q)
		if total != 2 || !slices.Equal(ids(got), c.want) {
			t.Errorf("%q with weights %+v: %v (%d in all), want %v", c.q.Expression, c.q.Weights, titles(got), total, c.want)
		}
	}
	for _, w := range []textindex.Weights{{Title: -1, Body: 1}, {Title: 5, URL: 2}, {Body: math.NaN()}, {Title: math.Inf(1), Body: 1}} {
		it, err := idx.Search(textindex.Query{Expression: "otter", Weights: w})
		if err == nil {
			it.Close()
		}
		if !errors.Is(err, textindex.ErrInvalidWeights) {
			t.Errorf("weights %+v: %v, want ErrInvalidWeights", w, err)
		}
	}
}

// testHeadings: a word of a heading (Document.Headings, which the text
// holds too) counts more than the same word in the text alone, so the
// guide with a section "Lynx habitats" comes before the report that
// mentions a lynx twice; with the headings weighing nothing, mentions
// decide. A heading is read as a field of its own: its words are found
// as a phrase, MatchedFields names it, FindByID returns it, and a
// URLsOnly search leaves it out.
func testHeadings(t *testing.T, idx textindex.Indexer) {
	filler := strings.Repeat("words about forests and the animals living there ", 3)
	guide := newDoc("Guide", "Lynx habitats\nthey keep to old "+filler)
	guide.Headings = "Lynx habitats"
	report := newDoc("Report", "a lynx was seen, then another lynx "+filler)
	other := newDoc("Notes", "Habitats\nnothing to see here "+filler)
	other.Headings = "Habitats\nSee also"
	mustIndex(t, idx, report, guide, other)

	for _, c := range []struct {
		q    textindex.Query
		want []uuid.UUID
	}{
		{match("lynx"), []uuid.UUID{guide.LinkID, report.LinkID}},
		{phrase("lynx habitats"), []uuid.UUID{guide.LinkID}},
		{textindex.Query{Expression: "lynx", Weights: textindex.Weights{Title: 10, URL: 5, Body: 1}}, []uuid.UUID{report.LinkID, guide.LinkID}},
	} {
		got, total := search(t, idx, c.q)
		if int(total) != len(c.want) || !slices.Equal(ids(got), c.want) {
			t.Errorf("%q with weights %+v: %v (%d in all), want %v", c.q.Expression, c.q.Weights, titles(got), total, c.want)
		}
	}
	got, _ := search(t, idx, match("lynx"))
	if len(got) > 0 {
		if f := textindex.MatchedFields(match("lynx"), got[0]); !slices.Equal(f, []string{textindex.FieldHeadings, textindex.FieldBody}) {
			t.Errorf("fields matched in %q: %v, want headings and body", got[0].Title, f)
		}
		if got[0].Headings != guide.Headings {
			t.Errorf("search result's headings %q, want %q", got[0].Headings, guide.Headings)
		}
	}
	found, err := idx.FindByID(other.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	sameDoc(t, found, other)
	urls, _ := search(t, idx, textindex.Query{Expression: "habitats", URLsOnly: true})
	for _, d := range urls {
		if d.Headings != "" {
			t.Errorf("URLsOnly result %s has headings %q", d.URL, d.Headings)
		}
	}
}

func testNonASCII(t *testing.T, idx textindex.Indexer) {
	fr := newDoc("Café crème", "Une brûlée à la crème, s'il vous plaît.")
	de := newDoc("Straße", "Größe und Übermaß.")
	ru := newDoc("Москва", "Красная площадь в Москве.")
	ja := newDoc("東京", "東京 タワー は 日本 の 電波塔 です")
	zh := newDoc("北京", "北京 是 中国 的 首都")
	mustIndex(t, idx, fr, de, ru, ja, zh)

	wantIDs(t, idx, match("café"), fr)
	wantIDs(t, idx, match("CAFÉ CRÈME"), fr)
	wantIDs(t, idx, match("brûlée"), fr)
	wantIDs(t, idx, match("cafe")) // accents are significant
	wantIDs(t, idx, match("größe"), de)
	wantIDs(t, idx, match("москва"), ru)
	wantIDs(t, idx, match("ПЛОЩАДЬ"), ru)
	wantIDs(t, idx, match("東京"), ja)
	wantIDs(t, idx, phrase("東京 タワー"), ja)
	wantIDs(t, idx, phrase("タワー 東京"))
	wantIDs(t, idx, match("首都 北京"), zh)
	got, err := idx.FindByID(ja.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	sameDoc(t, got, ja)
}

// testWordsSplitAlike: every backend splits text at anything that is not
// a letter, digit or mark, as package terms does, whatever a backend's own
// parser would make of a file name, a hyphenated word or an address.
func testWordsSplitAlike(t *testing.T, idx textindex.Indexer) {
	conf := newDoc("Client authentication", "Edit pg_hba.conf and reload.")
	hyphen := newDoc("Styles", "A well-known read-only mode.")
	addr := newDoc("Contact", "Write to admin@example.org or see /usr/share/doc.")
	mustIndex(t, idx, conf, hyphen, addr)
	wantIDs(t, idx, match("hba"), conf)
	wantIDs(t, idx, match("conf pg"), conf)
	wantIDs(t, idx, phrase("pg hba conf"), conf)
	wantIDs(t, idx, match("pg_hba.conf"), conf)
	wantIDs(t, idx, match("known"), hyphen)
	wantIDs(t, idx, phrase("read only"), hyphen)
	wantIDs(t, idx, match("example"), addr)
	wantIDs(t, idx, phrase("usr share doc"), addr)
}

func testEmptyDocument(t *testing.T, idx textindex.Indexer) {
	empty := newDoc("", "")
	empty.URL = ""
	mustIndex(t, idx, empty)
	got, err := idx.FindByID(empty.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	sameDoc(t, got, empty)
	other := newDoc("something", "something")
	mustIndex(t, idx, other)
	wantIDs(t, idx, match("something"), other)
}

func testHugeDocument(t *testing.T, idx textindex.Indexer) {
	var b strings.Builder
	b.WriteString("zeppelin ")
	for i := 0; b.Len() < 4<<20; i++ {
		fmt.Fprintf(&b, "word%d filler text ", i%5000)
	}
	huge := newDoc("Huge page", b.String())
	small := newDoc("Small page", "filler")
	mustIndex(t, idx, huge, small)
	got, err := idx.FindByID(huge.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	sameDoc(t, got, huge)
	wantIDs(t, idx, match("zeppelin"), huge)
	wantIDs(t, idx, phrase("zeppelin word0"), huge)
	wantIDs(t, idx, match("filler"), huge, small)
}

func testConcurrentIndexing(t *testing.T, idx textindex.Indexer) {
	const workers, perWorker = 8, 20
	docs := make([][]*textindex.Document, workers)
	for w := range workers {
		for i := range perWorker {
			docs[w] = append(docs[w], newDoc(fmt.Sprintf("worker %d", w), fmt.Sprintf("concurrent doc %d of worker %d", i, w)))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i, d := range docs[w] {
				if err := idx.Index(d); err != nil {
					errs <- err
					return
				}
				// Re-index and rescore as a crawler and a ranker would.
				if i%4 == 0 {
					if err := idx.Index(d); err != nil {
						errs <- err
						return
					}
					if err := idx.UpdateScore(d.LinkID, float64(i)/100); err != nil {
						errs <- err
						return
					}
				}
				if i%5 == 0 {
					it, err := idx.Search(match("concurrent"))
					if err != nil {
						errs <- err
						return
					}
					for it.Next() {
					}
					err = it.Error()
					it.Close()
					if err != nil {
						errs <- err // one error a worker at most: errs holds one each
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent use: %v", err)
	}
	got, total := search(t, idx, match("concurrent"))
	if total != workers*perWorker || len(got) != workers*perWorker {
		t.Fatalf("got %d docs (TotalCount %d), want %d", len(got), total, workers*perWorker)
	}
	for w := range workers {
		for _, d := range docs[w] {
			if _, err := idx.FindByID(d.LinkID); err != nil {
				t.Fatalf("FindByID after concurrent indexing: %v", err)
			}
		}
	}
}

// testConcurrentReplace indexes one LinkID from many goroutines at once,
// which a batching backend may put in one transaction: exactly one version
// must survive, whole, and be the only one searchable.
func testConcurrentReplace(t *testing.T, idx textindex.Indexer) {
	const writers = 16
	base := newDoc("shared", "")
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			d := *base
			d.Content = fmt.Sprintf("contended version%d", w)
			errs <- idx.Index(&d)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Index: %v", err)
		}
	}
	got, err := idx.FindByID(base.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	wantIDs(t, idx, match("contended"), base)
	wantIDs(t, idx, match(strings.Fields(got.Content)[1]), base)
	for w := range writers {
		if v := fmt.Sprintf("version%d", w); !strings.HasSuffix(got.Content, " "+v) {
			wantIDs(t, idx, match(v))
		}
	}
}

// testUnusualBytes indexes text with NUL bytes and invalid UTF-8, which
// crawled pages do contain: indexing must succeed, and the words around the
// odd bytes stay searchable.
func testUnusualBytes(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("odd\x00title", "before\x00middle\xff\xfeafter tail")
	mustIndex(t, idx, doc)
	if _, err := idx.FindByID(doc.LinkID); err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	for _, w := range []string{"odd", "title", "before", "middle", "after", "tail"} {
		wantIDs(t, idx, match(w), doc)
	}
}

// testLongQueryIsBounded: a 50 KB query, and one with more than 32
// distinct terms, are answered as their bounded form is (textindex.
// BoundQuery), in every backend.
func testLongQueryIsBounded(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("Bounded", "gopher w0 w1 w2")
	mustIndex(t, idx, doc)
	long := textindex.Query{Type: textindex.QueryTypeMatch, Expression: strings.Repeat("gopher ", 8000)}
	if b, cut := textindex.BoundQuery(long); !cut || b.Expression != "gopher" {
		t.Fatalf("BoundQuery of 50 KB of one word: %q cut=%v", b.Expression, cut)
	}
	wantIDs(t, idx, long, doc)
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf("w%d", i))
	}
	// The first 32 terms include w3..w31, which the document lacks.
	q := textindex.Query{Type: textindex.QueryTypeMatch, Expression: "gopher w0 w1 w2 " + strings.Join(many[3:], " ")}
	b, cut := textindex.BoundQuery(q)
	if !cut || len(strings.Fields(b.Expression)) != 32 {
		t.Fatalf("BoundQuery of 41 terms: %q cut=%v", b.Expression, cut)
	}
	got, n := search(t, idx, q)
	want, m := search(t, idx, b)
	if n != m || len(ids(got)) != len(ids(want)) {
		t.Fatalf("a query and its bounded form differ: %d results vs %d", n, m)
	}
}

// testScoresExplained: every search result carries its relevance, and
// results come in order of relevance + the prior of its PageRank
// (textindex.Weights.Prior), in every backend.
func testScoresExplained(t *testing.T, idx textindex.Indexer) {
	a := newDoc("Animals", "gopher gopher gopher burrow")
	b := newDoc("Burrows", "a gopher burrow among many other words about digging")
	c := newDoc("Elsewhere", "gopher")
	mustIndex(t, idx, a, b, c)
	if err := idx.UpdateScore(c.LinkID, 5e6); err != nil {
		t.Fatal(err)
	}
	docs, n := search(t, idx, match("gopher"))
	if n != 3 || len(docs) != 3 {
		t.Fatalf("%d results (total %d), want 3", len(docs), n)
	}
	prev := math.Inf(1)
	for _, d := range docs {
		if d.Relevance <= 0 {
			t.Errorf("%s: relevance %v, want > 0 for a match", d.Title, d.Relevance)
		}
		score := d.Relevance + textindex.DefaultWeights.Prior(d.PageRank)
		if score > prev+1e-9 {
			t.Errorf("%s: score %v after %v: not in order of relevance + prior", d.Title, score, prev)
		}
		prev = score
	}
	if docs[0].LinkID != c.LinkID {
		t.Errorf("first result %q, want the page with PageRank 5e6", docs[0].Title)
	}
}

// testPriorOrdersCloseScores: of two pages whose text matches about as
// well, the more linked comes first, though its text matches a little
// less; without the prior (Weights.PageRank 0) the text decides. A page
// whose text matches clearly better stays first whatever the other's
// PageRank.
func testPriorOrdersCloseScores(t *testing.T, idx textindex.Indexer) {
	filler := strings.Repeat("notes on rivers and their banks ", 4)
	better := newDoc("Report", "otter otter otter "+filler)
	linked := newDoc("Report", "otter otter "+filler)
	clear := newDoc("Otter", "otter otter otter "+filler)
	mustIndex(t, idx, better, linked)
	// Pages without the word, so that it is a rare one (a word in more
	// than half the pages weighs next to nothing in BM25).
	for range 9 {
		mustIndex(t, idx, newDoc("Elsewhere", filler))
	}
	if err := idx.UpdateScore(linked.LinkID, 30); err != nil {
		t.Fatal(err)
	}
	if err := idx.UpdateScore(better.LinkID, 1); err != nil {
		t.Fatal(err)
	}
	weights := textindex.Weights{Title: 10, URL: 5, Body: 1, PageRank: 1}
	got, _ := search(t, idx, textindex.Query{Expression: "otter", Weights: weights})
	if !slices.Equal(ids(got), []uuid.UUID{linked.LinkID, better.LinkID}) || got[0].Relevance >= got[1].Relevance {
		t.Errorf("with the prior: %v, want the more linked page first, its relevance below the other's", explained(got))
	}
	weights.PageRank = 0
	got, _ = search(t, idx, textindex.Query{Expression: "otter", Weights: weights})
	if !slices.Equal(ids(got), []uuid.UUID{better.LinkID, linked.LinkID}) {
		t.Errorf("without the prior: %v, want the text to decide", explained(got))
	}
	mustIndex(t, idx, clear)
	weights.PageRank = textindex.DefaultWeights.PageRank
	got, _ = search(t, idx, textindex.Query{Expression: "otter", Weights: weights})
	if len(got) != 3 || got[0].LinkID != clear.LinkID {
		t.Errorf("with the default prior: %v, want the page titled Otter first", explained(got))
	}
}

// explained lists results with their scores' parts, for messages.
func explained(docs []*textindex.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, fmt.Sprintf("%s (relevance %.4f, PageRank %g)", d.Title, d.Relevance, d.PageRank))
	}
	return out
}

// testSnippetsMarkMatches: a snippet made from a result marks the words
// the backend matched it for, whatever the backend's own tokenizer did
// with case, accents and punctuation.
func testSnippetsMarkMatches(t *testing.T, idx textindex.Indexer) {
	long := strings.Repeat("Filler text that says nothing much. ", 40)
	d := newDoc("Burrows", long+"The GOPHER's burrow, a gopher-made tunnel, runs under the café. "+long)
	d.URL = "https://example.com/burrows"
	mustIndex(t, idx, d, newDoc("Other", "cafe without the accent, and a rodent"))
	for expr, want := range map[string][]string{
		`gopher`:                          {"GOPHER", "gopher"},
		`café burrow`:                     {"burrow", "café"},
		`"gopher made tunnel"`:            {"gopher", "made", "tunnel"},
		`gopher -rodent site:example.com`: {"GOPHER", "gopher"},
	} {
		q := textindex.Query{Type: textindex.QueryTypeSearch, Expression: expr}
		got, _ := search(t, idx, q)
		if len(got) != 1 || got[0].LinkID != d.LinkID {
			t.Fatalf("search %q = %v, want the Burrows page", expr, titles(got))
		}
		s := textindex.MakeSnippet(got[0].Content, q, 160)
		var marked []string
		for _, p := range s {
			if p.Match {
				marked = append(marked, p.Text)
			}
		}
		for _, w := range want {
			if !slices.Contains(marked, w) {
				t.Errorf("search %q: snippet %q marks %q, want %q among them", expr, s.String(), marked, w)
			}
		}
		if !strings.HasPrefix(s.String(), textindex.Ellipsis) || !strings.HasSuffix(s.String(), textindex.Ellipsis) {
			t.Errorf("search %q: snippet %q is not cut from the middle of the text", expr, s.String())
		}
	}
}

// testCount: Count tells the documents indexed, not the scores recorded
// for documents not indexed yet; replacing a document does not add one.
func testCount(t *testing.T, idx textindex.Indexer) {
	ctx := context.Background()
	count := func() uint64 {
		t.Helper()
		n, ok, err := textindex.Count(ctx, idx)
		if err != nil || !ok {
			t.Fatalf("Count = %d, %v, %v", n, ok, err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("empty index counts %d", n)
	}
	a, b := newDoc("A", "one"), newDoc("B", "two")
	mustIndex(t, idx, a, b)
	if err := idx.UpdateScore(uuid.New(), 0.5); err != nil {
		t.Fatal(err)
	}
	a.Content = "one again"
	mustIndex(t, idx, a)
	if n := count(); n != 2 {
		t.Errorf("Count = %d, want 2", n)
	}
}

// testURLsOnly: a search with URLsOnly returns the same results in the
// same order, with the same totals, relevance and URLs, and no title, text
// or AlsoAt.
func testURLsOnly(t *testing.T, idx textindex.Indexer) {
	var docs []*textindex.Document
	for i := range 30 {
		d := newDoc(fmt.Sprintf("Facet %d", i), strings.Repeat("facet word ", 1+i%7)+"and other words")
		d.PageRank = float64(i%4) * 0.5
		docs = append(docs, d)
	}
	dup := *docs[0]
	dup.LinkID, dup.URL = uuid.New(), docs[0].URL+"?copy"
	docs[0].ContentHash = textindex.ContentHash(docs[0].Title, docs[0].Content)
	dup.ContentHash = docs[0].ContentHash
	mustIndex(t, idx, append(docs, &dup)...)
	for _, off := range []uint64{0, 7} {
		q := match("facet")
		q.Offset = off
		full, total := search(t, idx, q)
		q.URLsOnly = true
		urls, urlsTotal := search(t, idx, q)
		if urlsTotal != total || len(urls) != len(full) {
			t.Fatalf("offset %d: %d results (%d in all) with URLsOnly, %d (%d) without", off, len(urls), urlsTotal, len(full), total)
		}
		for n := range full {
			f, u := full[n], urls[n]
			if u.LinkID != f.LinkID || u.URL != f.URL || u.Relevance != f.Relevance || u.PageRank != f.PageRank {
				t.Fatalf("offset %d, result %d: %v %s %v %v with URLsOnly, %v %s %v %v without", off, n,
					u.LinkID, u.URL, u.Relevance, u.PageRank, f.LinkID, f.URL, f.Relevance, f.PageRank)
			}
			if u.Title != "" || u.Content != "" || u.AlsoAt != nil {
				t.Fatalf("offset %d, result %d: URLsOnly returned title %q, text %q, AlsoAt %v", off, n, u.Title, u.Content, u.AlsoAt)
			}
		}
	}
}
