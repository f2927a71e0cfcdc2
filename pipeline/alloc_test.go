package pipeline_test

import (
	"context"
	"testing"

	"github.com/linksrus/linksrus/pipeline"
)

// TestNoAllocationsPerPayload checks the steady-state promise: FIFO, fixed
// pool and broadcast stages allocate nothing per payload, so a whole run
// allocates only its fixed setup, however many payloads it moves.
func TestNoAllocationsPerPayload(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts need a full run without the race detector (its sync.Pool drops payloads on purpose)")
	}
	const payloads = 20000
	for name, stages := range map[string][]pipeline.StageRunner{
		"FIFO":            {pipeline.FIFO(passThrough), pipeline.FIFO(passThrough)},
		"FixedWorkerPool": {pipeline.FixedWorkerPool(passThrough, 3)},
		"Broadcast":       {pipeline.Broadcast(passThrough, passThrough)},
		"reference":       referenceStages(),
	} {
		t.Run(name, func(t *testing.T) {
			p := pipeline.New(stages...)
			run := func() {
				if err := p.Process(context.Background(), &benchSource{n: payloads}, discardSink{}); err != nil {
					t.Fatal(err)
				}
			}
			run() // fill the payload pool
			perRun := testing.AllocsPerRun(3, run)
			if perPayload := perRun / payloads; perPayload > 0.02 {
				t.Errorf("%.0f allocations per run of %d payloads = %.3f per payload, want none beyond setup", perRun, payloads, perPayload)
			} else {
				t.Logf("%.0f allocations per run of %d payloads", perRun, payloads)
			}
		})
	}
}
