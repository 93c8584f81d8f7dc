package responses

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a goroutine behind (a stream reader, a timer callback, a
// connection of a provider's client).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
