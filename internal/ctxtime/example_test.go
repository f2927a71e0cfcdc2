package ctxtime_test

import (
	"context"
	"fmt"
	"time"

	"github.com/linksrus/linksrus/internal/ctxtime"
)

// A retry loop backs off with Sleep, and stops as soon as its caller gives
// up rather than after the back-off.
func ExampleSleep() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for attempt := 1; ; attempt++ {
		if attempt == 3 {
			cancel() // the caller gives up, say on an interrupt
		}
		if err := ctxtime.Sleep(ctx, 10*time.Millisecond); err != nil {
			fmt.Printf("stopped before attempt %d: %v\n", attempt+1, err)
			return
		}
	}
	// Output:
	// stopped before attempt 4: context canceled
}

// A waiter sleeps until its next deadline, but looks again at once when
// another goroutine signals a change by closing wake.
func ExampleSleepOrWake() {
	wake := make(chan struct{})
	go close(wake) // something changed
	start := time.Now()
	err := ctxtime.SleepOrWake(context.Background(), wake, time.Hour)
	fmt.Println(err, time.Since(start) < time.Minute)
	// Output:
	// <nil> true
}
