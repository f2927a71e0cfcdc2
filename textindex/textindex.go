// Package textindex defines the full-text index that the crawler writes
// every page's title and text to and that the command-line tool searches.
//
// The package holds only the types, the Indexer interface and the errors;
// backends live in sub-packages (memory, an embedded persistent store,
// postgres) and register themselves with Register so that Open can select one
// from a URL-like string, the way database/sql selects a driver:
//
//	import _ "github.com/linksrus/linksrus/textindex/sqlite"
//	idx, err := textindex.Open(ctx, "sqlite:///var/lib/linksrus/index.db")
//
// The URL forms are
//
//	memory://                                  textindex/memory, for tests and small jobs
//	sqlite:///absolute/path/index.db           textindex/sqlite, the embedded default
//	sqlite:relative/path/index.db
//	postgres://user:pass@host:5432/db?...      textindex/postgres (also postgresql://)
//
// A program that knows its backend may call the backend's own constructor,
// which has the same shape in every backend that stores anything:
//
//	func Open(ctx context.Context, where string, opts Options) (*Index, error)
//
//	sqlite.Open(ctx, "/var/lib/linksrus/index.db", sqlite.Options{ReadOnly: true})
//	postgres.Open(ctx, "postgres://crawler@db/linksrus", postgres.Options{})
//
// where is the file's path or the database's connection string. ctx bounds
// the opening only (connecting, checking the file, migrating the schema),
// never the life of the Index; a ctx already done opens and creates
// nothing. The zero Options is the default, and the URL form sets the same
// options from the URL's query (sqlite's ?mode=ro), so both ways open the
// same index. The one exception is memory.New(), which takes nothing and
// cannot fail: there is nothing to locate, wait for or set, and a context
// that would be ignored and an error that is always nil would only
// mislead.
//
// Query describes how expressions are read (plain text for match and
// phrase queries, a small search-box syntax for QueryTypeSearch, never a
// backend's own query language) and the order of results; MakeSnippet
// cuts the excerpt a result page shows. The conformance suite in
// textindex/indextest pins down the behaviour every backend shares.
//
// # Duplicates
//
// Pages with the same text under different URLs (mirrors, URL variants,
// query parameters that change nothing) are one result, not several. The
// index keeps a row for every LinkID, as before, so that each URL's
// document can be replaced or found on its own; documents with equal
// non-empty ContentHash form a group, of which exactly one, the canonical,
// is searchable (and counted by Counter), while the others are its aliases,
// listed in its AlsoAt. A redirect is the same kind of alias (Redirect), so
// both come out of one mechanism.
//
// The canonical is the first document in canonical order (CompareCanonical):
// documents that are not redirects first, then the shortest URL (in
// bytes), then the URL in byte order. The choice depends only on the group's
// members, not on the order they were indexed in, so a crawl and a re-crawl
// of the same pages pick the same canonical. A document whose ContentHash
// changes leaves its old group (whose next document in that order becomes
// canonical, if it was) and joins the new one.
package textindex

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

var (
	// ErrNotFound is returned when a document does not exist.
	ErrNotFound = errors.New("textindex: not found")

	// ErrMissingLinkID is returned when a document without a LinkID is
	// indexed.
	ErrMissingLinkID = errors.New("textindex: document does not provide a valid linkID")

	// ErrClosed is returned when an index is used after Close.
	ErrClosed = errors.New("textindex: index is closed")

	// ErrUnknownQueryType is returned by Search for a Query.Type that is
	// neither QueryTypeMatch nor QueryTypePhrase.
	ErrUnknownQueryType = errors.New("textindex: unknown query type")

	// ErrCorrupt is returned (wrapped) by a backend whose stored data is
	// damaged: a file overwritten or truncated behind its back. Nothing
	// was written; the store must be moved away (or restored) before it
	// is used again.
	ErrCorrupt = errors.New("textindex: store is corrupt")

	// ErrInvalidScore is returned for a PageRank that is NaN or infinite,
	// which would make the result order undefined.
	ErrInvalidScore = errors.New("textindex: score must be a finite number")
)

