package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pi-go/pi-go/scripts/interop/fixture"
	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// recordFixtures runs pi alone through the scenarios of the checks and writes what it printed, sent
// and stored into dir, stabilised (see package fixture), as golden fixtures for hermetic tests:
//
//	json-tool-run/   the tool run in --mode json: events.jsonl, requests/NNN.json, session.jsonl
//	first-request/   one answer each with all seven tools, with an AGENTS.md, with an AGENTS.md and a
//	                 global skill: request.json, events.jsonl, session.jsonl
//	rpc/             the RPC scenario (started with --model): transcript.jsonl, requests/NNN.json,
//	                 session.jsonl, fork.jsonl, new-session.jsonl
//	rpc-new/         the commands RPC gained after 0.73.1 (pi >= 1.x only): transcript.jsonl,
//	                 requests/NNN.json, session.jsonl
//
//	recovery/        pi >= 1.x only: a retried 500 and an overflow recovered by compaction, each
//	                 in --mode json (recoveryRuns): events.jsonl, requests/NNN.json, session.jsonl
//
//	session-projection/resume-request.json  pi >= 1.x only: the request pi sends when it resumes the
//	                 hand-written session.jsonl beside it (the rest of that directory is not recorded)
//
// work is where the workspaces go; only, when not empty, names the sets to record (-only
// recovery,session-projection,json-tool-run: json-tool-run stands for the four sets recorded
// together), the others are left as they are.
func recordFixtures(dir, work string, prog program, ver *piVersion, only map[string]bool) error {
	rep, err := newReport(filepath.Join(work, "diffs.txt"), false, 0)
	if err != nil {
		return err
	}
	defer rep.close()
	c := &checker{out: filepath.Join(work, "record"), pi: prog, rep: rep, ver: ver, piPackage: packageDir(prog.argv)}
	if c.pi.settles, err = c.probeSettles(c.pi); err != nil {
		return fmt.Errorf("probing pi: %w", err)
	}
	wanted := func(set string) bool { return len(only) == 0 || only[set] }
	for _, set := range fixture.Sets {
		if !wanted(set) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, set)); err != nil {
			return err
		}
	}
	write := func(set string, w *workspace, files map[string]string) error {
		return writeFixtureSet(filepath.Join(dir, set), w.root, c.piPackage, files)
	}
	if ver.newerChecks && wanted("recovery") {
		if err := c.recordRecovery(write); err != nil {
			return err
		}
	}
	if ver.newerChecks && wanted("session-projection") {
		if err := c.recordProjectionResume(dir); err != nil {
			return err
		}
	}
	if len(only) > 0 && !only["json-tool-run"] {
		return nil // the sets below are recorded together
	}

	// The tool run in --mode json.
	w, err := newWorkspace(filepath.Join(c.out, "json-tool-run"), prog, "")
	if err != nil {
		return err
	}
	res, err := jsonToolRun(w)
	w.close()
	if err != nil {
		return err
	}
	if res.code != 0 {
		return fmt.Errorf("tool run: exit %d: %s", res.code, res.stderr)
	}
	files := map[string]string{"events.jsonl": res.stdout}
	if err := addRequests(files, w, 0); err != nil {
		return err
	}
	if err := addSessions(files, w, "session.jsonl"); err != nil {
		return err
	}
	if err := write("json-tool-run", w, files); err != nil {
		return err
	}

	// First requests: all tools; an AGENTS.md; an AGENTS.md and a skill.
	for _, fr := range []struct {
		name  string
		args  []string
		setup []func(*workspace) error
	}{
		{"all-tools", []string{"--tools", "read,bash,edit,write,grep,find,ls"}, nil},
		{"agents-md", nil, []func(*workspace) error{writeFile("proj", "AGENTS.md", "Use tabs.\n")}},
		{"agents-md-skill", nil, []func(*workspace) error{writeFile("proj", "AGENTS.md", "Use tabs.\n"), writeSkill("agent", "skills/demo-skill")}},
	} {
		w, err := newWorkspace(filepath.Join(c.out, "first-request-"+fr.name), prog, "")
		if err != nil {
			return err
		}
		for _, f := range fr.setup {
			if err := f(w); err != nil {
				return err
			}
		}
		w.script(scenario.Spec{Text: "Hello."})
		res, err := w.run(append(append([]string{"--mode", "json", "--model", "mock/mock-model"}, fr.args...), "hi")...)
		w.close()
		if err != nil {
			return err
		}
		if res.code != 0 {
			return fmt.Errorf("first request %s: exit %d: %s", fr.name, res.code, res.stderr)
		}
		files := map[string]string{"events.jsonl": res.stdout}
		if err := addRequests(files, w, 1); err != nil {
			return err
		}
		if err := addSessions(files, w, "session.jsonl"); err != nil {
			return err
		}
		if err := write(filepath.Join("first-request", fr.name), w, files); err != nil {
			return err
		}
	}

	// The RPC scenario, and the commands RPC gained after 0.73.1.
	w, err = newWorkspace(filepath.Join(c.out, "rpc"), prog, "")
	if err != nil {
		return err
	}
	run, err := c.rpcScenario(w, "--model", "mock/mock-model")
	w.close()
	if err != nil {
		return fmt.Errorf("rpc scenario: %w", err)
	}
	files = map[string]string{"transcript.jsonl": transcriptJSONL(run.log)}
	if err := addRequests(files, w, 0); err != nil {
		return err
	}
	for name, path := range map[string]string{"session.jsonl": run.sessionFile, "fork.jsonl": run.forkFile, "new-session.jsonl": run.newFile} {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("rpc scenario: %w", err)
		}
		files[name] = string(data)
	}
	if err := write("rpc", w, files); err != nil {
		return err
	}
	if !ver.newerChecks {
		return nil
	}
	w, err = newWorkspace(filepath.Join(c.out, "rpc-new"), prog, "")
	if err != nil {
		return err
	}
	run, err = c.rpcNewScenario(w)
	w.close()
	if err != nil {
		return fmt.Errorf("rpc-new scenario: %w", err)
	}
	files = map[string]string{"transcript.jsonl": transcriptJSONL(run.log)}
	if err := addRequests(files, w, 0); err != nil {
		return err
	}
	data, err := os.ReadFile(run.sessionFile)
	if err != nil {
		return fmt.Errorf("rpc-new scenario: %w", err)
	}
	files["session.jsonl"] = string(data)
	return write("rpc-new", w, files)
}

