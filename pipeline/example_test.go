package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/linksrus/linksrus/pipeline"
)

// word is the payload of the examples.
type word struct{ text string }

func (w *word) Clone() pipeline.Payload { return &word{text: w.text} }
func (w *word) MarkAsProcessed()        {}

// words is a Source of words.
type words struct {
	list []string
	cur  *word
}

func (s *words) Next(context.Context) bool {
	if len(s.list) == 0 {
		return false
	}
	s.cur, s.list = &word{text: s.list[0]}, s.list[1:]
	return true
}
func (s *words) Payload() pipeline.Payload { return s.cur }
func (s *words) Error() error              { return nil }

// printer is a Sink that collects the words it receives.
type printer struct {
	mu  sync.Mutex
	got []string
}

func (p *printer) Consume(_ context.Context, pl pipeline.Payload) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, pl.(*word).text)
	return nil
}

var upper = pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
	w := p.(*word)
	w.text = strings.ToUpper(w.text)
	return w, nil
})

// Build a two-stage pipeline and run it: words are upper-cased, short ones
// dropped.
func Example() {
	dropShort := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if len(p.(*word).text) < 4 {
			return nil, nil // dropped: the pipeline marks it processed
		}
		return p, nil
	})
	p := pipeline.New(pipeline.FIFO(dropShort), pipeline.FIFO(upper))

	sink := &printer{}
	err := p.Process(context.Background(), &words{list: []string{"a", "pipeline", "is", "simple"}}, sink)
	fmt.Println(sink.got, err)
	// Output: [PIPELINE SIMPLE] <nil>
}

// Errors come back with where they happened.
func ExamplePipeline_Process_error() {
	errNoDigits := errors.New("digits not allowed")
	check := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if strings.ContainsAny(p.(*word).text, "0123456789") {
			return nil, errNoDigits
		}
		return p, nil
	})
	p := pipeline.New(pipeline.FIFO(upper), pipeline.FIFO(check))
	err := p.Process(context.Background(), &words{list: []string{"ok", "r2d2"}}, &printer{})

	var perr *pipeline.Error
	if errors.As(err, &perr) {
		fmt.Println(perr.Component, perr.Stage, errors.Is(err, errNoDigits))
		fmt.Println(perr)
	}
	// Output:
	// stage 1 true
	// pipeline stage 1: digits not allowed
}

func ExampleFIFO() {
	sink := &printer{}
	_ = pipeline.New(pipeline.FIFO(upper)).Process(context.Background(), &words{list: []string{"one", "two", "three"}}, sink)
	fmt.Println(sink.got) // order kept
	// Output: [ONE TWO THREE]
}

func ExampleFixedWorkerPool() {
	sink := &printer{}
	_ = pipeline.New(pipeline.FixedWorkerPool(upper, 4)).Process(context.Background(), &words{list: []string{"c", "a", "d", "b"}}, sink)
	slices.Sort(sink.got) // the pool does not keep the order
	fmt.Println(sink.got)
	// Output: [A B C D]
}

func ExampleDynamicWorkerPool() {
	sink := &printer{}
	_ = pipeline.New(pipeline.DynamicWorkerPool(upper, 8)).Process(context.Background(), &words{list: []string{"c", "a", "d", "b"}}, sink)
	slices.Sort(sink.got)
	fmt.Println(sink.got)
	// Output: [A B C D]
}

func ExampleOrderedWorkerPool() {
	slow := pipeline.ProcessorFunc(func(ctx context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		time.Sleep(time.Duration(len(p.(*word).text)) * time.Millisecond) // longer words take longer
		return upper(ctx, p)
	})
	sink := &printer{}
	_ = pipeline.New(pipeline.OrderedWorkerPool(slow, 3)).Process(context.Background(), &words{list: []string{"elephant", "ant", "horse", "ox"}}, sink)
	fmt.Println(sink.got) // parallel, yet in input order
	// Output: [ELEPHANT ANT HORSE OX]
}

