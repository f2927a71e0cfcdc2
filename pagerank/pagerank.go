package pagerank

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
)

// Defaults of the Options fields left zero.
const (
	DefaultDamping       = 0.85
	DefaultTolerance     = 1e-6
	DefaultMaxIterations = 100
	// DefaultMemoryLimit is how many bytes of edge pairs are kept in
	// memory before the rest goes to a temporary file: 32 million edges.
	DefaultMemoryLimit = 256 << 20
)

// Graph is what Compute reads; every linkgraph backend implements it.
type Graph interface {
	Links(fromID, toID uuid.UUID, retrievedBefore time.Time) (linkgraph.LinkIterator, error)
	Edges(fromID, toID uuid.UUID, updatedBefore time.Time) (linkgraph.EdgeIterator, error)
}

// EdgePairer is a Graph that can also list its edges as bare pairs of
// link IDs, in bulk, which Compute then reads instead of whole
// linkgraph.Edges (the embedded bolt graph can): building an Edge, with its
// ID, only to read its ends was most of ranking a crawled graph.
type EdgePairer interface {
	EdgePairs(updatedBefore time.Time, fn func(src, dst uuid.UUID) error) error
}

// Options configure Compute. Zero fields take the defaults above.
type Options struct {
	Damping       float64
	Tolerance     float64
	MaxIterations int
	// MemoryLimit bounds the bytes of edges held in memory: 8 an edge as
	// they are read, 4 once grouped by target for the iterations, which
	// is done when both fit (12 an edge). Edges beyond it are read back
	// from a temporary file at every iteration.
	MemoryLimit int64
	// TempDir is where edges beyond MemoryLimit go; default os.TempDir().
	TempDir string
}

// Result is the rank of every link of the graph.
type Result struct {
	IDs    []uuid.UUID
	Scores []float64 // Scores[i] is the rank of IDs[i]; they sum to 1
	Edges  int64
	// Iterations made, and the L1 change of the last one.
	Iterations int
	Delta      float64
}

// ErrOptions is wrapped for options Compute cannot use.
var ErrOptions = errors.New("pagerank: invalid options")

