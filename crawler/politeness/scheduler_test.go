package politeness

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newSched(t *testing.T, opts Options) *Scheduler[string] {
	t.Helper()
	s, err := NewScheduler[string](opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSlowHostDoesNotStallOthers puts half the items on a host with a 1 s
// Crawl-delay and the rest on four fast hosts, and runs 4 workers. In the
// time the slow host may start only its second request, every fast item
// must have been handed out: measured by counts, not by timing.
func TestSlowHostDoesNotStallOthers(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 2})
	s.SetDelay("slow.example", time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const perKind = 40
	for i := range perKind {
		if err := s.Push(ctx, "slow.example", fmt.Sprint("slow", i)); err != nil {
			t.Fatal(err)
		}
		if err := s.Push(ctx, fmt.Sprintf("fast%d.example", i%4), fmt.Sprint("fast", i)); err != nil {
			t.Fatal(err)
		}
	}

	var mu sync.Mutex
	slowStarts, fastStarts := 0, 0
	fastDoneAtSecondSlow := -1
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				l, err := s.Next(ctx)
				if err != nil {
					return
				}
				l.Start()
				mu.Lock()
				if l.Host == "slow.example" {
					slowStarts++
					if slowStarts == 2 {
						fastDoneAtSecondSlow = fastStarts
						cancel() // enough: the remaining slow items would take 38 s
					}
				} else {
					fastStarts++
				}
				mu.Unlock()
				time.Sleep(time.Millisecond) // the "fetch"
				l.Release()
			}
		}()
	}
	wg.Wait()
	if fastDoneAtSecondSlow != perKind {
		t.Fatalf("when the slow host started its 2nd request, %d of %d fast items had started", fastDoneAtSecondSlow, perKind)
	}
}

func TestMaxInFlightPerHost(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 3})
	ctx := context.Background()
	for i := range 60 {
		_ = s.Push(ctx, fmt.Sprintf("h%d", i%2), "x")
	}
	s.Close()
	var mu sync.Mutex
	inFlight := map[string]int{}
	peak := map[string]int{}
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				l, err := s.Next(ctx)
				if errors.Is(err, ErrClosed) {
					return
				}
				l.Start()
				mu.Lock()
				inFlight[l.Host]++
				peak[l.Host] = max(peak[l.Host], inFlight[l.Host])
				mu.Unlock()
				time.Sleep(2 * time.Millisecond)
				mu.Lock()
				inFlight[l.Host]--
				mu.Unlock()
				l.Release()
				l.Release() // idempotent
			}
		}()
	}
	wg.Wait()
	for h, p := range peak {
		if p > 3 {
			t.Errorf("host %s had %d requests in flight, limit 3", h, p)
		}
		if p < 2 {
			t.Errorf("host %s never ran requests in parallel (peak %d)", h, p)
		}
	}
}

func TestMinDelayAndCrawlDelay(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 5, MinDelay: 20 * time.Millisecond})
	s.SetDelay("robots-slow", 50*time.Millisecond)
	ctx := context.Background()
	for range 3 {
		_ = s.Push(ctx, "plain", "p")
		_ = s.Push(ctx, "robots-slow", "r")
	}
	s.Close()
	starts := map[string][]time.Time{}
	for {
		l, err := s.Next(ctx)
		if errors.Is(err, ErrClosed) {
			break
		}
		l.Start()
		starts[l.Host] = append(starts[l.Host], time.Now())
		l.Release()
	}
	for host, min := range map[string]time.Duration{"plain": 20 * time.Millisecond, "robots-slow": 50 * time.Millisecond} {
		ts := starts[host]
		if len(ts) != 3 {
			t.Fatalf("%s: %d starts", host, len(ts))
		}
		for i := 1; i < len(ts); i++ {
			if gap := ts[i].Sub(ts[i-1]); gap < min-time.Millisecond {
				t.Errorf("%s: requests %d and %d started %v apart, want >= %v", host, i-1, i, gap, min)
			}
		}
	}
}

func TestRoundRobinAndFIFO(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 1})
	ctx := context.Background()
	for _, p := range [][2]string{{"a", "a1"}, {"a", "a2"}, {"a", "a3"}, {"b", "b1"}, {"b", "b2"}} {
		_ = s.Push(ctx, p[0], p[1])
	}
	var got []string
	for range 5 {
		l, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		l.Start()
		got = append(got, l.Value)
		l.Release()
	}
	if fmt.Sprint(got) != "[a1 b1 a2 b2 a3]" {
		t.Errorf("order = %v, want hosts alternating, FIFO within a host", got)
	}
}

func TestAcquire(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 1})
	ctx := context.Background()
	rel, err := s.Acquire(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	// The host is busy: a queued item for it is not handed out, one for
	// another host is.
	_ = s.Push(ctx, "h", "blocked")
	_ = s.Push(ctx, "other", "free")
	l, err := s.Next(ctx)
	if err != nil || l.Value != "free" {
		t.Fatalf("Next = %v, %v; want the other host's item", l, err)
	}
	l.Start()
	l.Release()
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.Acquire(short, "h"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire on busy host: %v", err)
	}
	got := make(chan string)
	go func() {
		l, err := s.Next(ctx)
		if err != nil {
			t.Error(err)
			close(got)
			return
		}
		l.Start()
		got <- l.Value
		l.Release()
	}()
	time.Sleep(10 * time.Millisecond)
	rel()
	rel() // idempotent
	if v := <-got; v != "blocked" {
		t.Fatalf("after release Next = %q", v)
	}
}