func ExampleBroadcast() {
	suffix := func(s string) pipeline.Processor {
		return pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
			p.(*word).text += s // safe: each processor has its own copy
			return p, nil
		})
	}
	sink := &printer{}
	_ = pipeline.New(pipeline.Broadcast(suffix("-a"), suffix("-b"))).Process(context.Background(), &words{list: []string{"x", "y"}}, sink)
	slices.Sort(sink.got)
	fmt.Println(sink.got)
	// Output: [x-a x-b y-a y-b]
}

func ExampleBatch() {
	// One call per batch, as one database transaction would be.
	var sizes []int
	store := pipeline.BatchProcessorFunc(func(_ context.Context, batch []pipeline.Payload) error {
		sizes = append(sizes, len(batch))
		return nil
	})
	src := &words{list: strings.Fields("a b c d e f g")}
	_ = pipeline.New(pipeline.Batch(store, 3, time.Second)).Process(context.Background(), src, &printer{})
	fmt.Println(sizes)
	// Output: [3 3 1]
}

func ExampleRetry() {
	errUnavailable := errors.New("service unavailable")
	calls := 0
	flakyFetch := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		calls++
		if calls < 3 {
			return nil, errUnavailable
		}
		return p, nil
	})
	proc := pipeline.Retry(flakyFetch, pipeline.RetryPolicy{
		MaxAttempts:    5,
		IsTransient:    func(err error) bool { return errors.Is(err, errUnavailable) },
		InitialBackoff: time.Millisecond,
	})
	sink := &printer{}
	err := pipeline.New(pipeline.FIFO(proc)).Process(context.Background(), &words{list: []string{"page"}}, sink)
	fmt.Println(sink.got, calls, err)
	// Output: [page] 3 <nil>
}

func ExampleDeadLetter() {
	errBad := errors.New("bad word")
	check := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if p.(*word).text == "spam" {
			return nil, errBad
		}
		return p, nil
	})
	var dead []string
	dl := pipeline.DeadLetterFunc(func(_ context.Context, p pipeline.Payload, err error) error {
		dead = append(dead, p.(*word).text+": "+err.Error())
		return nil
	})
	sink := &printer{}
	err := pipeline.New(pipeline.FIFO(pipeline.DeadLetter(check, dl))).Process(context.Background(), &words{list: []string{"ham", "spam", "eggs"}}, sink)
	fmt.Println(sink.got, dead, err)
	// Output: [ham eggs] [spam: bad word] <nil>
}

func ExamplePipeline_Stats() {
	dropShort := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if len(p.(*word).text) < 3 {
			return nil, nil
		}
		return p, nil
	})
	p := pipeline.New(pipeline.FIFO(dropShort))
	_ = p.Process(context.Background(), &words{list: []string{"go", "is", "fun"}}, &printer{})

	st := p.Stats()
	st.Stages[0].ProcessingTime = 0 // varies from run to run
	js, _ := json.Marshal(st)
	fmt.Println(string(js))
	// Output: {"emitted":3,"stages":[{"stage":0,"in":3,"out":1,"dropped":2,"failed":0,"abandoned":0,"in_flight":0,"processing_time_ns":0}],"consumed":1,"sink_failed":0,"abandoned":0}
}

func ExampleNewWithOptions() {
	// Smaller buffers bound the payloads (and memory) held between stages.
	p := pipeline.NewWithOptions(pipeline.Options{BufferSize: 4}, pipeline.FIFO(upper))
	sink := &printer{}
	err := p.Process(context.Background(), &words{list: []string{"small", "buffers"}}, sink)
	fmt.Println(sink.got, err)
	// Output: [SMALL BUFFERS] <nil>
}