func (o Options) withDefaults() (Options, error) {
	if o.Damping == 0 {
		o.Damping = DefaultDamping
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	if o.MaxIterations == 0 {
		o.MaxIterations = DefaultMaxIterations
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = DefaultMemoryLimit
	}
	if o.TempDir == "" {
		o.TempDir = os.TempDir()
	}
	switch {
	case o.Damping < 0 || o.Damping >= 1 || math.IsNaN(o.Damping):
		return o, fmt.Errorf("%w: damping %v not in [0, 1)", ErrOptions, o.Damping)
	case o.Tolerance < 0, o.MaxIterations < 0, o.MemoryLimit < 0:
		return o, fmt.Errorf("%w: negative value", ErrOptions)
	}
	return o, nil
}

// Compute reads g and returns the rank of each of its links. It honours
// ctx between pages of the graph and between iterations.
func Compute(ctx context.Context, g Graph, opts Options) (*Result, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	far := time.Now().Add(24 * time.Hour)
	it, err := g.Links(uuid.Nil, uuid.Nil, far)
	if err != nil {
		return nil, fmt.Errorf("pagerank: read links: %w", err)
	}
	res := &Result{}
	index := make(map[uuid.UUID]uint32)
	for it.Next() {
		id := it.Link().ID
		if _, dup := index[id]; !dup {
			index[id] = uint32(len(res.IDs))
			res.IDs = append(res.IDs, id)
		}
		if len(res.IDs)%4096 == 0 && ctx.Err() != nil {
			it.Close()
			return nil, fmt.Errorf("pagerank: %w", ctx.Err())
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, fmt.Errorf("pagerank: read links: %w", err)
	}
	n := len(res.IDs)
	if n == 0 {
		return res, nil
	}

	edges := newEdgeStore(o.MemoryLimit, o.TempDir)
	defer edges.close()
	out := make([]uint32, n)
	// add records the edge src → dst; links added since the links were
	// read are left out. A source's edges come together: its number is
	// looked up once.
	var (
		lastSrc       uuid.UUID
		s             uint32
		looked, srcOK bool
	)
	add := func(src, dst uuid.UUID) error {
		if !looked || src != lastSrc {
			lastSrc, looked = src, true
			s, srcOK = index[src]
		}
		d, dstOK := index[dst]
		if !srcOK || !dstOK {
			return nil
		}
		if err := edges.add(s, d); err != nil {
			return err
		}
		out[s]++
		res.Edges++
		if res.Edges%65536 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		return nil
	}
	if pg, ok := g.(EdgePairer); ok {
		if err := pg.EdgePairs(far, add); err != nil {
			return nil, fmt.Errorf("pagerank: read edges: %w", err)
		}
	} else if err := readEdges(g, far, add); err != nil {
		return nil, fmt.Errorf("pagerank: read edges: %w", err)
	}
	index = nil // the pairs are all that is needed from here on

	rank := make([]float64, n)
	next := make([]float64, n)
	for i := range rank {
		rank[i] = 1 / float64(n)
	}
	// share[i] is what page i gives each page it links to.
	share := make([]float64, n)
	d := o.Damping
	// Edges that fit in memory a second time, grouped by target, are
	// iterated by pulling each page's rank from its sources: each worker
	// owns a range of targets, so the CPUs share an iteration without
	// locks. Otherwise the pairs are streamed, pushing rank along them.
	in := edges.byTarget(n, o.MemoryLimit)
	for res.Iterations < o.MaxIterations {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("pagerank: %w", err)
		}
		dangling := 0.0
		for i, r := range rank {
			if out[i] == 0 {
				dangling += r
				share[i] = 0
			} else {
				share[i] = r / float64(out[i])
			}
		}
		base := (1-d)/float64(n) + d*dangling/float64(n)
		var delta float64
		if in != nil {
			delta = in.pull(rank, next, share, base, d)
		} else {
			for i := range next {
				next[i] = base
			}
			if err := edges.each(func(s, t uint32) { next[t] += d * share[s] }); err != nil {
				return nil, err
			}
			for i := range rank {
				delta += math.Abs(next[i] - rank[i])
			}
		}
		rank, next = next, rank
		res.Iterations++
		res.Delta = delta
		if delta < o.Tolerance {
			break
		}
	}
	res.Scores = rank
	return res, nil
}

// readEdges calls add with the ends of every edge of g updated before
// before, through its EdgeIterator.
func readEdges(g Graph, before time.Time, add func(src, dst uuid.UUID) error) error {
	it, err := g.Edges(uuid.Nil, uuid.Nil, before)
	if err != nil {
		return err
	}
	for it.Next() {
		e := it.Edge()
		if err := add(e.Src, e.Dst); err != nil {
			it.Close()
			return err
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// inEdges is the graph's edges grouped by target (compressed sparse rows):
// the sources of page t are src[start[t]:start[t+1]].
type inEdges struct {
	start []uint32
	src   []uint32
	// parts splits the targets into runs of about equal edges, one for
	// each worker: part i is targets parts[i] to parts[i+1].
	parts []int
}

// pull sets next[t] to base plus d times the shares of t's sources, for
// every page t, and returns the L1 change from rank.
func (in *inEdges) pull(rank, next, share []float64, base, d float64) float64 {
	deltas := make([]float64, len(in.parts)-1)
	work := func(w int) {
		delta := 0.0
		for t := in.parts[w]; t < in.parts[w+1]; t++ {
			sum := 0.0
			for _, s := range in.src[in.start[t]:in.start[t+1]] {
				sum += share[s]
			}
			next[t] = base + d*sum
			delta += math.Abs(next[t] - rank[t])
		}
		deltas[w] = delta
	}
	var wg sync.WaitGroup
	for w := 1; w < len(deltas); w++ {
		wg.Go(func() { work(w) })
	}
	work(0)
	wg.Wait()
	total := 0.0
	for _, x := range deltas {
		total += x
	}
	return total
}

// Scorer is what Write stores scores in; every textindex backend
// implements it (textindex.Indexer).
type Scorer interface {
	// UpdateScores sets the scores of ids (ids[i] gets scores[i]), a
	// link without a document yet keeping its score for when it has one.
	UpdateScores(ids []uuid.UUID, scores []float64) error
}

// scoreChunk is how many scores Write hands idx per call: one transaction
// each, and a point to notice a canceled context.
const scoreChunk = 4096

// Write stores every score of r in idx, in chunks, relative to the average
// link's (Scores[i] × len(IDs): 1 is a page as linked as the average one),
// the scale a search's prior expects whatever the graph's size
// (textindex.Weights.Prior), and returns the first error. Links without a
// document in the index get their score recorded for when they are
// indexed (textindex.Indexer.UpdateScore).
func (r *Result) Write(ctx context.Context, idx Scorer) error {
	scale := float64(len(r.IDs))
	relative := make([]float64, 0, min(scoreChunk, len(r.IDs)))
	for from := 0; from < len(r.IDs); from += scoreChunk {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("pagerank: write scores: %w", err)
		}
		to := min(from+scoreChunk, len(r.IDs))
		relative = relative[:0]
		for _, s := range r.Scores[from:to] {
			relative = append(relative, s*scale)
		}
		if err := idx.UpdateScores(r.IDs[from:to], relative); err != nil {
			return fmt.Errorf("pagerank: write scores: %w", err)
		}
	}
	return nil
}

// edgeStore holds edges as pairs of link numbers: in memory up to a limit,
// then appended to a temporary file, read back sequentially at every
// iteration.
type edgeStore struct {
	limit int64
	dir   string
	mem   []uint32 // s0, t0, s1, t1, ...
	file  *os.File
	w     *bufio.Writer
}

func newEdgeStore(limit int64, dir string) *edgeStore {
	return &edgeStore{limit: limit, dir: dir}
}

func (e *edgeStore) add(s, t uint32) error {
	if e.file == nil && int64(len(e.mem)+2)*4 <= e.limit {
		e.mem = append(e.mem, s, t)
		return nil
	}
	if e.file == nil {
		f, err := os.CreateTemp(e.dir, "linksrus-pagerank-*.edges")
		if err != nil {
			return fmt.Errorf("pagerank: spill edges: %w", err)
		}
		_ = os.Remove(f.Name()) // nothing left behind, whatever happens
		e.file, e.w = f, bufio.NewWriterSize(f, 1<<20)
	}
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:], s)
	binary.LittleEndian.PutUint32(b[4:], t)
	if _, err := e.w.Write(b[:]); err != nil {
		return fmt.Errorf("pagerank: spill edges: %w", err)
	}
	return nil
}

// byTarget returns the edges grouped by target for n pages, or nil when
// they are not all in memory or the grouping (4 bytes an edge, beside the
// pairs' 8 while it is built) would take the edges' memory over limit.
// The pairs are dropped once grouped.
func (e *edgeStore) byTarget(n int, limit int64) *inEdges {
	edges := len(e.mem) / 2
	if e.file != nil || int64(edges)*12+int64(n+1)*4 > limit || edges > math.MaxUint32 {
		return nil
	}
	in := &inEdges{start: make([]uint32, n+1), src: make([]uint32, edges)}
	for i := 1; i < len(e.mem); i += 2 {
		in.start[e.mem[i]+1]++
	}
	for t := range n {
		in.start[t+1] += in.start[t]
	}
	fill := slices.Clone(in.start[:n])
	for i := 0; i+1 < len(e.mem); i += 2 {
		t := e.mem[i+1]
		in.src[fill[t]] = e.mem[i]
		fill[t]++
	}
	e.mem = nil
	workers := min(runtime.GOMAXPROCS(0), max(1, edges/pullPerWorker))
	in.parts = make([]int, 0, workers+1)
	in.parts = append(in.parts, 0)
	for w := 1; w < workers; w++ {
		// The first target whose edges start past the w-th share.
		want := uint32(edges * w / workers)
		t, _ := slices.BinarySearch(in.start[:n], want)
		in.parts = append(in.parts, max(t, in.parts[len(in.parts)-1]))
	}
	in.parts = append(in.parts, n)
	return in
}

// pullPerWorker is about the fewest edges worth another worker in an
// iteration: below it, starting a goroutine costs more than it saves.
const pullPerWorker = 64 << 10

func (e *edgeStore) each(fn func(s, t uint32)) error {
	for i := 0; i+1 < len(e.mem); i += 2 {
		fn(e.mem[i], e.mem[i+1])
	}
	if e.file == nil {
		return nil
	}
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("pagerank: spill edges: %w", err)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(e.file, 0, 1<<62), 1<<20)
	var b [8]byte
	for {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("pagerank: read spilled edges: %w", err)
		}
		fn(binary.LittleEndian.Uint32(b[:]), binary.LittleEndian.Uint32(b[4:]))
	}
}

func (e *edgeStore) close() {
	if e.file != nil {
		e.file.Close()
	}
}
