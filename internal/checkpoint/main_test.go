package checkpoint

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps the machine's git configuration and global excludes file out of the tests: what a
// snapshot ignores must depend on the test alone (tests of the global excludes set their own).
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "checkpoint-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", home+"/.config")
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}
