package extensions

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeTrustExtension is a protocol extension that handles project_trust as its name says
// (fake-trust-yes, -no, -undecided, -hang, -crash, -ask: asks a select and answers the choice) and
// logs every init and event to PI_GO_FAKE_TRUST_LOG as "<name> <what> <mode> <hasUI>".
func fakeTrustExtension(name string) {
	behaviour := strings.TrimPrefix(name, "fake-trust-")
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	send := func(v any) { _ = out.Encode(v) }
	logf := func(what string, m map[string]any) {
		f, err := os.OpenFile(os.Getenv("PI_GO_FAKE_TRUST_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s %v %v\n", name, what, m["mode"], m["hasUI"])
			f.Close()
		}
	}
	for in.Scan() {
		var m map[string]any
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		id := m["id"]
		switch m["type"] {
		case "init":
			logf("init", m)
			send(map[string]any{"type": "register", "protocol": 2, "name": name, "events": []string{"project_trust", "session_start"}})
		case "event":
			ev, _ := m["event"].(map[string]any)
			logf(fmt.Sprint(ev["type"]), ev)
			if id == nil || ev["type"] != "project_trust" {
				if id != nil {
					send(map[string]any{"type": "result", "id": id, "result": nil})
				}
				continue
			}
			var answer any
			switch behaviour {
			case "hang":
				continue
			case "crash":
				os.Exit(3)
			case "ask":
				send(map[string]any{"type": "request", "id": "r1", "method": "ui", "params": map[string]any{
					"method": "select", "title": "Trust " + fmt.Sprint(ev["cwd"]) + "?", "options": []string{"yes", "no"}}})
				for in.Scan() {
					var r map[string]any
					if json.Unmarshal(in.Bytes(), &r) == nil && r["type"] == "response" && r["id"] == "r1" {
						res, _ := r["result"].(map[string]any)
						answer = map[string]any{"trusted": res["value"]}
						break
					}
				}
			case "yes":
				answer = map[string]any{"trusted": "yes", "remember": true}
			default:
				answer = map[string]any{"trusted": behaviour}
			}
			send(map[string]any{"type": "result", "id": id, "result": answer})
		case "session_entries":
			logf("session_entries", m)
		case "shutdown":
			return
		}
	}
}

// trustFakes links the test binary under the names given (its behaviour) and logs to a file.
func trustFakes(t *testing.T, names ...string) (paths []string, log func() string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range names {
		p := filepath.Join(dir, "fake-trust-"+n)
		if err := os.Symlink(exe, p); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	file := filepath.Join(dir, "log")
	t.Setenv("PI_GO_FAKE_TRUST_LOG", file)
	return paths, func() string { b, _ := os.ReadFile(file); return string(b) }
}

func pids(procs []*process) map[string]int {
	out := map[string]int{}
	for _, p := range procs {
		out[filepath.Base(p.path)] = p.cmd.Process.Pid
	}
	return out
}

// The preloaded extensions are asked in load order until one decides; the final set keeps their
// processes, adds the project's, and is in its own order; the project's are never asked.
func TestProjectTrustPreloadThenExtend(t *testing.T) {
	paths, log := trustFakes(t, "undecided", "yes", "no", "local")
	und, yes, no, local := paths[0], paths[1], paths[2], paths[3]
	errs := &errorLog{}
	h := New(Config{Cwd: t.TempDir(), Mode: "print", Executables: []string{und, yes, no}, OnError: errs.add})
	t.Cleanup(h.Close)
	ctx := context.Background()
	h.Preload(ctx)
	if h.Started() {
		t.Fatal("Preload made the host ready: the final set is not loaded yet")
	}
	v, ok := h.ProjectTrust(ctx, "/w/proj", "print", false)
	if !ok || v != (TrustVerdict{Trusted: true, Remember: true}) {
		t.Fatalf("verdict %+v %v", v, ok)
	}
	before := pids(h.pre)

	h.SetExtensions(nil, []string{local, und, yes, no})
	h.Start()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range h.procs {
		order = append(order, filepath.Base(p.path))
	}
	if want := []string{"fake-trust-local", "fake-trust-undecided", "fake-trust-yes", "fake-trust-no"}; !slices.Equal(order, want) {
		t.Fatalf("final order %q, want %q", order, want)
	}
	after := pids(h.procs)
	for name, pid := range before {
		if after[name] != pid {
			t.Errorf("%s restarted: pid %d, then %d", name, pid, after[name])
		}
	}
	got := log()
	for _, want := range []string{
		"fake-trust-undecided project_trust print false\n",
		"fake-trust-yes project_trust print false\n",
		"fake-trust-local init print",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "fake-trust-yes init") != 1 || strings.Contains(got, "fake-trust-no project_trust") ||
		strings.Contains(got, "fake-trust-local project_trust") {
		t.Errorf("asked after the decision, asked a project extension, or started twice:\n%s", got)
	}
	if e := errs.text(); e != "" {
		t.Errorf("errors: %s", e)
	}
}

// Only the sidecar hears of an in-memory session's entries: not an executable started after the
// preload beside the kept sidecar.
func TestProjectTrustExtendSessionEntriesSidecarOnly(t *testing.T) {
	paths, log := trustFakes(t, "sidecar", "local")
	errs := &errorLog{}
	sc := &Sidecar{Node: paths[0], Script: "sidecar.mjs"} // the fake ignores the sidecar's arguments
	h := New(Config{Cwd: t.TempDir(), Mode: "print", Sidecar: sc, OnError: errs.add,
		SessionEntries: func() *SessionEntries { return &SessionEntries{LeafID: "e1"} }})
	t.Cleanup(h.Close)
	ctx := context.Background()
	h.Preload(ctx)
	h.SetExtensions(sc, paths[1:])
	h.Start()
	if err := h.Wait(ctx); err != nil || len(h.procs) != 2 {
		t.Fatalf("start: %v, %d processes", err, len(h.procs))
	}
	h.Emit(ctx, "session_start", map[string]any{"type": "session_start"}) // answered by both
	got := log()
	if !strings.Contains(got, "fake-trust-sidecar session_entries") || strings.Contains(got, "fake-trust-local session_entries") {
		t.Errorf("session_entries should reach the sidecar only:\n%s", got)
	}
	if e := errs.text(); e != "" {
		t.Errorf("errors: %s", e)
	}
}

// A handler that hangs times out and one that crashes fails; both are reported and the next
// extension is asked. Nobody deciding is no verdict.
func TestProjectTrustFailuresFallThrough(t *testing.T) {
	paths, _ := trustFakes(t, "hang", "crash", "no", "undecided")
	errs := &errorLog{}
	h := New(Config{Cwd: t.TempDir(), Mode: "rpc", Executables: paths[:3], CallTimeout: 100 * time.Millisecond, OnError: errs.add})
	t.Cleanup(h.Close)
	h.Preload(context.Background())
	v, ok := h.ProjectTrust(context.Background(), "/w/proj", "rpc", false)
	if !ok || v.Trusted || v.Remember {
		t.Fatalf("verdict %+v %v, want a no", v, ok)
	}
	e := errs.text()
	if !strings.Contains(e, "project_trust: event after 100ms: extension did not answer in time") ||
		!strings.Contains(e, "project_trust: extension process exited") {
		t.Errorf("errors:\n%s", e)
	}

	h2 := New(Config{Cwd: t.TempDir(), Mode: "rpc", Executables: paths[3:], OnError: errs.add})
	t.Cleanup(h2.Close)
	h2.Preload(context.Background())
	if v, ok := h2.ProjectTrust(context.Background(), "/w/proj", "rpc", false); ok {
		t.Errorf("undecided gave %+v", v)
	}
}

// During project_trust the extension's dialogs reach the handler the caller set.
func TestProjectTrustDialog(t *testing.T) {
	paths, log := trustFakes(t, "ask")
	h := New(Config{Cwd: t.TempDir(), Mode: "tui", Executables: paths})
	t.Cleanup(h.Close)
	var asked string
	h.SetHandler(func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		asked = method + " " + string(params)
		return json.RawMessage(`{"value":"no"}`), nil
	})
	h.Preload(context.Background())
	v, ok := h.ProjectTrust(context.Background(), "/w/proj", "tui", true)
	if !ok || v.Trusted {
		t.Fatalf("verdict %+v %v", v, ok)
	}
	if asked != `ui {"method":"select","options":["yes","no"],"title":"Trust /w/proj?"}` {
		t.Errorf("asked %s", asked)
	}
	if !strings.Contains(log(), "fake-trust-ask project_trust tui true") {
		t.Errorf("log:\n%s", log())
	}
}

