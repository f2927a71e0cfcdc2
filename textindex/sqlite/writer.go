package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/linksrus/linksrus/textindex"
)

// writer owns the single connection all writes go through, with its
// statements prepared once. It commits in groups: a write queues itself,
// and whichever caller next gets the connection (the leader) applies every
// queued write in one transaction, each under its own savepoint so that one
// failing write does not undo the others. Under concurrent indexing, as
// the crawler does, this spends one commit (and one FTS5 segment flush, the
// dominant cost) on many documents; a lone caller still commits at once.
type writer struct {
	leader sync.Mutex // held while a group is written; guards conn and stmts
	conn   *sql.Conn
	stmts  map[string]*sql.Stmt
	closed bool

	queueMu sync.Mutex
	queue   []*writeOp
}

// writeOp is one queued write; done receives its outcome exactly once.
type writeOp struct {
	fn   func(ctx context.Context, w *writer) error
	done chan error
}

// Statement texts, prepared once on the writer connection.
const (
	stmtUpsertDoc  = `INSERT INTO docs (link_id, page_rank) VALUES (?, ?) ON CONFLICT (link_id) DO UPDATE SET page_rank = page_rank RETURNING id`
	stmtDeleteText = `DELETE FROM docs_fts WHERE rowid = ?`
	stmtInsertText = `INSERT INTO docs_fts (rowid, body) VALUES (?, ?)`
	stmtPutBody    = `INSERT OR REPLACE INTO bodies (id, url, title, content, indexed_at) VALUES (?, ?, ?, ?, ?)`
	stmtSetScore   = `INSERT INTO docs (link_id, page_rank) VALUES (?, ?) ON CONFLICT (link_id) DO UPDATE SET page_rank = excluded.page_rank`
	stmtBegin      = `BEGIN IMMEDIATE`
	stmtCommit     = `COMMIT`
	stmtRollback   = `ROLLBACK`
	stmtSavepoint  = `SAVEPOINT w`
	stmtRelease    = `RELEASE w`
	stmtRollbackTo = `ROLLBACK TO w`
)

func newWriter(ctx context.Context, db *sql.DB) (*writer, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("reserve writer connection: %w", err)
	}
	w := &writer{conn: conn, stmts: make(map[string]*sql.Stmt)}
	for _, q := range []string{stmtUpsertDoc, stmtDeleteText, stmtInsertText, stmtPutBody, stmtSetScore,
		stmtBegin, stmtCommit, stmtRollback, stmtSavepoint, stmtRelease, stmtRollbackTo} {
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
func (w *writer) do(fn func(ctx context.Context, w *writer) error) error {
	op := &writeOp{fn: fn, done: make(chan error, 1)}
	w.queueMu.Lock()
	w.queue = append(w.queue, op)
	w.queueMu.Unlock()

	w.leader.Lock()
	defer w.leader.Unlock()
	select {
	case err := <-op.done: // an earlier leader wrote it
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
func (w *writer) commitGroup(group []*writeOp) {
	ctx := context.Background()
	results := make([]error, len(group))
	err := w.writeGroup(ctx, group, results)
	for n, op := range group {
		if err != nil {
			op.done <- err
		} else {
			op.done <- results[n]
		}
	}
}

func (w *writer) writeGroup(ctx context.Context, group []*writeOp, results []error) error {
	if w.closed {
		return textindex.ErrClosed
	}
	if err := w.exec(ctx, stmtBegin); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	for n, op := range group {
		results[n] = w.applyOne(ctx, op)
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

// applyOne runs one op under a savepoint, undoing just its changes when it
// fails.
func (w *writer) applyOne(ctx context.Context, op *writeOp) error {
	if err := w.exec(ctx, stmtSavepoint); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	if err := op.fn(ctx, w); err != nil {
		if rbErr := w.exec(ctx, stmtRollbackTo); rbErr != nil {
			err = errors.Join(err, fmt.Errorf("roll back to savepoint: %w", rbErr))
		}
		if relErr := w.exec(ctx, stmtRelease); relErr != nil {
			err = errors.Join(err, fmt.Errorf("release savepoint: %w", relErr))
		}
		return err
	}
	if err := w.exec(ctx, stmtRelease); err != nil {
		return fmt.Errorf("release savepoint: %w", err)
	}
	return nil
}

// close releases the statements and the connection; later writes fail with
// textindex.ErrClosed.
func (w *writer) close() error {
	w.leader.Lock()
	defer w.leader.Unlock()
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
