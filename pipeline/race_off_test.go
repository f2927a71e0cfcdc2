//go:build !race

package pipeline_test

// raceEnabled is true under the race detector, which makes sync.Pool drop
// items on purpose and so distorts allocation counts.
const raceEnabled = false