// The sidecar's load after project trust and its reload report each extension that fails to load
// once, as a load error of its path.
func TestSidecarLoadAndReloadReportFailures(t *testing.T) {
	pi := findPi(t, "1.6.0")
	dir := t.TempDir()
	good, broken := filepath.Join(dir, "good.ts"), filepath.Join(dir, "broken.ts")
	for p, src := range map[string]string{good: `export default function (pi) { pi.on("session_start", () => {}); }`, broken: `export default function (`} {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := writeScript(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	errs := &errorLog{}
	sc := &Sidecar{Node: pi.node, Script: script, Package: pi.pkg, Extensions: []string{good}}
	h := New(Config{Cwd: dir, AgentDir: dir, Mode: "print", Sidecar: sc, OnError: errs.add})
	t.Cleanup(h.Close)
	ctx := context.Background()
	h.Preload(ctx)
	h.SetExtensions(&Sidecar{Node: pi.node, Script: script, Package: pi.pkg, Extensions: []string{broken, good}}, nil)
	h.Start()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	reports := func() (n int) {
		errs.mu.Lock()
		defer errs.mu.Unlock()
		for _, e := range errs.errs {
			if e.ExtensionPath == broken && e.Event == "load" {
				n++
			}
		}
		return n
	}
	if n := reports(); n != 1 {
		t.Fatalf("load: %d reports of %s:\n%s", n, broken, errs.text())
	}
	if err := h.Reload(ctx, []string{broken, good}); err != nil {
		t.Fatal(err)
	}
	if n := reports(); n != 2 {
		t.Fatalf("reload: %d reports of %s in all:\n%s", n, broken, errs.text())
	}
}

// A preload whose final set is empty (nothing left once trust was decided) and that is never
// started: Close still ends the preloaded processes.
func TestProjectTrustPreloadClosedWithoutStart(t *testing.T) {
	paths, _ := trustFakes(t, "yes")
	h := New(Config{Cwd: t.TempDir(), Mode: "print", Executables: paths})
	h.Preload(context.Background())
	if len(h.pre) != 1 {
		t.Fatalf("%d preloaded processes", len(h.pre))
	}
	p := h.pre[0]
	h.SetExtensions(nil, nil)
	h.Close()
	select {
	case <-p.done:
	default:
		t.Fatal("Close returned with the preloaded process still running")
	}
}
