//go:build !unix

package provider

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
