// Package cputime reads the CPU time the process has used, for benchmarks that report CPU time next
// to wall-clock time: on a machine shared with other load, CPU time is the steadier figure.
package cputime
