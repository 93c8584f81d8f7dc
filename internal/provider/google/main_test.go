package google

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a goroutine behind (a stream reader, a timer callback, a
// connection of a provider's client). opencensus, which genai imports, starts its stats worker when
// the program starts; it is no goroutine of ours.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}
