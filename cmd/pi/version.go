package main

import (
	"runtime/debug"
	"strings"
)

// version is pi-go's release version, raised with each release (tagged v<version>). A build may
// override it: go build -ldflags "-X main.version=…" (the Makefile's VERSION=…).
var version = "0.1.0"

// commit is the source revision, when the build names it (-ldflags "-X main.commit=…"); otherwise
// --version takes the one Go records from git when it builds in a checkout (vcs.revision).
var commit = ""

// versionText is what --version prints: "pi-go 0.1.0 (commit 59f0237)", with "-dirty" after the
// commit when the tree had uncommitted changes, and without the parenthesis when no revision is known
// (go install of a module version, a build outside git).
func versionText() string {
	info, _ := debug.ReadBuildInfo()
	return formatVersion(version, commit, info)
}

func formatVersion(version, commit string, info *debug.BuildInfo) string {
	if commit == "" && info != nil {
		var revision, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if len(revision) > 7 {
			revision = revision[:7]
		}
		if commit = revision; commit != "" && modified == "true" {
			commit += "-dirty"
		}
	}
	text := "pi-go " + strings.TrimPrefix(version, "v") // a tag's v0.2.0 as the version 0.2.0
	if commit == "" {
		return text
	}
	return text + " (commit " + commit + ")"
}
