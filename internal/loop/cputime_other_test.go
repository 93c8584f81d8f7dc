//go:build !unix

package loop

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
