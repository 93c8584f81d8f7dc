package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionText(t *testing.T) {
	stamped := func(settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	rev := "59f0237c4a1d9e8b7f6a5c4d3e2f1a0b9c8d7e6f"
	tests := []struct {
		name            string
		version, commit string
		info            *debug.BuildInfo
		want            string
	}{
		{"the Makefile's commit", "0.1.0", "59f0237", stamped("vcs.revision", "ffffffff"), "pi-go 0.1.0 (commit 59f0237)"},
		{"the Makefile's dirty commit", "0.1.0", "59f0237-dirty", nil, "pi-go 0.1.0 (commit 59f0237-dirty)"},
		{"Go's vcs stamp", "0.1.0", "", stamped("vcs.revision", rev, "vcs.modified", "false"), "pi-go 0.1.0 (commit 59f0237)"},
		{"Go's vcs stamp, modified tree", "0.1.0", "", stamped("vcs.revision", rev, "vcs.modified", "true"), "pi-go 0.1.0 (commit 59f0237-dirty)"},
		{"no revision known", "0.1.0", "", stamped("GOOS", "linux"), "pi-go 0.1.0"},
		{"no build info", "0.1.0", "", nil, "pi-go 0.1.0"},
		{"a tag as the version", "v0.2.0", "abc1234", nil, "pi-go 0.2.0 (commit abc1234)"},
	}
	for _, tc := range tests {
		if got := formatVersion(tc.version, tc.commit, tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := versionText(); got[:len("pi-go "+version)] != "pi-go "+version {
		t.Errorf("versionText() = %q", got)
	}
}
