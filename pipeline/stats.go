package pipeline

import (
	"sync/atomic"
	"time"
)

// StageStats are the counters of one stage. In, Out, Dropped, Failed and
// Abandoned count payloads; for Broadcast every copy counts, so a payload
// entering an N-way broadcast adds N to In.
type StageStats struct {
	// Stage is the stage's index, from 0.
	Stage int `json:"stage"`
	// In counts the payloads the stage took from its input.
	In uint64 `json:"in"`
	// Out counts the payloads the stage handed to the next component; when
	// the next one takes batches (see the package documentation, Cost),
	// once it took them.
	Out uint64 `json:"out"`
	// Dropped counts the payloads a processor dropped by returning nil.
	Dropped uint64 `json:"dropped"`
	// Failed counts the payloads whose processing returned an error or
	// panicked.
	Failed uint64 `json:"failed"`
	// Abandoned counts the payloads the stage released without forwarding
	// them because the run was stopping.
	Abandoned uint64 `json:"abandoned"`
	// InFlight is the number of payloads inside the stage: taken from the
	// input and not yet forwarded, dropped, failed or abandoned.
	InFlight int64 `json:"in_flight"`
	// ProcessingTime is the time the stage's workers spent busy, summed over
	// workers: processing and passing payloads on, but not waiting for
	// input or for room downstream. It is updated when a worker starts
	// waiting, so a live reading lags by the current busy period; measuring
	// at those moments instead of around every call keeps the clock out of
	// the per-payload cost.
	ProcessingTime time.Duration `json:"processing_time_ns"`
}

// Stats describes one run of a pipeline. It marshals to JSON as a summary.
type Stats struct {
	// Emitted counts the payloads the source put into the pipeline.
	Emitted uint64 `json:"emitted"`
	// Stages has one entry per stage, in order.
	Stages []StageStats `json:"stages"`
	// Consumed counts the payloads the sink accepted.
	Consumed uint64 `json:"consumed"`
	// SinkFailed counts the payloads the sink returned an error for.
	SinkFailed uint64 `json:"sink_failed"`
	// Abandoned counts the payloads the pipeline itself released because
	// the run was stopping: those waiting between stages, at the sink, or
	// just read from the source.
	Abandoned uint64 `json:"abandoned"`
}

// stageStats holds the live counters of one stage. Each stage gets its own,
// padded so that two stages never share a cache line.
type stageStats struct {
	_         [64]byte
	in        atomic.Uint64
	out       atomic.Uint64
	dropped   atomic.Uint64
	failed    atomic.Uint64
	abandoned atomic.Uint64
	busy      atomic.Int64
	_         [64]byte
}

func (s *stageStats) snapshot(stage int) StageStats {
	// Read the exits before the entries so that InFlight is never negative
	// while payloads move.
	out, dropped, failed, abandoned := s.out.Load(), s.dropped.Load(), s.failed.Load(), s.abandoned.Load()
	in := s.in.Load()
	return StageStats{
		Stage:          stage,
		In:             in,
		Out:            out,
		Dropped:        dropped,
		Failed:         failed,
		Abandoned:      abandoned,
		InFlight:       int64(in) - int64(out+dropped+failed+abandoned),
		ProcessingTime: time.Duration(s.busy.Load()),
	}
}

// runStats holds the live counters of one run.
type runStats struct {
	emitted    atomic.Uint64
	consumed   atomic.Uint64
	sinkFailed atomic.Uint64
	abandoned  atomic.Uint64
	stages     []*stageStats
}

func newRunStats(stages int) *runStats {
	rs := &runStats{stages: make([]*stageStats, stages)}
	for i := range rs.stages {
		rs.stages[i] = new(stageStats)
	}
	return rs
}

func (rs *runStats) snapshot() Stats {
	st := Stats{Stages: make([]StageStats, len(rs.stages))}
	for i, s := range rs.stages {
		st.Stages[i] = s.snapshot(i)
	}
	st.Emitted = rs.emitted.Load()
	st.Consumed = rs.consumed.Load()
	st.SinkFailed = rs.sinkFailed.Load()
	st.Abandoned = rs.abandoned.Load()
	return st
}
