//go:build !unix

package anthropic

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
