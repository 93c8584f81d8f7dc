//go:build !unix

package checkpoint

// lockFile is a no-op where flock is not available: processes sharing a store are then serialised
// only by git's own index.lock, and a command that finds it taken fails with git's message.
func lockFile(string) (func(), error) { return func() {}, nil }
