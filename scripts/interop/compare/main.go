// Command compare runs pi 0.73.1 and pi-go side by side against identical scripted OpenAI-compatible
// servers and reports every difference in what they print, send and store: the JSON event stream,
// request bodies, session files (both directions), the RPC protocol, print-mode errors and
// --list-models. It is a manual check (it needs Node and an installed pi; see ../README.md); nothing
// in `make test` runs it.
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

	rpcPi, rpcGo *rpcRun // the RPC scenario's runs, once made
}

func main() {
	piCmd := flag.String("pi", defaultPi(), "command that starts pi 0.73.1 (split on spaces)")
	pigo := flag.String("pigo", "", "pi-go binary (default: built from ./cmd/pi into the output dir)")
	out := flag.String("out", "", "output directory for workspaces and transcripts (default: a new temp dir)")
	only := flag.String("only", "", "comma-separated checks to run: "+checkNames())
	verbose := flag.Bool("v", false, "print matching items too")
	flag.Parse()

	dir := *out
	if dir == "" {
		d, err := os.MkdirTemp("", "pi-interop-")
		if err != nil {
			fail(err)
		}
		dir = d
	}
	dir, _ = filepath.Abs(dir)
	if *pigo == "" {
		*pigo = filepath.Join(dir, "pi-go")
		build := exec.Command("go", "build", "-o", *pigo, "./cmd/pi")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fail(fmt.Errorf("building pi-go (run from the module root): %w", err))
		}
	}
	c := &checker{
		out:  dir,
		pi:   program{name: "pi", argv: strings.Fields(*piCmd)},
		pigo: program{name: "pi-go", argv: []string{*pigo}},
		rep:  &report{verbose: *verbose},
	}
	if res, err := exec.Command(c.pi.argv[0], append(c.pi.argv[1:], "--version")...).CombinedOutput(); err != nil {
		fail(fmt.Errorf("pi does not start (%s): %w", *piCmd, err))
	} else if v := strings.TrimSpace(string(res)); v != "0.73.1" {
		fmt.Fprintf(os.Stderr, "warning: pi reports version %s, the reference is 0.73.1\n", v)
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
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
	fmt.Printf("\nworkspaces and transcripts: %s\n", dir)
	if c.rep.differences > 0 || c.rep.errors > 0 {
		fmt.Printf("%d difference(s), %d error(s)\n", c.rep.differences, c.rep.errors)
		os.Exit(1)
	}
	fmt.Println("no differences")
}

func defaultPi() string {
	if v := os.Getenv("PI_JS"); v != "" {
		return "node " + v
	}
	return "node /tmp/pi073/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"
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

// report prints findings as they come.
type report struct {
	verbose     bool
	differences int
	errors      int
}

func (r *report) section(name string) { fmt.Printf("\n=== %s\n", name) }

// same records a comparison that matched.
func (r *report) same(what string) {
	if r.verbose {
		fmt.Printf("  same: %s\n", what)
	}
}

// diffs records the differences of one comparison (none: it matched).
func (r *report) diffs(what string, d []string) {
	if len(d) == 0 {
		r.same(what)
		return
	}
	r.differences++
	fmt.Printf("  DIFF %s:\n", what)
	for i, line := range d {
		if i == 40 {
			fmt.Printf("    … %d more\n", len(d)-i)
			break
		}
		fmt.Printf("    %s\n", line)
	}
}

// note records a known, accepted difference.
func (r *report) note(format string, args ...any) {
	fmt.Printf("  note: %s\n", fmt.Sprintf(format, args...))
}

func (r *report) errorf(format string, args ...any) {
	r.errors++
	fmt.Printf("  ERROR: %s\n", fmt.Sprintf(format, args...))
}