// An Acquire waiting for a busy host gets the next slot freed there before
// the host's queued items (and TryAcquire), however many workers wait for
// them; a waiter that gives up lets the items go again.
func TestAcquireGoesBeforeQueuedItems(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 1})
	ctx := context.Background()
	const workers = 16
	for i := range workers + 1 {
		_ = s.Push(ctx, "h", fmt.Sprint(i))
	}
	first, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first.Start()
	// Workers wait for the host's next items, as a crawl's do.
	order := make(chan string, workers+1)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			l, err := s.Next(ctx)
			if err != nil {
				return
			}
			l.Start()
			order <- "item"
			l.Release()
		})
	}
	acquired := make(chan struct{})
	go func() {
		rel, err := s.Acquire(ctx, "h")
		if err != nil {
			t.Error(err)
			close(acquired)
			return
		}
		order <- "acquire"
		if _, _, ok := s.TryAcquire("h"); ok {
			t.Error("TryAcquire took a slot the Acquire holds")
		}
		rel()
		close(acquired)
	}()
	time.Sleep(20 * time.Millisecond) // the Acquire is waiting
	if _, _, ok := s.TryAcquire("h"); ok {
		t.Fatal("TryAcquire took a busy host's slot")
	}
	first.Release()
	<-acquired
	wg.Wait()
	close(order)
	var got []string
	for v := range order {
		got = append(got, v)
	}
	if len(got) != workers+1 || got[0] != "acquire" {
		t.Fatalf("order = %v, want the Acquire first, then the items", got)
	}

	// A waiter that gives up leaves the host to its items.
	_ = s.Push(ctx, "h", "later")
	busy, err := s.Acquire(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.Acquire(short, "h"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire on a busy host = %v", err)
	}
	busy()
	next, cancel2 := context.WithTimeout(ctx, 5*time.Second)
	defer cancel2()
	l, err := s.Next(next)
	if err != nil {
		t.Fatalf("Next after the waiter gave up: %v", err)
	}
	l.Release()
}

func TestCloseAndContext(t *testing.T) {
	s := newSched(t, Options{})
	ctx := context.Background()
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := s.Next(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next on empty scheduler: %v", err)
	}
	_ = s.Push(ctx, "h", "last")
	blocked := make(chan error)
	s2 := newSched(t, Options{})
	go func() { _, err := s2.Next(ctx); blocked <- err }()
	time.Sleep(10 * time.Millisecond)
	s2.Close()
	if err := <-blocked; !errors.Is(err, ErrClosed) {
		t.Fatalf("blocked Next after Close: %v", err)
	}
	s.Close()
	s.Close()
	if err := s.Push(ctx, "h", "late"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Push after Close: %v", err)
	}
	l, err := s.Next(ctx)
	if err != nil || l.Value != "last" {
		t.Fatalf("draining Next = %v, %v", l, err)
	}
	l.Start()
	l.Release()
	if _, err := s.Next(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("Next on drained: %v", err)
	}
	rel, err := s.Acquire(ctx, "h")
	if err != nil {
		t.Fatalf("Acquire after Close: %v", err)
	}
	rel()
}

func TestMaxQueuedBlocksPush(t *testing.T) {
	s := newSched(t, Options{MaxQueued: 2})
	ctx := context.Background()
	_ = s.Push(ctx, "a", "1")
	_ = s.Push(ctx, "b", "2")
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := s.Push(short, "c", "3"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Push beyond MaxQueued: %v", err)
	}
	done := make(chan error)
	go func() { done <- s.Push(ctx, "c", "3") }()
	l, _ := s.Next(ctx)
	l.Start()
	l.Release()
	if err := <-done; err != nil {
		t.Fatalf("Push after space freed: %v", err)
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d, want 2", s.Len())
	}
}

func TestIdleHostsEvicted(t *testing.T) {
	s := newSched(t, Options{IdleTTL: 20 * time.Millisecond})
	ctx := context.Background()
	for i := range 100 {
		_ = s.Push(ctx, fmt.Sprint("host", i), "x")
	}
	for range 100 {
		l, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		l.Start()
		l.Release()
	}
	if n := s.Hosts(); n != 100 {
		t.Fatalf("Hosts right after use = %d, want 100", n)
	}
	time.Sleep(30 * time.Millisecond)
	if n := s.Hosts(); n != 0 {
		t.Fatalf("Hosts after IdleTTL = %d, want 0", n)
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{MaxInFlight: -1}, {MinDelay: -1}, {MaxQueued: -1}, {IdleTTL: -1}, {Levels: -1}} {
		if _, err := NewScheduler[int](o); !errors.Is(err, ErrOptions) {
			t.Errorf("NewScheduler(%+v): %v", o, err)
		}
	}
}

