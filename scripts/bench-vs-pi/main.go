// Command bench-vs-pi measures pi-go and pi 1.6.0 side by side on the targets of issue 22 and prints
// one table: the same command of each program against the same scripted OpenAI-compatible server on
// 127.0.0.1, each run under GNU time (CPU time, wall time, peak RSS), the median of -runs runs.
//
//	go run ./scripts/bench-vs-pi                  # builds pi-go, installs Node 22 and pi 1.6.0 if needed
//	go run ./scripts/bench-vs-pi -pigo bin/pi -runs 5 -only print,resume
//
// Node 22 and pi 1.6.0 come from npm into -cache (default $PI_GO_TEST_CACHE or ~/.cache/pi-go-test,
// the cache `make deps` fills), outside the repository; a second run reuses them. Nothing is fetched
// when they are there. The machine is usually shared, so CPU time (user+system) is the figure to
// compare; wall time is shown for reference.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

func main() {
	pigo := flag.String("pigo", "", "pi-go binary (default: built from ./cmd/pi)")
	cache := flag.String("cache", defaultCache(), "where Node 22 and pi 1.6.0 are installed (npm)")
	runs := flag.Int("runs", 3, "runs of each program per target; the median is reported")
	only := flag.String("only", "", "comma-separated targets: print, json, rpc, resume, concurrent, tui (or tui-regular, tui-fullscreen), longrun (default all)")
	deltas := flag.Int("deltas", 200_000, "deltas of the streamed answer")
	turns := flag.Int("turns", 5000, "turns of the resumed session (5,000 make 50 MB)")
	procs := flag.Int("procs", 50, "concurrent RPC processes")
	longTurns := flag.Int("long-turns", 1000, "turns of pi-go's long RPC session (target longrun)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, options{pigo: *pigo, cache: *cache, runs: *runs, only: *only, deltas: *deltas, turns: *turns, procs: *procs, longTurns: *longTurns}); err != nil {
		fmt.Fprintln(os.Stderr, "bench-vs-pi:", err)
		os.Exit(1)
	}
}

type options struct {
	pigo, cache, only    string
	runs                 int
	deltas, turns, procs int
	longTurns            int
}

// row is a target's result: the median sample of each program.
type row struct {
	name       string
	pigo, pi16 sample
}

func run(ctx context.Context, o options) error {
	if _, err := os.Stat(gnuTime); err != nil {
		return fmt.Errorf("%s is needed to measure each run (Debian: apt-get install time): %w", gnuTime, err)
	}
	if o.runs < 1 {
		return fmt.Errorf("-runs %d: want at least 1", o.runs)
	}
	root, err := os.MkdirTemp("", "bench-vs-pi-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if o.pigo == "" {
		o.pigo = filepath.Join(root, "pi-go")
		fmt.Fprintln(os.Stderr, "building pi-go")
		build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", o.pigo, "./cmd/pi")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building pi-go (run from the module root): %w\n%s", err, out)
		}
	}
	if o.pigo, err = filepath.Abs(o.pigo); err != nil {
		return err
	}
	pi, err := installPi(o.cache)
	if err != nil {
		return err
	}

	all := []struct {
		key string
		t   target
	}{
		{"print", streamTarget("print", o.deltas/10)},
		{"print", streamTarget("print", o.deltas)},
		{"json", streamTarget("json", o.deltas)},
		{"rpc", streamTarget("rpc", o.deltas)},
		{"resume", resumeTarget(o.turns)},
		{"concurrent", concurrentTarget(o.procs)},
	}
	for _, mode := range []string{"regular", "fullscreen"} {
		all = append(all,
			struct {
				key string
				t   target
			}{"tui-" + mode, tuiTarget(mode, o.deltas/10)},
			struct {
				key string
				t   target
			}{"tui-" + mode, tuiTarget(mode, o.deltas)},
			struct {
				key string
				t   target
			}{"tui-" + mode, tuiIdleTarget(mode)})
	}
	var keys []string
	if o.only != "" {
		keys = strings.Split(o.only, ",")
	}
	var rows []row
	for i, t := range all {
		// "tui" selects the TUI rows of both modes, "tui-regular" or "tui-fullscreen" those of one.
		if keys != nil && !slices.Contains(keys, t.key) && !(slices.Contains(keys, "tui") && strings.HasPrefix(t.key, "tui-")) {
			continue
		}
		r, err := measureTarget(ctx, filepath.Join(root, fmt.Sprint(i)), t.t, o, pi)
		if err != nil {
			// The rows measured so far are still worth having (pi's 50-process run takes minutes).
			printTable(os.Stdout, rows)
			return fmt.Errorf("%s: %w", t.t.name, err)
		}
		rows = append(rows, r)
	}
	if len(rows) > 0 {
		printTable(os.Stdout, rows)
	}
	if keys == nil || slices.Contains(keys, "longrun") {
		// pi-go alone: its memory over a long interactive session (issue 22's leak check).
		fmt.Fprintf(os.Stderr, "measuring pi-go's %d-turn RPC session\n", o.longTurns)
		r, err := runLongSession(ctx, filepath.Join(root, "longrun"), o.pigo, o.longTurns)
		if err != nil {
			return fmt.Errorf("long RPC session: %w", err)
		}
		printLongRun(os.Stdout, r)
	}
	return nil
}

