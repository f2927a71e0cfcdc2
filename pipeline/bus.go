package pipeline

import (
	"context"
	"fmt"
	"strings"
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
	if b.errs != nil {
		b.errs.ErrorFormat = oneLine
	}
	return b.errs.ErrorOrNil()
}

// oneLine formats joined errors the way errors.Join's are read in a log
// or a command's one-line failure: the only error as it is, several
// separated by "; " and counted. go-multierror's own format spreads them
// over lines with bullets, which reads as "1 error occurred:; * ...; ;"
// once flattened.
func oneLine(errs []error) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d errors: ", len(errs))
	for i, err := range errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(err.Error())
	}
	return b.String()
}
