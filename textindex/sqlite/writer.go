package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// writer owns the single connection all writes go through, with its
// statements prepared once. It commits in groups: a write queues itself,
// and whichever caller next gets the connection (the leader) applies every
// queued write in one transaction. Under concurrent indexing, as
// the crawler does, this spends one commit (and one FTS5 segment flush, the
// dominant cost) on many documents; a lone caller still commits at once.
type writer struct {
	leader chan struct{} // holds a token while a group is written; guards conn, stmts and closed
	conn   *sql.Conn
	stmts  map[string]*sql.Stmt
	closed bool

	queueMu sync.Mutex
	queue   []*writeOp
}

// writeOp is one queued write; done receives its outcome exactly once.
type writeOp struct {
	fn   func(ctx context.Context, w *writer, text *textBatch) error
	done chan error
}

// textBatch collects a transaction's changes to docs_fts so that they are
// written by one statement each at the end. FTS5 flushes its pending terms
// into a new index segment whenever a statement opens a savepoint, which
// every write to a virtual table inside a transaction does; a statement per
// document would therefore cost a segment (and later merges) per document,
// however many documents a commit holds.
type textBatch struct {
	order []int64            // rowids touched, in first-seen order
	rows  map[int64]*textRow // their fate
}

// textRow is what becomes of one rowid's text in docs_fts.
type textRow struct {
	had  bool      // it had committed text when the transaction first touched it
	keep bool      // it has text at the end: text
	text ftsFields // the last write of a rowid wins
}

// ftsFields is a document's text as docs_fts's columns hold it: its
// fields, then their stems.
type ftsFields struct {
	title, url, headings, body                     string
	titleStems, urlStems, headingsStems, bodyStems string
}

// fieldsOf returns the docs_fts columns of the document at url, in
// language lang.
func fieldsOf(url, title, headings, content, lang string) ftsFields {
	st := terms.StemmerFor(lang)
	urlTerms := terms.URLTerms(url)
	return ftsFields{
		title:         exactText(title),
		url:           strings.Join(urlTerms, " "),
		headings:      exactText(headings),
		body:          exactText(content),
		titleStems:    stemText(title, st),
		urlStems:      strings.Join(st.Stems(urlTerms), " "),
		headingsStems: stemText(headings, st),
		bodyStems:     stemText(content, st),
	}
}

// docFields returns the docs_fts columns of doc.
func docFields(doc *textindex.Document) ftsFields {
	return fieldsOf(doc.URL, doc.Title, doc.Headings, doc.Content, doc.Language)
}

// exactText returns text as an exact column holds it: the stem mark,
// which the tokenizer keeps in a token, made a separator, as it is
// everywhere else (terms.Split).
func exactText(text string) string {
	if !strings.Contains(text, terms.StemMark) {
		return text
	}
	return strings.ReplaceAll(text, terms.StemMark, " ")
}

// stemText returns the stems of text's terms, space-separated.
func stemText(text string, st terms.Stemmer) string {
	return string(st.AppendStems(make([]byte, 0, len(text)+len(text)/2), text))
}

// row returns the state of rowid id, recording had if it is new to the
// batch: only the first touch sees the committed state.
func (b *textBatch) row(id int64, had bool) *textRow {
	if b.rows == nil {
		b.rows = make(map[int64]*textRow)
	}
	r, ok := b.rows[id]
	if !ok {
		r = &textRow{had: had}
		b.rows[id] = r
		b.order = append(b.order, id)
	}
	return r
}

// set schedules text as the text of rowid id; had tells whether the row
// has committed text (if the batch has not touched it yet).
func (b *textBatch) set(id int64, had bool, text ftsFields) {
	r := b.row(id, had)
	r.keep, r.text = true, text
}

// drop schedules the removal of rowid id's text: a document that became
// an alias of a duplicate.
func (b *textBatch) drop(id int64, had bool) {
	r := b.row(id, had)
	r.keep, r.text = false, ftsFields{}
}

// flush writes the batch with one statement for the deletions (rowids in a
// JSON array, so that it stays prepared whatever their number) and one
// for the insertions (per maxParams/2 documents; see execRows).
func (b *textBatch) flush(ctx context.Context, w *writer) error {
	var deletes, inserts []int64
	for _, id := range b.order {
		if r := b.rows[id]; r.had {
			deletes = append(deletes, id)
		}
		if b.rows[id].keep {
			inserts = append(inserts, id)
		}
	}
	if len(deletes) > 0 {
		ids, err := json.Marshal(deletes)
		if err != nil {
			return fmt.Errorf("encode text deletions: %w", err)
		}
		if err := w.exec(ctx, stmtDeleteTexts, string(ids)); err != nil {
			return fmt.Errorf("remove old text: %w", err)
		}
	}
	if len(inserts) > 0 {
		args := make([]any, 0, 9*len(inserts))
		for _, id := range inserts {
			t := b.rows[id].text
			args = append(args, id, t.title, t.url, t.headings, t.body, t.titleStems, t.urlStems, t.headingsStems, t.bodyStems)
		}
		if err := execRows(ctx, w, insertTextsPrefix, "", 9, args); err != nil {
			return fmt.Errorf("index text: %w", err)
		}
	}
	return nil
}

