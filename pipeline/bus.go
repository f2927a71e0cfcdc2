package pipeline

import (
	"context"
	"sync"

	"github.com/hashicorp/go-multierror"
)

// errorBus collects every error of a run. The first one cancels the run;
// none is ever dropped, however many components fail at once.
type errorBus struct {
	cancel context.CancelFunc

	mu   sync.Mutex
	errs *multierror.Error
}

func newErrorBus(cancel context.CancelFunc) *errorBus {
	return &errorBus{cancel: cancel}
}

// report records err, located in the pipeline, and stops the run.
func (b *errorBus) report(component Component, stage int, err error) {
	b.mu.Lock()
	b.errs = multierror.Append(b.errs, &Error{Component: component, Stage: stage, Err: err})
	b.mu.Unlock()
	b.cancel()
}

// collect reports every error sent on the error channel of stage until the
// channel is closed, then closes collected.
func (b *errorBus) collect(stage int, errCh <-chan error, collected chan<- struct{}) {
	defer close(collected)
	for err := range errCh {
		if err != nil {
			b.report(ComponentStage, stage, err)
		}
	}
}

// err returns the collected errors, or nil.
func (b *errorBus) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.errs.ErrorOrNil()
}
