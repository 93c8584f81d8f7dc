// Command compare runs pi (0.73.1 or 1.6.0, -pi-version) and pi-go side by side against identical
// scripted OpenAI-compatible servers and reports every difference in what they print, send and store:
// the JSON event stream, request bodies, session files (both directions), the RPC protocol,
// print-mode errors and --list-models. It is a manual check (it needs Node and an installed pi; see
// ../README.md); nothing in `make test` runs it. With -record-fixtures it records pi's own output as
// golden fixtures instead (see record.go).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// check is one comparison; it records findings in the report and returns an error only when it could
// not run at all.
type check struct {
	name string
	run  func(c *checker) error
}

var checks = []check{
	{"json", checkJSONMode},
	{"rpc", checkRPC},
	{"rpc-misc", checkRPCMisc},
	{"sessions", checkSessions},
	{"cli", checkCLI},
}

// checker carries what every check needs.
type checker struct {
	out  string
	pi   program
	pigo program
	rep  *report
	// ver is the pi version under test; piPackage its package directory (named in its prompt).
	ver       *piVersion
	piPackage string

	rpcPi, rpcGo *rpcRun // the RPC scenario's runs, once made
}

func main() {
	verName := flag.String("pi-version", "0.73.1", "the pi under test: "+piVersionNames())
	pi16 := flag.Bool("pi16", false, "short for -pi-version 1.6.0")
	piCmd := flag.String("pi", "", "command that starts pi, split on spaces (default: Node and cli.js from the version's install location, see the README)")
	pigo := flag.String("pigo", "", "pi-go binary (default: built from ./cmd/pi into the output dir)")
	out := flag.String("out", "", "output directory for workspaces and transcripts (default: a new temp dir)")
	only := flag.String("only", "", "comma-separated checks to run: "+checkNames())
	verbose := flag.Bool("v", false, "print matching items too")
	lines := flag.Int("lines", 40, "difference lines printed per comparison (0: all; out/diffs.txt always has all)")
	summary := flag.Bool("summary", false, "end with the kinds of differences per check and how often each occurred")
	record := flag.String("record-fixtures", "", "record pi's own output as golden fixtures into this directory (pi-go is not run)")
	flag.Parse()
	if *pi16 {
		*verName = "1.6.0"
	}
	ver := findPiVersion(*verName)
	if ver == nil {
		fail(fmt.Errorf("unknown -pi-version %q (known: %s)", *verName, piVersionNames()))
	}
	if *piCmd == "" {
		*piCmd = ver.defaultCommand()
	}

	dir := *out
	if dir == "" {
		d, err := os.MkdirTemp("", "pi-interop-")
		if err != nil {
			fail(err)
		}
		dir = d
	}
	dir, _ = filepath.Abs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	piProg := program{name: "pi", argv: strings.Fields(*piCmd)}
	if res, err := exec.Command(piProg.argv[0], append(piProg.argv[1:], "--version")...).CombinedOutput(); err != nil {
		fail(fmt.Errorf("pi does not start (%s): %w: %s\ninstall it with:\n  %s", *piCmd, err, strings.TrimSpace(string(res)),
			strings.Join(ver.install, "\n  ")))
	} else if v := strings.TrimSpace(string(res)); v != ver.name {
		fmt.Fprintf(os.Stderr, "warning: pi reports version %s, the checks are set for %s (-pi-version)\n", v, ver.name)
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	if *record != "" {
		if err := recordFixtures(*record, dir, piProg, ver, want); err != nil {
			fail(err)
		}
		return
	}
	if *pigo == "" {
		*pigo = filepath.Join(dir, "pi-go")
		build := exec.Command("go", "build", "-o", *pigo, "./cmd/pi")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fail(fmt.Errorf("building pi-go (run from the module root): %w", err))
		}
	}
	rep, err := newReport(filepath.Join(dir, "diffs.txt"), *verbose, *lines)
	if err != nil {
		fail(err)
	}
	c := &checker{
		out:       dir,
		pi:        piProg,
		pigo:      program{name: "pi-go", argv: []string{*pigo}},
		rep:       rep,
		ver:       ver,
		piPackage: packageDir(piProg.argv),
	}
	fmt.Printf("pi %s: %s\npi-go: %s\n", ver.name, *piCmd, *pigo)
	for _, p := range []*program{&c.pi, &c.pigo} {
		if p.settles, err = c.probeSettles(*p); err != nil {
			fail(fmt.Errorf("probing %s: %w", p.name, err))
		}
		fmt.Printf("%s ends a run with agent_settled: %v\n", p.name, p.settles)
	}
	for _, ch := range checks {
		if len(want) > 0 && !want[ch.name] {
			continue
		}
		c.rep.section(ch.name)
		if err := ch.run(c); err != nil {
			c.rep.errorf("check %s could not finish: %v", ch.name, err)
		}
	}
	if *summary {
		c.rep.printSummary()
	}
	c.rep.printf("\nworkspaces and transcripts: %s (every difference line: diffs.txt)\n", dir)
	if c.rep.differences > 0 || c.rep.errors > 0 {
		c.rep.printf("%d difference(s), %d error(s)\n", c.rep.differences, c.rep.errors)
		c.rep.close()
		os.Exit(1)
	}
	c.rep.printf("no differences\n")
	c.rep.close()
}

func checkNames() string {
	var n []string
	for _, c := range checks {
		n = append(n, c.name)
	}
	sort.Strings(n)
	return strings.Join(n, ",")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compare:", err)
	os.Exit(2)
}