const insertTextsPrefix = `INSERT INTO docs_fts (rowid, title, url, headings, body, title_stems, url_stems, headings_stems, body_stems) VALUES `

// execRows runs prefix, rows of width parameters each taken from args,
// then suffix, as many rows a statement as maxParams allows. Rows are
// bound as parameters of one multi-row VALUES rather than passed as a JSON
// array: encoding text as JSON and parsing it back cost as much again as
// binding it. The statement is prepared per call since the number of rows
// varies; its parse is negligible beside the rows' work (tokenising a
// batch of pages, for docs_fts).
func execRows(ctx context.Context, w *writer, prefix, suffix string, width int, args []any) error {
	perStmt := maxParams / width * width
	for lo := 0; lo < len(args); lo += perStmt {
		part := args[lo:min(lo+perStmt, len(args))]
		if _, err := w.conn.ExecContext(ctx, rowsQuery(prefix, suffix, width, len(part)/width), part...); err != nil {
			return err
		}
	}
	return nil
}

// maxParams bounds a statement's bound parameters, well below SQLite's
// limit of 32766.
const maxParams = 8192

// rowsQuery returns prefix, n rows of width parameters, then suffix.
func rowsQuery(prefix, suffix string, width, n int) string {
	row := "(?" + strings.Repeat(", ?", width-1) + ")"
	var q strings.Builder
	q.Grow(len(prefix) + n*(len(row)+2) + len(suffix))
	q.WriteString(prefix)
	for i := range n {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(row)
	}
	q.WriteString(suffix)
	return q.String()
}

// Statement texts, prepared once on the writer connection.
const (
	stmtUpsertDoc   = `INSERT INTO docs (link_id, page_rank) VALUES (?, ?) ON CONFLICT (link_id) DO UPDATE SET page_rank = page_rank RETURNING id`
	stmtDeleteTexts = `DELETE FROM docs_fts WHERE rowid IN (SELECT value FROM json_each(?))`
	// stmtDropBody removes a replaced document's row, saying whether it
	// had text in docs_fts, whether the new version (hash ?2, redirect ?3,
	// URL ?4, language ?5, headings ?6) keeps its place in the same group
	// with the same text and stems, and, for a canonical that leaves its
	// group, the group's hash: the common cases scan no string. The
	// headings are compared since the hash (of the title and text) leaves
	// them out: a page restyled, its text the same, may have other
	// headings.
	stmtDropBody = `DELETE FROM bodies WHERE id = ?1 RETURNING canon,
		coalesce(content_hash = ?2 AND redirect = ?3 AND url = ?4 AND lang = ?5 AND headings = ?6, 0) AS same,
		CASE WHEN canon AND NOT coalesce(content_hash = ?2 AND redirect = ?3 AND url = ?4, 0) THEN content_hash END AS h`
	// stmtPutBody stores a document's row and works out in the same
	// statement whether it is its group's canonical: no canonical of its
	// hash comes before it in canonical order (a document without a hash
	// always is). It returns that, and the canonical it displaces, if any.
	stmtPutBody = `INSERT INTO bodies (id, url, title, content, indexed_at, content_hash, redirect, lang, headings, canon)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, NOT EXISTS (
			SELECT 1 FROM bodies c WHERE c.content_hash = ?6 AND c.canon
			AND (c.redirect, length(CAST(c.url AS BLOB)), c.url) <= (?7, length(CAST(?2 AS BLOB)), ?2)))
		RETURNING canon, (SELECT c.id FROM bodies c WHERE c.content_hash = ?6 AND c.canon AND c.id != ?1) AS d`
	// stmtFindDocs finds the docs rows of LinkIDs (a JSON array of hex
	// strings) and whether each has a stored document.
	stmtFindDocs = `SELECT d.link_id, d.id, EXISTS (SELECT 1 FROM bodies b WHERE b.id = d.id)
		FROM docs d WHERE d.link_id IN (SELECT unhex(value) FROM json_each(?))`
	// stmtFindHashes finds which content hashes (a JSON array) a stored
	// document has.
	stmtFindHashes  = `SELECT DISTINCT content_hash FROM bodies WHERE content_hash IN (SELECT value FROM json_each(?))`
	stmtLastDocID   = `SELECT coalesce(max(id), 0) FROM docs`
	stmtNextInGroup = `SELECT id, url, title, headings, content, lang FROM bodies WHERE content_hash = ?
		ORDER BY redirect, length(CAST(url AS BLOB)), url LIMIT 1`
	stmtSetCanon = `UPDATE bodies SET canon = ? WHERE id = ?`
	// stmtPutLinks stores a document's links, URL and language (see
	// migration 6) beside its bodies row.
	stmtPutLinks = `INSERT INTO doc_links (id, url, lang, links) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET url = excluded.url, lang = excluded.lang, links = excluded.links`
	stmtSetScore = `INSERT INTO docs (link_id, page_rank) VALUES (?, ?) ON CONFLICT (link_id) DO UPDATE SET page_rank = excluded.page_rank`
	stmtBegin    = `BEGIN IMMEDIATE`
	stmtCommit   = `COMMIT`
	stmtRollback = `ROLLBACK`
)