// TestConcurrentStress runs producers, workers and Acquire callers together
// under -race; every item must be delivered exactly once.
func TestConcurrentStress(t *testing.T) {
	s, _ := NewScheduler[int](Options{MaxInFlight: 2, MaxQueued: 50})
	ctx := context.Background()
	const items = 3000
	var delivered atomic.Int64
	seen := make([]atomic.Bool, items)
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				l, err := s.Next(ctx)
				if err != nil {
					return
				}
				l.Start()
				if seen[l.Value].Swap(true) {
					t.Errorf("item %d delivered twice", l.Value)
				}
				delivered.Add(1)
				if w == 0 {
					rel, err := s.Acquire(ctx, l.Host)
					if err == nil {
						rel()
					}
				}
				l.Release()
			}
		}()
	}
	var pwg sync.WaitGroup
	for p := range 3 {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			for i := p; i < items; i += 3 {
				if err := s.Push(ctx, fmt.Sprint("h", i%7), i); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	pwg.Wait()
	s.Close()
	wg.Wait()
	if delivered.Load() != items {
		t.Fatalf("delivered %d of %d", delivered.Load(), items)
	}
}

func TestPriorities(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 1, Levels: 3})
	ctx := context.Background()
	for _, p := range []struct {
		host string
		prio int
		v    string
	}{
		{"a", 2, "a-deep"}, {"b", 1, "b-mid"}, {"a", 0, "a-top"}, {"c", 2, "c-deep"}, {"b", 0, "b-top"}, {"a", 1, "a-mid"},
	} {
		if err := s.PushPriority(ctx, p.host, p.prio, p.v); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for range 6 {
		l, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		l.Start()
		got = append(got, l.Value)
		l.Release()
	}
	// a was queued (at level 2) before b, then promoted by a-top: the two
	// top items come first, hosts in turn, then the mid ones, then deep.
	want := "[a-top b-top b-mid a-mid a-deep c-deep]"
	if fmt.Sprint(got) != want {
		t.Errorf("order = %v, want %v", got, want)
	}
	if err := s.PushPriority(ctx, "a", 3, "x"); !errors.Is(err, ErrPriority) {
		t.Errorf("priority 3 of 3 levels: %v", err)
	}
	if err := s.PushPriority(ctx, "a", -1, "x"); !errors.Is(err, ErrPriority) {
		t.Errorf("priority -1: %v", err)
	}
}

// TestPriorityDoesNotBeatPoliteness: a busy host's top-priority item waits
// while other hosts' low-priority items are served.
func TestPriorityDoesNotBeatPoliteness(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 1, Levels: 2})
	ctx := context.Background()
	rel, _ := s.Acquire(ctx, "busy")
	_ = s.PushPriority(ctx, "busy", 0, "busy-top")
	_ = s.PushPriority(ctx, "idle", 1, "idle-low")
	l, err := s.Next(ctx)
	if err != nil || l.Value != "idle-low" {
		t.Fatalf("Next = %v, %v; want idle-low", l, err)
	}
	l.Start()
	l.Release()
	rel()
	if l, err = s.Next(ctx); err != nil || l.Value != "busy-top" {
		t.Fatalf("Next = %v, %v; want busy-top", l, err)
	}
	l.Release()
}

// TestDrainHostAndHostState gives a host up as a process handing it over
// would: its queued items come back, the other hosts' stay, and HostState
// tells when the host is idle and when its next request may start.
func TestDrainHostAndHostState(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 2, MinDelay: time.Hour})
	ctx := context.Background()
	for _, v := range []string{"a1", "a2", "a3"} {
		_ = s.Push(ctx, "a", v)
	}
	_ = s.Push(ctx, "b", "b1")
	l, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	host := l.Host
	other := map[string]string{"a": "b", "b": "a"}[host]
	l.Start()
	if idle, next := s.HostState(host); idle || time.Until(next) < 59*time.Minute {
		t.Fatalf("HostState(%s) with a request in flight = %v, %v", host, idle, next)
	}
	got := s.DrainHost(other)
	if want := map[string]int{"a": 3, "b": 1}[other]; len(got) != want {
		t.Fatalf("DrainHost(%s) = %v, want %d items", other, got, want)
	}
	if idle, _ := s.HostState(other); !idle {
		t.Fatalf("HostState(%s) after DrainHost: not idle", other)
	}
	if n := s.Len(); n != map[string]int{"a": 2, "b": 0}[host] {
		t.Fatalf("Len after DrainHost = %d", n)
	}
	if s.DrainHost("unknown") != nil {
		t.Fatal("DrainHost of an unknown host returned items")
	}
	l.Release()
	s.DrainHost(host)
	if idle, next := s.HostState(host); !idle || next.IsZero() {
		t.Fatalf("HostState(%s) after release and drain = %v, %v; want idle, with the delay's next start", host, idle, next)
	}
	if idle, next := s.HostState("unknown"); !idle || !next.IsZero() {
		t.Fatalf("HostState(unknown) = %v, %v", idle, next)
	}
}
