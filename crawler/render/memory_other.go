//go:build !linux

package render

import "context"

// browserMemoryMB is not measured outside Linux: Options.MaxMemoryMB
// bounds nothing there.
func browserMemoryMB(context.Context) (int, bool) { return 0, false }
