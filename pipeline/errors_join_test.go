package pipeline_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/linksrus/linksrus/pipeline"
)

// The pipeline's joined errors read as one line and let errors.Is and
// errors.As reach every error, as errors.Join's do.
func TestJoinedErrorsOneLineAndUnwrappable(t *testing.T) {
	errA := errors.New("first failure")
	errB := &fs.PathError{Op: "open", Path: "x", Err: os.ErrNotExist}
	fail := func(err error) pipeline.Processor {
		return pipeline.ProcessorFunc(func(context.Context, pipeline.Payload) (pipeline.Payload, error) { return nil, err })
	}
	src := &sliceSource{l: &ledger{}, n: 4}
	err := pipeline.New(
		pipeline.FixedWorkerPool(fail(errA), 1),
	).Process(context.Background(), src, discardSink{})
	if err == nil || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "occurred") {
		t.Fatalf("one error: %q, want one line", err)
	}
	if !errors.Is(err, errA) {
		t.Errorf("errors.Is does not reach the processor's error: %v", err)
	}

	// Both branches fail, each once the other has its copy, so that the
	// first failure cannot cancel the run before the second one happens.
	var both sync.WaitGroup
	both.Add(2)
	failTogether := func(err error) pipeline.Processor {
		return pipeline.ProcessorFunc(func(context.Context, pipeline.Payload) (pipeline.Payload, error) {
			both.Done()
			both.Wait()
			return nil, err
		})
	}
	p := pipeline.New(pipeline.Broadcast(failTogether(errA), failTogether(errB)))
	err = p.Process(context.Background(), &sliceSource{l: &ledger{}, n: 1}, discardSink{})
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("joined errors: %q, want one line", err)
	}
	var pe *fs.PathError
	if !errors.Is(err, errA) || !errors.As(err, &pe) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("errors.Is/As do not reach every joined error: %v", err)
	}
	var loc *pipeline.Error
	if !errors.As(err, &loc) {
		t.Errorf("no *pipeline.Error in %v", err)
	}
}