// measureTarget runs both programs o.runs times each, alternating, and keeps each one's medians.
func measureTarget(ctx context.Context, root string, t target, o options, pi piInstall) (row, error) {
	fmt.Fprintf(os.Stderr, "measuring %s\n", t.name)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return row{}, err
	}
	runOne, models, settings, cleanup, err := t.setup(ctx, root)
	if err != nil {
		return row{}, err
	}
	defer cleanup()
	w, err := newWorkspace(root)
	if err != nil {
		return row{}, err
	}
	progs := []program{{name: "pi-go", argv: []string{o.pigo}}, {name: "pi-1.6.0", argv: []string{pi.node, pi.cli}}}
	for i := range progs {
		if progs[i].env, err = w.env(progs[i].name, models, settings); err != nil {
			return row{}, err
		}
	}
	samples := make([][]sample, len(progs))
	runs := o.runs
	if t.once {
		runs = 1
	}
	for range runs {
		for i, p := range progs {
			s, err := runOne(ctx, p, w)
			if err != nil {
				return row{}, err
			}
			samples[i] = append(samples[i], s)
		}
	}
	return row{name: t.name, pigo: median(samples[0]), pi16: median(samples[1])}, nil
}

// median takes the median of each measure on its own.
func median(ss []sample) sample {
	pick := func(f func(sample) int64) int64 {
		v := make([]int64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return sample{
		wall: time.Duration(pick(func(s sample) int64 { return int64(s.wall) })),
		cpu:  time.Duration(pick(func(s sample) int64 { return int64(s.cpu) })),
		rss:  pick(func(s sample) int64 { return s.rss }),
		anon: pick(func(s sample) int64 { return s.anon }),
		out:  pick(func(s sample) int64 { return s.out }),
		cut:  slices.ContainsFunc(ss, func(s sample) bool { return s.cut }),
	}
}

func printTable(w *os.File, rows []row) {
	host, _ := os.Hostname()
	fmt.Fprintf(w, "\n%s, %d CPUs (%s), %s/%s, %s\n\n", cpuModel(), runtime.NumCPU(), host, runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "target\tpi-go CPU s\twall s\tpeak RSS MB\tpi 1.6.0 CPU s\twall s\tpeak RSS MB\tCPU ratio\tRSS ratio\t")
	cut := false
	for _, r := range rows {
		at := func(s sample) string {
			if s.cut {
				cut = true
				return "≥"
			}
			return ""
		}
		fmt.Fprintf(tw, "%s\t%s%.2f\t%s%.2f\t%.1f\t%s%.2f\t%s%.2f\t%.1f\t%s%.1fx\t%.1fx\t\n", r.name,
			at(r.pigo), r.pigo.cpu.Seconds(), at(r.pigo), r.pigo.wall.Seconds(), mb(r.pigo.rss),
			at(r.pi16), r.pi16.cpu.Seconds(), at(r.pi16), r.pi16.wall.Seconds(), mb(r.pi16.rss),
			at(r.pi16), r.pi16.cpu.Seconds()/max(r.pigo.cpu.Seconds(), 0.005), float64(r.pi16.rss)/float64(max(r.pigo.rss, 1)))
	}
	tw.Flush()
	for _, r := range rows {
		if r.pigo.anon > 0 || r.pi16.anon > 0 {
			fmt.Fprintf(w, "%s: anonymous (RssAnon) %.1f MB, pi 1.6.0 %.1f MB (%.1fx)\n", r.name,
				mb(r.pigo.anon), mb(r.pi16.anon), float64(r.pi16.anon)/float64(max(r.pigo.anon, 1)))
		}
	}
	if cut {
		fmt.Fprintf(w, "\n≥: the run was stopped at the time limit (%s) before the answer was whole on the screen.\n", tuiBurstLimit)
	}
	fmt.Fprintln(w, "\nCPU = user + system time (GNU time); the median of each measure over the runs. Ratio = pi 1.6.0 / pi-go.")
}

func mb(b int64) float64 { return float64(b) / 1e6 }

// cpuModel is /proc/cpuinfo's first "model name", when there is one.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for line := range strings.Lines(string(data)) {
		if name, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
		}
	}
	return runtime.GOARCH
}