// Document is a page as stored in the index.
type Document struct {
	// LinkID is the ID of the page's link in the link graph; it
	// identifies the document.
	LinkID uuid.UUID
	// URL is the page's address.
	URL string
	// Title is the page's title.
	Title string
	// Content is the page's visible text.
	Content string
	// Headings is the text of the page's headings (h1 to h6 outside its
	// navigation and other chrome), one per line in page order: a field
	// of its own (see Weights.Headings), since a heading names what its
	// section is about. Headings are part of Content too, where they
	// stand, so that snippets and ContentHash read the page as before.
	Headings string
	// Language is the language of the page's text as a BCP 47 tag ("en",
	// "fr-CA"), as the page declares it (<html lang>, Content-Language),
	// or "" when it does not say. A document's words are found by their
	// other forms too (stemming) in a language a stemmer exists for:
	// English (the language of a document that does not say), French,
	// Spanish, Hungarian, Norwegian, Russian and Swedish; in any other
	// language only as they are written.
	Language string
	// Links are the page's links to other pages with their words (a
	// link's text, an image's alt text), which become the anchor text of
	// the pages they point at: see Indexer.UpdateAnchors. FindByID
	// returns them as stored: sorted by URL, the words of a repeated URL
	// joined ("; "), each link's words cut at 256 bytes, without the links
	// that have no words (or URLs or words that are not UTF-8); search
	// results do not carry them.
	Links []Link
	// Anchors is set on documents read back from the index: the anchor
	// text of the page, the distinct words of other pages' links to it as
	// of the last UpdateAnchors, the most used first.
	Anchors []string
	// IndexedAt is when the document was last indexed. Every backend
	// stores it in UTC with microsecond precision (PostgreSQL's), truncated
	// towards the past (see Timestamp); no query bounds it by time.
	IndexedAt time.Time
	// PageRank is the page's score as computed by a ranking job, relative
	// to the average page's (1: as linked as the average page; see
	// pagerank.Result.Write). It weighs in a search as its prior
	// (Weights.Prior).
	PageRank float64
	// Relevance is set on search results only: the backend's text
	// relevance of the document for the query (BM25F for memory and
	// sqlite, ts_rank for postgres; see Weights). Results are ordered by
	// Relevance + the prior of PageRank (see Query and Weights.Prior).
	Relevance float64

	// ContentHash, when not empty, says which documents hold the same
	// text (see ContentHash, and the package documentation's
	// Duplicates): of the documents with one ContentHash only the
	// canonical one is searchable, and it lists the others' URLs in
	// AlsoAt. Empty opts a document out.
	ContentHash string
	// Redirect marks the document of a URL that redirected to another
	// document of the same ContentHash: the URL is an alias of that
	// document, and never its group's canonical while the group holds a
	// document that is not a redirect.
	Redirect bool

	// AlsoAt is set on documents read back from the index: for a
	// canonical document, the URLs of the other documents of its group
	// (duplicates and redirects), in canonical order, at most MaxAlsoAt.
	AlsoAt []string
	// DuplicateOf is set on a document FindByID returns when it is not its
	// group's canonical: the canonical's LinkID. Search never returns
	// such a document.
	DuplicateOf uuid.UUID
}

// Link is a link of a document to another page.
type Link struct {
	// URL is the page linked to, as the link graph stores it.
	URL string
	// Text is what the link says: its words, or an image's alt text.
	Text string
}

// MaxAlsoAt bounds Document.AlsoAt: a group of thousands of identical
// pages (a soft 404, say) lists only its first MaxAlsoAt aliases.
const MaxAlsoAt = 50

// ContentHash returns the Document.ContentHash of a page with the given
// title and text: the first 128 bits of their SHA-256, in hex. Text is
// compared exactly (the crawler's extraction already normalises white
// space). A page with neither title nor text gets "": it has no term to be
// found by, and grouping every empty page together would only make one
// huge group.
func ContentHash(title, content string) string {
	if title == "" && content == "" {
		return ""
	}
	h := sha256.New()
	// The length prefix keeps ("ab", "c") and ("a", "bc") apart.
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(title)))])
	io.WriteString(h, title)
	io.WriteString(h, content)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// CompareCanonical orders two documents of one group as the index picks
// their canonical (see Duplicates): -1 when a comes first. Ties of URL
// (two LinkIDs with one URL, which a crawl never makes) are broken by
// LinkID here; the sqlite backend breaks them by insertion order.
func CompareCanonical(a, b *Document) int {
	return compareCanonical(a.Redirect, a.URL, a.LinkID, b.Redirect, b.URL, b.LinkID)
}

func compareCanonical(ar bool, au string, aid uuid.UUID, br bool, bu string, bid uuid.UUID) int {
	switch {
	case ar != br:
		if br {
			return -1
		}
		return 1
	case len(au) != len(bu):
		return cmp.Compare(len(au), len(bu))
	case au != bu:
		return strings.Compare(au, bu)
	}
	return linkgraph.CompareIDs(aid, bid)
}

// Timestamp returns t as every index backend stores it: UTC, truncated to
// the microsecond, without a monotonic clock reading.
func Timestamp(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }
