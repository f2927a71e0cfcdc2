// Package warc archives a crawl in WARC 1.1 files (ISO 28500), the format
// of wget, Heritrix and pywb, and reads such files back for an import.
//
// A Writer is a crawler.Recorder: set it as crawler.Config.Recorder (the
// crawl command's --warc flag does) and every GET response the crawl reads
// is written as a response record, with a request record beside it that
// refers to it (WARC-Concurrent-To). Each file starts with a warcinfo
// record; every record is a gzip member of its own, so a record can be
// read from its offset alone; a file is closed, and the next one begun,
// once it reaches Options.MaxFileSize (1 GB by default), so a file exceeds
// it by one exchange at most.
//
// Beside each file NAME.warc.gz the Writer writes NAME.warc.gz.cdxj, its
// index in the CDXJ form pywb reads: one line per response record,
// "SURT timestamp {json}" with the url, mime, status, digest, length (of
// the gzip member), offset and filename, sorted. The SURT is the key pywb
// looks the URL up by, as warcio and cdxj-indexer write it (see SURT).
// The index is written when its file is closed.
//
// What is kept, and what is not:
//   - The body is kept as the server sent it, Content-Encoding and all
//     (the crawler asks for gzip itself so that Go's transport does not
//     decode it), without its Transfer-Encoding (chunks are joined), as
//     WARC wants.
//   - The HTTP headers are written as Go exposes them: in canonical case,
//     sorted by name, with Transfer-Encoding removed, in an HTTP/1.1
//     message whatever the protocol (an HTTP/2 response too). The case and order
//     the server used are not preserved, and the request's headers are
//     those the crawler set (Host added; the transport's own, if any,
//     are missing).
//   - A body cut at the crawl's MaxBodyBytes is written as far as it was
//     read, with "WARC-Truncated: length"; a response the crawler skipped
//     on its headers alone (an error status, a redirect, a type other
//     than HTML, a Content-Length over the limit) is a response record
//     with the headers and no body, with "WARC-Truncated: length" for a
//     Content-Length over the limit and "WARC-Truncated: unspecified"
//     otherwise. No record claims a body it does not have.
//
// ReadDir reads the response records of a directory of WARC files (these
// or any other crawler's) as crawler.FetchedPage values, for
// crawler.Crawler.Import, in bounded memory whatever the records' sizes.
//
// The package writes and reads the format itself; its tests check the
// files with github.com/nlnwa/gowarc's reader. gowarc's writer did not fit:
// v3.1.0 calls uuid.EnableRandPool in every NewRecordBuilder (and
// NewUnmarshaler), an unsynchronised write to a global of
// github.com/google/uuid that races with the uuid.New calls of the link
// graph, and its reader buffers a whole block (to a temporary file past a
// size), where an import wants to stop reading a body at the size limit.
package warc