// addRequests adds the request bodies the workspace's server received: requests/NNN.json, or only
// the first n as request.json when n is 1.
func addRequests(files map[string]string, w *workspace, n int) error {
	reqs := w.srv.Requests()
	if len(reqs) == 0 {
		return fmt.Errorf("%s: no requests", w.root)
	}
	if n == 1 {
		files["request.json"] = string(reqs[0].Body)
		return nil
	}
	for i, r := range reqs {
		files[fmt.Sprintf("requests/%03d.json", i+1)] = string(r.Body)
	}
	return nil
}

// addSessions adds the workspace's one session file under name.
func addSessions(files map[string]string, w *workspace, name string) error {
	sf := w.sessionFiles()
	if len(sf) != 1 {
		return fmt.Errorf("%s: %d session files, want 1", w.root, len(sf))
	}
	data, err := os.ReadFile(sf[0])
	if err != nil {
		return err
	}
	files[name] = string(data)
	return nil
}

// transcriptJSONL writes an RPC transcript as JSONL, one record a line: {"dir":"in"|"out","msg":…}
// with the line as it was sent or printed, or {"dir":"in","raw":"…"} for a line that is no JSON.
func transcriptJSONL(log []record) string {
	var b strings.Builder
	for _, r := range log {
		dir := "out"
		if r.In {
			dir = "in"
		}
		if _, err := parseJSON([]byte(r.Raw)); err != nil {
			fmt.Fprintf(&b, `{"dir":%q,"raw":%s}`+"\n", dir, render(r.Raw))
			continue
		}
		fmt.Fprintf(&b, `{"dir":%q,"msg":%s}`+"\n", dir, r.Raw)
	}
	return b.String()
}

// writeFixtureSet stabilises the files of one set together, in the order of their names, and writes
// them under dir.
func writeFixtureSet(dir, root, piPackage string, files map[string]string) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	texts := make([]string, len(names))
	for i, n := range names {
		texts[i] = files[n]
	}
	texts = fixture.New(root, piPackage).Stabilise(texts)
	for i, n := range names {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(texts[i]), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("recorded %s (%d files)\n", dir, len(names))
	return nil
}
