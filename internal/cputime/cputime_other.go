//go:build !unix

package cputime

import "time"

// Process is not known on this system.
func Process() (d time.Duration, ok bool) { return 0, false }
