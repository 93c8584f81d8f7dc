//go:build !linux

package main

// releaseExecutablePages is Linux's (exepages_linux.go); elsewhere it does nothing.
func releaseExecutablePages() int { return 0 }
