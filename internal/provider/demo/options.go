package demo

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// EnvDelay names the environment variable that sets the pace when Options leave it unset: milliseconds
// ("20"), a Go duration ("20ms", "1s"), or "0" for full speed.
const EnvDelay = "PI_DEMO_DELAY"

// DefaultDelay is the pause before each word-sized chunk: about the pace of someone reading along.
const DefaultDelay = 20 * time.Millisecond

// Options configure the demo transport. The zero value streams at DefaultDelay, or at the pace
// PI_DEMO_DELAY gives.
type Options struct {
	// Delay is the average pause before each word-sized chunk (sentence ends and paragraphs pause
	// longer, reasoning and tool arguments stream faster, the first chunk waits like a real model's time
	// to first token). Zero means: PI_DEMO_DELAY if set, else DefaultDelay. Negative is invalid.
	Delay time.Duration
	// FullSpeed streams every chunk without pausing (tests, benchmarks). It wins over Delay and
	// PI_DEMO_DELAY.
	FullSpeed bool
	// Getenv reads PI_DEMO_DELAY; nil means os.Getenv. It is only consulted when Delay is zero and
	// FullSpeed is false.
	Getenv func(string) string
	// Now stamps the created field of responses; nil means time.Now.
	Now func() time.Time
}

// ParseDelay reads a PI_DEMO_DELAY value: a whole number of milliseconds or a Go duration; "0" means
// full speed. The error says what is accepted.
func ParseDelay(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		if ms < 0 {
			return 0, fmt.Errorf("%s=%q: the delay cannot be negative", EnvDelay, s)
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a delay: use milliseconds (20), a duration (20ms, 1s) or 0 for full speed", EnvDelay, s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s=%q: the delay cannot be negative", EnvDelay, s)
	}
	return d, nil
}

// delay resolves the effective pause per chunk; 0 means full speed.
func (o Options) delay() (time.Duration, error) {
	switch {
	case o.FullSpeed:
		return 0, nil
	case o.Delay < 0:
		return 0, fmt.Errorf("demo: Options.Delay %v is negative", o.Delay)
	case o.Delay > 0:
		return o.Delay, nil
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := getenv(EnvDelay); strings.TrimSpace(v) != "" {
		return ParseDelay(v)
	}
	return DefaultDelay, nil
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}
