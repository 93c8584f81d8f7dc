package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// recoveryRun is one --mode json run in which pi 1.6 recovers from a failed answer: it omits the
// failed attempt with a context_edit (announced as entry_appended) and asks again.
type recoveryRun struct {
	name     string
	args     []string
	settings string
	// answers for pi; piGoAnswers for pi-go when they differ: with keepRecentTokens 1, pi 1.6 cuts the
	// overflowing turn and summarises its prefix in a second request, pi-go keeps the turn (see
	// ../README.md)
	answers, piGoAnswers []scenario.Spec
}

var serverError = scenario.Spec{Status: 500, Error: "The server had an error while processing your request."}

const overflowError = "This model's maximum context length is 20000 tokens. However, your messages resulted in 25000 tokens."

// recoveryRuns are the runs of the recovery fixture set (testdata/pi16/recovery).
var recoveryRuns = []recoveryRun{
	{name: "retry", args: []string{"--model", "mock/mock-model", "--mode", "json", "hi"}, settings: fastRetry,
		answers: []scenario.Spec{serverError, {Text: "Recovered."}}},
	{name: "overflow", args: []string{"--model", "mock/mock-small", "--mode", "json", "first", "second"}, settings: `{` + compactSmall + `}`,
		answers: []scenario.Spec{{Text: "First answer."}, {Status: 400, Error: overflowError},
			{Text: "## Goal\nSummary."}, {Text: "## Turn\nThe second request."}, {Text: "Second answer after compaction."}},
		piGoAnswers: []scenario.Spec{{Text: "First answer."}, {Status: 400, Error: overflowError},
			{Text: "## Goal\nSummary."}, {Text: "Second answer after compaction."}}},
	{name: "length", args: []string{"--model", "mock/mock-model", "--mode", "json", "first", "second"}, settings: `{` + compactSmall + `}`,
		answers: []scenario.Spec{{Text: "First answer."}, {Text: "Cut short", Finish: "length"},
			{Text: "## Goal\nSummary."}, {Text: "## Turn\nThe second request."}, {Text: "Second answer after compaction."}},
		piGoAnswers: []scenario.Spec{{Text: "First answer."}, {Text: "Cut short", Finish: "length"},
			{Text: "## Goal\nSummary."}, {Text: "Second answer after compaction."}}},
}

// runRecovery runs r in w with the answers meant for w's program.
func runRecovery(w *workspace, r recoveryRun, piGo bool) (result, error) {
	if err := os.WriteFile(filepath.Join(w.agent, "settings.json"), []byte(r.settings), 0o644); err != nil {
		return result{}, err
	}
	answers := r.answers
	if piGo && r.piGoAnswers != nil {
		answers = r.piGoAnswers
	}
	w.script(answers...)
	return w.run(r.args...)
}

// recordRecovery records each recovery run under dir/recovery/<name>: events.jsonl (stdout),
// session.jsonl, and requests/NNN.json, the last of which pi sent when it resumed that session
// (--session <file> -p next).
func (c *checker) recordRecovery(write func(set string, w *workspace, files map[string]string) error) error {
	for _, r := range recoveryRuns {
		if err := c.recordRecoveryRun(r, write); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) recordRecoveryRun(r recoveryRun, write func(set string, w *workspace, files map[string]string) error) error {
	w, err := newWorkspace(filepath.Join(c.out, "recovery-"+r.name), c.pi, "")
	if err != nil {
		return err
	}
	defer w.close()
	res, err := runRecovery(w, r, false)
	if err != nil {
		return err
	}
	if res.code != 0 {
		return fmt.Errorf("recovery %s: exit %d: %s", r.name, res.code, res.stderr)
	}
	files := map[string]string{"events.jsonl": res.stdout}
	if err := addSessions(files, w, "session.jsonl"); err != nil {
		return err
	}
	// pi resumes the session it wrote: the last request is what a resumed session sends.
	w.script(scenario.Spec{Text: "Next answer."})
	if res, err = w.run("--session", w.sessionFiles()[0], "-p", "next"); err != nil {
		return err
	}
	if res.code != 0 {
		return fmt.Errorf("recovery %s, resumed: exit %d: %s", r.name, res.code, res.stderr)
	}
	if err := addRequests(files, w, 0); err != nil {
		return err
	}
	return write(filepath.Join("recovery", r.name), w, files)
}

// recordProjectionResume has pi resume the hand-written session of dir/session-projection (context
// edits, usage entries, retain-none and nested compactions, a tool set of bash alone) with
// --session <copy> -p next, and records the request it sends as resume-request.json.
func (c *checker) recordProjectionResume(dir string) error {
	src := filepath.Join(dir, "session-projection", "session.jsonl")
	cwd, err := headerCwd(src)
	if err != nil {
		return err
	}
	w, err := newWorkspace(filepath.Join(c.out, "session-projection"), c.pi, cwd)
	if err != nil {
		return err
	}
	defer w.close()
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	cp := filepath.Join(w.root, "copy", "session.jsonl")
	if err := os.MkdirAll(filepath.Dir(cp), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(cp, data, 0o644); err != nil {
		return err
	}
	w.script(scenario.Spec{Text: "Next answer."})
	res, err := w.run("--session", cp, "-p", "next")
	if err != nil {
		return err
	}
	if res.code != 0 {
		return fmt.Errorf("session-projection resumed: exit %d: %s", res.code, res.stderr)
	}
	files := map[string]string{}
	if err := addRequests(files, w, 1); err != nil {
		return err
	}
	return writeFixtureSet(filepath.Join(dir, "session-projection"), w.root, c.piPackage,
		map[string]string{"resume-request.json": files["request.json"]})
}
