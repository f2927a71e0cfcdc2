// Package warc archives HTTP exchanges in WARC 1.1 files (ISO 28500), the
// format of wget, Heritrix and pywb, and reads such files back. It knows
// nothing of the crawler: a crawl is archived through
// crawler.WARCRecorder, and imported through crawler.WARCPages, which
// turn the crawler's exchanges into this package's and back.
//
// A Writer writes each Exchange as a response record, with a request
// record beside it that refers to it (WARC-Concurrent-To) when the
// Exchange has its request. Each file starts with a warcinfo record;
// every record is a gzip member of its own, so a record can be read from
// its offset alone; a file is closed, and the next one begun, once it
// reaches Options.MaxFileSize (1 GB by default), so a file exceeds it by
// one exchange at most.
//
// Beside each file NAME.warc.gz the Writer writes NAME.warc.gz.cdxj, its
// index in the CDXJ form pywb reads: one line per response record,
// "SURT timestamp {json}" with the url, mime, status, digest, length (of
// the gzip member), offset and filename, sorted. The SURT is the key pywb
// looks the URL up by, as warcio and cdxj-indexer write it (see SURT).
// The index is written when its file is closed.
//
// What is kept, and what is not:
//   - The body is kept as the Exchange has it: as the server sent it,
//     Content-Encoding and all, without its Transfer-Encoding (chunks
//     joined), as WARC wants.
//   - The HTTP headers are written from the header maps: sorted by name,
//     in the case of the maps' keys (net/http's canonical case, for a
//     crawl), with Transfer-Encoding removed, in an HTTP/1.1 message
//     whatever the protocol, HTTP/2 too (HTTP/1.0 stays HTTP/1.0). The
//     request's Host comes first, made from its URL; its Authorization,
//     Proxy-Authorization and Cookie headers are left out.
//   - Response.Truncated is written as the WARC-Truncated field: a body
//     cut at a size limit is written as far as it was read, with
//     "WARC-Truncated: length"; a response whose body was not read, with
//     "WARC-Truncated: unspecified" (the crawler's choices: see
//     crawler.WARCRecorder). No record claims a body it does not have.
//
// ReadDir reads the response records of a directory of WARC files (these
// or any other tool's) as Exchanges, in bounded memory whatever the
// records' sizes; Read reads one stream.
//
// The package writes and reads the format itself; its tests check the
// files with github.com/nlnwa/gowarc's reader, and a crawl's archive
// against golden files written before the package stood apart from the
// crawler (its tests, not the package, use package crawler). gowarc's writer did not fit:
// v3.1.0 calls uuid.EnableRandPool in every NewRecordBuilder (and
// NewUnmarshaler), an unsynchronised write to a global of
// github.com/google/uuid that races with the uuid.New calls of the link
// graph, and its reader buffers a whole block (to a temporary file past a
// size), where an import wants to stop reading a body at the size limit.
package warc