func ExampleBatchPool() {
	// Two batches in flight at once, as two connections to a database
	// server would carry them; the order of batches is then not kept.
	var mu sync.Mutex
	stored := 0
	store := pipeline.BatchProcessorFunc(func(_ context.Context, batch []pipeline.Payload) error {
		mu.Lock()
		stored += len(batch)
		mu.Unlock()
		return nil
	})
	src := &words{list: strings.Fields("a b c d e f g")}
	sink := &printer{}
	err := pipeline.New(pipeline.BatchPool(store, 3, 0, 2)).Process(context.Background(), src, sink)
	slices.Sort(sink.got)
	fmt.Println(stored, sink.got, err)
	// Output: 7 [a b c d e f g] <nil>
}

func ExampleScatterGather() {
	// Two stores written side by side; a payload goes on once both have it.
	var mu sync.Mutex
	var graph, index []string
	store := func(dst *[]string) pipeline.BatchProcessor {
		return pipeline.BatchProcessorFunc(func(_ context.Context, batch []pipeline.Payload) error {
			mu.Lock()
			defer mu.Unlock()
			for _, p := range batch {
				*dst = append(*dst, p.(*word).text)
			}
			return nil
		})
	}
	stores := []pipeline.BatchProcessor{store(&graph), store(&index)}
	src := &words{list: strings.Fields("a b c")}
	sink := &printer{}
	err := pipeline.New(pipeline.ScatterGather(stores, 8, 0, 1)).Process(context.Background(), src, sink)
	fmt.Println(graph, index, sink.got, err)
	// Output: [a b c] [a b c] [a b c] <nil>
}

// A store that writes a batch in one transaction waits for a batch to
// fill (here up to a second), but bounds it by weight too, so that a run
// of large records goes out early, and writes it as soon as the input
// pauses (here for 200 ms) rather than waiting out the second.
func ExampleFlushAtWeight() {
	var batches [][]string
	store := pipeline.BatchProcessorFunc(func(_ context.Context, batch []pipeline.Payload) error {
		var texts []string
		for _, p := range batch {
			texts = append(texts, p.(*word).text)
		}
		batches = append(batches, texts)
		return nil
	})
	size := func(p pipeline.Payload) int64 { return int64(len(p.(*word).text)) }
	stage := pipeline.Batch(store, 100, time.Second,
		pipeline.FlushAtWeight(10, size),
		pipeline.FlushOnPause(200*time.Millisecond))
	src := &words{list: strings.Fields("a bb ccc dddddddddd e ff")}
	_ = pipeline.New(stage).Process(context.Background(), src, &printer{})
	fmt.Println(batches)
	// Output: [[a bb ccc dddddddddd] [e ff]]
}

// askingWords is a source of words that, before its word number ask, asks
// for the batch being gathered and waits until it is written.
type askingWords struct {
	words
	n, ask  int
	flush   chan<- struct{}
	written <-chan struct{}
}

func (s *askingWords) Next(ctx context.Context) bool {
	if s.n == s.ask {
		s.flush <- struct{}{}
		<-s.written
	}
	s.n++
	return s.words.Next(ctx)
}

// Whoever runs out of work asks for the batch being gathered, here the
// source itself before its fourth word: the first three are written then,
// not after the minute the batch would wait for more.
func ExampleFlushOnSignal() {
	flush := make(chan struct{}, 1)
	written := make(chan struct{}, 2)
	var batches [][]string
	store := pipeline.BatchProcessorFunc(func(_ context.Context, batch []pipeline.Payload) error {
		var texts []string
		for _, p := range batch {
			texts = append(texts, p.(*word).text)
		}
		batches = append(batches, texts)
		written <- struct{}{}
		return nil
	})
	stage := pipeline.Batch(store, 100, time.Minute, pipeline.FlushOnSignal(flush))
	src := &askingWords{words: words{list: strings.Fields("a b c d e")}, ask: 3, flush: flush, written: written}
	_ = pipeline.New(stage).Process(context.Background(), src, &printer{})
	fmt.Println(batches)
	// Output: [[a b c] [d e]]
}