func newWriter(ctx context.Context, db *sql.DB) (*writer, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("reserve writer connection: %w", err)
	}
	w := &writer{conn: conn, stmts: make(map[string]*sql.Stmt), leader: make(chan struct{}, 1)}
	for _, q := range []string{stmtUpsertDoc, stmtDeleteTexts, stmtDropBody, stmtPutBody, stmtPutLinks, stmtSetScore,
		stmtNextInGroup, stmtSetCanon, stmtFindDocs, stmtFindHashes, stmtLastDocID,
		stmtBegin, stmtCommit, stmtRollback} {
		s, err := conn.PrepareContext(ctx, q)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("prepare %q: %w", q, err), w.close())
		}
		w.stmts[q] = s
	}
	return w, nil
}

// exec runs a prepared statement; only the leader calls it.
func (w *writer) exec(ctx context.Context, query string, args ...any) error {
	_, err := w.stmts[query].ExecContext(ctx, args...)
	return err
}

// do queues fn and returns its outcome once a group containing it has
// committed (or failed).
func (w *writer) do(fn func(ctx context.Context, w *writer, text *textBatch) error) error {
	if w == nil {
		return ErrReadOnly // an index opened read-only has no writer
	}
	op := &writeOp{fn: fn, done: make(chan error, 1)}
	w.queueMu.Lock()
	w.queue = append(w.queue, op)
	w.queueMu.Unlock()

	// Wait until either a leader has written op, or the leadership is
	// free. A follower must not queue for the leadership merely to learn
	// its result: it would hand over leadership one follower at a time and
	// groups would stay small.
	select {
	case err := <-op.done:
		return err
	case w.leader <- struct{}{}:
	}
	defer func() { <-w.leader }()
	select {
	case err := <-op.done: // written by the previous leader after all
		return err
	default:
	}
	w.queueMu.Lock()
	group := w.queue
	w.queue = nil
	w.queueMu.Unlock()
	w.commitGroup(group)
	return <-op.done
}

// commitGroup writes group in one transaction and reports to every op.
// Should any op fail, the transaction is rolled back and each op is
// retried in a transaction of its own, so that one bad write does not fail
// the others. (Savepoints per op would isolate failures more cheaply, but
// FTS5 flushes its pending terms to a new segment at every savepoint
// release, which costs as much as the commit batching saves.)
func (w *writer) commitGroup(group []*writeOp) {
	ctx := context.Background()
	err := w.inTx(ctx, group)
	if err != nil && len(group) > 1 && !errors.Is(err, textindex.ErrClosed) {
		for _, op := range group {
			op.done <- w.inTx(ctx, []*writeOp{op})
		}
		return
	}
	for _, op := range group {
		op.done <- err
	}
}

// inTx applies ops in one transaction, rolling it back on the first error.
func (w *writer) inTx(ctx context.Context, ops []*writeOp) error {
	if w.closed {
		return textindex.ErrClosed
	}
	if err := w.exec(ctx, stmtBegin); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	var text textBatch
	err := func() error {
		for _, op := range ops {
			if err := op.fn(ctx, w, &text); err != nil {
				return err
			}
		}
		return text.flush(ctx, w)
	}()
	if err != nil {
		if rbErr := w.exec(ctx, stmtRollback); rbErr != nil {
			err = errors.Join(err, fmt.Errorf("roll back: %w", rbErr))
		}
		return err
	}
	if err := w.exec(ctx, stmtCommit); err != nil {
		err = fmt.Errorf("commit: %w", err)
		if rbErr := w.exec(ctx, stmtRollback); rbErr != nil {
			err = errors.Join(err, fmt.Errorf("roll back: %w", rbErr))
		}
		return err
	}
	return nil
}

// close releases the statements and the connection; later writes fail with
// textindex.ErrClosed.
func (w *writer) close() error {
	if w == nil {
		return nil
	}
	w.leader <- struct{}{}
	defer func() { <-w.leader }()
	if w.closed {
		return nil
	}
	w.closed = true
	var errs []error
	for _, s := range w.stmts {
		errs = append(errs, s.Close())
	}
	errs = append(errs, w.conn.Close())
	return errors.Join(errs...)
}
