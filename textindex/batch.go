package textindex

// BatchIndexer is implemented by indexers that store many documents in one
// operation (one transaction, one round trip) more cheaply than one Index
// call each. Every backend in this module implements it; callers holding
// an Indexer check for it with a type assertion and fall back to Index.
//
// IndexBatch has the semantics of calling Index for each document in
// order, except that it is all or nothing: the documents are validated
// first, and either every one is stored, or none is and the error says
// why. A document that is nil or has no LinkID yields ErrMissingLinkID, a
// non-finite PageRank ErrInvalidScore; the error names the document's
// position in docs. When several documents share a LinkID the last one
// wins, as it would with successive Index calls. PageRank follows Index's
// rule: a score the index already holds for the LinkID, including a
// placeholder recorded by UpdateScore, is kept. An empty batch does
// nothing and returns nil. The batch is durable (committed) when
// IndexBatch returns nil. The documents are not modified or retained.
type BatchIndexer interface {
	IndexBatch(docs []*Document) error
}
