package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// flush implements workSource: it writes the links place buffered.
func (s *leaseSource) flush(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	batch := s.toEnqueue
	s.toEnqueue = nil
	s.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := s.q.Enqueue(ctx, batch); err != nil {
		// Put them back: a batch whose links these partly are flushes
		// next and must not find them gone.
		s.mu.Lock()
		s.toEnqueue = append(batch, s.toEnqueue...)
		s.mu.Unlock()
		return fmt.Errorf("engine: queue links: %w", err)
	}
	s.mu.Lock()
	poke := false
	for _, l := range batch {
		if h := s.hosts[l.Host]; h != nil && !h.more {
			h.more, poke = true, true
		}
	}
	s.mu.Unlock()
	if poke {
		s.poke()
	}
	return nil
}

// flushDone removes handled links from the queue when enough wait, or
// they waited long enough, or always if force.
func (s *leaseSource) flushDone(ctx context.Context, force bool) error {
	s.mu.Lock()
	if len(s.toDelete) == 0 || (!force && len(s.toDelete) < flushDoneAt && time.Since(s.firstDone) < flushDoneEvery) {
		s.mu.Unlock()
		return nil
	}
	batch := s.toDelete
	s.toDelete = nil
	s.mu.Unlock()
	err := s.q.Done(ctx, batch)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.toDelete = append(s.toDelete, batch...)
		return err
	}
	for _, id := range batch {
		delete(s.deleting, id)
	}
	return nil
}

// deleteLocked marks a link of host for removal from the queue. s.mu must
// be held.
func (s *leaseSource) deleteLocked(id uuid.UUID, host string) {
	if _, ok := s.deleting[id]; ok {
		return
	}
	if len(s.toDelete) == 0 {
		s.firstDone = time.Now()
	}
	s.toDelete = append(s.toDelete, id)
	s.deleting[id] = host
}
