package main

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/linksrus/linksrus/crawler/engine"
)

// progress shows how a crawl is going: on a terminal one status line redrawn
// in place a few times a second, otherwise a log line every few seconds, so
// that logs of scheduled runs stay readable.
type progress struct {
	w        io.Writer
	terminal bool
	run      *engine.Run
	log      *slog.Logger

	mu   sync.Mutex // serialises writes to w
	quit chan struct{}
	done chan struct{}
}

func startProgress(env *environment, run *engine.Run) *progress {
	p := &progress{
		w:        env.stderr,
		terminal: env.stderrIsTerminal,
		run:      run,
		log:      slog.New(slog.NewTextHandler(env.stderr, nil)),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	interval := 5 * time.Second
	if p.terminal {
		interval = 250 * time.Millisecond
	}
	go p.loop(interval)
	return p
}

func (p *progress) loop(interval time.Duration) {
	defer close(p.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.draw()
		case <-p.quit:
			return
		}
	}
}

// draw prints the current state.
func (p *progress) draw() {
	s := p.run.Progress()
	rate := float64(s.Pages) / max(s.Elapsed.Seconds(), 1e-9)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%d pages  %.0f/s  queue %d  in flight %d  errors %d  skipped %d  %s",
			s.Pages, rate, s.Queued, s.InFlight, s.Errors, s.Skipped, s.Elapsed.Round(time.Second))
		return
	}
	p.log.Info("crawling", "pages", s.Pages, "pages_per_s", int(rate), "queued", s.Queued,
		"in_flight", s.InFlight, "errors", s.Errors, "skipped", s.Skipped,
		"elapsed", s.Elapsed.Round(time.Millisecond).String())
}

// note prints a message without garbling the status line.
func (p *progress) note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s\n", msg)
		return
	}
	p.log.Info(msg)
}

// stop ends the display, leaving the terminal on a fresh line.
func (p *progress) stop() {
	close(p.quit)
	<-p.done
	if p.terminal {
		p.mu.Lock()
		fmt.Fprint(p.w, "\r\033[K")
		p.mu.Unlock()
	}
}
