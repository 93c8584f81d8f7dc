package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// encodeCwd is pi's session directory name for a cwd.
func encodeCwd(cwd string) string {
	s := strings.TrimPrefix(cwd, "/")
	s = strings.NewReplacer("/", "-", "\\", "-", ":", "-").Replace(s)
	return "--" + s + "--"
}

// headerCwd reads the cwd of a session file's header.
func headerCwd(path string) (string, error) {
	lines, err := readLines(path)
	if err != nil {
		return "", err
	}
	if len(lines) == 0 || lines[0].Str("type") != "session" {
		return "", fmt.Errorf("%s: no session header", path)
	}
	return lines[0].Str("cwd"), nil
}

// opened is what one program did with a copy of a session file.
type opened struct {
	w        *workspace
	copy     string
	original []byte
	res      result
	rpc      []*Obj
}

// openSession gives prog a copy of source and runs it the given way ("session": --session <copy> -p;
// "continue": -c -p from the session's directory; "session-id": --session <id prefix> -p from there; "rpc": --mode rpc --session <copy> and read-only
// queries; "rpc-switch": the same queries after switch_session from an in-memory session). extra are
// more flags (e.g. --model).
func (c *checker) openSession(name string, prog program, source, how string, extra ...string) (*opened, error) {
	cwd, err := headerCwd(source)
	if err != nil {
		return nil, err
	}
	w, err := newWorkspace(filepath.Join(c.out, name, prog.name), prog, cwd)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(source)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(w.root, "copy")
	if how == "continue" || how == "session-id" {
		dir = filepath.Join(w.agent, "sessions", encodeCwd(cwd))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	o := &opened{w: w, copy: filepath.Join(dir, filepath.Base(source)), original: data}
	if err := os.WriteFile(o.copy, data, 0o644); err != nil {
		return nil, err
	}
	w.script(scenario.Spec{Text: "Next answer."})
	switch how {
	case "session":
		o.res, err = w.run(append([]string{"--session", o.copy, "-p", "next"}, extra...)...)
	case "continue":
		o.res, err = w.run(append([]string{"-c", "-p", "next"}, extra...)...)
	case "session-id":
		lines, _ := readLines(source)
		prefix := lines[0].Str("id")[:13]
		o.res, err = w.run(append([]string{"--session", prefix, "-p", "next"}, extra...)...)
	case "rpc", "rpc-switch":
		var p *rpcProc
		if how == "rpc" {
			p, err = w.startRPC(append([]string{"--session", o.copy}, extra...)...)
		} else {
			p, err = w.startRPC(append([]string{"--no-session"}, extra...)...)
		}
		if err != nil {
			return nil, err
		}
		cmds := []map[string]any{}
		if how == "rpc-switch" {
			cmds = append(cmds, map[string]any{"type": "switch_session", "sessionPath": o.copy})
		}
		for _, cmd := range []string{"get_state", "get_messages", "get_session_stats", "get_fork_messages", "get_last_assistant_text"} {
			cmds = append(cmds, map[string]any{"type": cmd})
		}
		for _, cmd := range cmds {
			var r *Obj
			if r, err = p.call(cmd); err != nil {
				break
			}
			o.rpc = append(o.rpc, r)
		}
		if _, ferr := p.finish(); err == nil {
			err = ferr
		}
	}
	return o, err
}

// checkSessions opens the session files each program wrote in the RPC scenario (steering, abort,
// model and thinking changes, a name, bash, compaction; and the fork) in both programs, three ways,
// and compares the next request, the output and what each appended; pi's lines must stay byte for
// byte.
func checkSessions(c *checker) error {
	ra, rb, err := c.rpcRuns()
	if err != nil {
		return err
	}
	type source struct {
		label, path string
		few         bool // opened with --session and over RPC only
	}
	sources := []source{
		{"pi's session", ra.sessionFile, false},
		{"pi's fork", ra.forkFile, false},
		{"pi-go's session", rb.sessionFile, false},
		{"pi-go's fork", rb.forkFile, false},
	}
	// Sessions in which each program recovered from a failed answer (pi 1.6 and pi-go omit the
	// failed attempt with a context_edit; pi 0.73.1 ignores such entries), and a file in pi 1.6's
	// format with context edits, usage entries and retain-none compactions (testdata/pi16).
	for _, r := range recoveryRuns {
		pa, pb, err := c.recoverySessions(r)
		if err != nil {
			c.rep.errorf("recovery run %s: %v", r.name, err)
			continue
		}
		sources = append(sources, source{"pi's session after a recovered " + r.name, pa, true},
			source{"pi-go's session after a recovered " + r.name, pb, true})
	}
	if projection, err := filepath.Abs(filepath.Join("testdata", "pi16", "session-projection", "session.jsonl")); err == nil {
		if _, err := os.Stat(projection); err == nil {
			sources = append(sources, source{"a pi 1.6 file with context edits, usage entries and retain-none compactions", projection, true})
		}
	}
	ways := []struct {
		how   string
		extra []string
	}{
		{"session", nil},
		{"session", []string{"--model", "mock/mock-model"}},
		{"session", []string{"--model", "mock/mock-reasoner", "--thinking", "low"}},
		{"continue", nil},
		{"session-id", nil},
		{"rpc", nil},
		{"rpc-switch", nil},
	}
	for si, src := range sources {
		for wi, way := range ways {
			if src.few && !(len(way.extra) == 0 && (way.how == "session" || way.how == "rpc")) {
				continue
			}
			name := fmt.Sprintf("open-%d-%d", si+1, wi+1)
			what := fmt.Sprintf("%s opened with %s %s", src.label, way.how, strings.Join(way.extra, " "))
			oa, err := c.openSession(name, c.pi, src.path, way.how, way.extra...)
			if err != nil {
				c.rep.errorf("%s in pi: %v", what, err)
				continue
			}
			ob, err := c.openSession(name, c.pigo, src.path, way.how, way.extra...)
			if err != nil {
				c.rep.errorf("%s in pi-go: %v", what, err)
				continue
			}
			c.compareOpened(what, oa, ob)
			oa.w.close()
			ob.w.close()
		}
	}
	return nil
}

func (c *checker) compareOpened(what string, oa, ob *opened) {
	if oa.rpc != nil || ob.rpc != nil {
		c.compareEvents(what+": rpc responses", oa.rpc, ob.rpc, c.norm(oa.w.root), c.norm(ob.w.root))
	} else {
		var d []string
		if oa.res.code != ob.res.code {
			d = append(d, fmt.Sprintf("exit code: pi %d, pi-go %d", oa.res.code, ob.res.code))
		}
		if oa.res.stdout != ob.res.stdout {
			d = append(d, fmt.Sprintf("stdout: pi %q, pi-go %q", oa.res.stdout, ob.res.stdout))
		}
		if oa.res.stderr != ob.res.stderr {
			d = append(d, fmt.Sprintf("stderr: pi %q, pi-go %q", oa.res.stderr, ob.res.stderr))
		}
		c.rep.diffs(what+": output", d)
		c.compareRequests(what, oa.w.requests(), ob.w.requests(), oa.w, ob.w)
	}
	// What each appended, and whether the original lines stayed as they were.
	var tails [2][]*Obj
	var raw [2]string
	norms := [2]*normaliser{c.norm(oa.w.root), c.norm(ob.w.root)}
	for i, o := range []*opened{oa, ob} {
		now, err := os.ReadFile(o.copy)
		if err != nil {
			c.rep.errorf("%s: %v", what, err)
			return
		}
		if !bytes.HasPrefix(now, o.original) {
			c.rep.diffs(what+": original lines", []string{fmt.Sprintf("%s rewrote the file (%d bytes before, %d after, first difference at byte %d)",
				o.w.prog.name, len(o.original), len(now), firstDiff(now, o.original))})
			continue
		}
		all, _ := parseLines(now)
		norms[i].nameEntries(all)
		tails[i], _ = parseLines(now[len(o.original):])
		raw[i] = string(now[len(o.original):])
	}
	d := compareSequences(normaliseAll(tails[0], norms[0]), normaliseAll(tails[1], norms[1]))
	if len(d) == 0 {
		d = rawLinesDiff(raw[0], raw[1], oa.w.root, ob.w.root)
	}
	c.rep.diffs(what+": appended entries", d)
}

func firstDiff(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// recoverySessions runs r in both programs and returns the session file each wrote.
func (c *checker) recoverySessions(r recoveryRun) (piFile, piGoFile string, err error) {
	wa, wb, err := c.pair("recovery-" + r.name)
	if err != nil {
		return "", "", err
	}
	defer wa.close()
	defer wb.close()
	var files [2]string
	for i, w := range []*workspace{wa, wb} {
		res, err := runRecovery(w, r, i == 1)
		if err != nil {
			return "", "", err
		}
		sf := w.sessionFiles()
		if len(sf) != 1 {
			return "", "", fmt.Errorf("%s: %d session files, want 1 (exit %d: %s)", w.prog.name, len(sf), res.code, res.stderr)
		}
		files[i] = sf[0]
	}
	return files[0], files[1], nil
}
