package render_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every render's goroutines, and the browser's, end with Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
