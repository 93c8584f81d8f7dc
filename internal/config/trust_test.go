package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHasTrustRequiringProjectResources(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(t.TempDir(), "a", "b")
	if err := os.MkdirAll(filepath.Join(proj, ".pi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if HasTrustRequiringProjectResources(proj, home) {
		t.Error("a bare .pi directory needs no decision")
	}
	for _, name := range []string{"settings.json", "SYSTEM.md", "APPEND_SYSTEM.md", "mcp.json"} {
		p := filepath.Join(proj, ".pi", name)
		settingsWrite(t, p, "{}")
		if !HasTrustRequiringProjectResources(proj, home) {
			t.Errorf(".pi/%s needs a decision", name)
		}
		os.Remove(p)
	}
	if err := os.MkdirAll(filepath.Join(proj, ".pi", "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !HasTrustRequiringProjectResources(proj, home) {
		t.Error(".pi/prompts needs a decision")
	}
	os.Remove(filepath.Join(proj, ".pi", "prompts"))
	// .agents/skills in an ancestor counts; the user's own ~/.agents/skills does not.
	if err := os.MkdirAll(filepath.Join(home, ".agents", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if HasTrustRequiringProjectResources(home, home) {
		t.Error("~/.agents/skills is the user's")
	}
	if err := os.MkdirAll(filepath.Join(filepath.Dir(proj), ".agents", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !HasTrustRequiringProjectResources(proj, home) {
		t.Error("an ancestor's .agents/skills needs a decision")
	}
}

// trust.json as pi 1.6 reads and writes it: the nearest decision applies, keys are canonical paths,
// the file is written sorted with two-space indentation and a final newline.
func TestTrustStore(t *testing.T) {
	agent := t.TempDir()
	root := CanonicalPath(t.TempDir())
	proj := filepath.Join(root, "work", "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(proj, link); err != nil {
		t.Fatal(err)
	}
	s := NewTrustStore(agent)
	if d, err := s.Get(proj); err != nil || d != nil {
		t.Fatalf("empty store: %v %v", d, err)
	}
	opts := TrustOptions(link, false)
	if len(opts) != 3 || opts[0].Label != "Trust" || opts[1].Label != "Trust parent folder ("+filepath.Join(root, "work")+")" || opts[2].Label != "Do not trust" {
		t.Fatalf("options %+v", opts)
	}
	if err := s.SetMany(opts[1].Updates); err != nil { // trust the parent
		t.Fatal(err)
	}
	if d, _ := s.Get(link); d == nil || !d.Trusted || d.Path != filepath.Join(root, "work") {
		t.Errorf("inherited decision %+v", d)
	}
	if err := s.SetMany(opts[2].Updates); err != nil { // do not trust the project itself
		t.Fatal(err)
	}
	if d, _ := s.Get(proj); d == nil || d.Trusted || d.Path != proj {
		t.Errorf("own decision %+v", d)
	}
	data, _ := os.ReadFile(s.Path())
	want := "{\n  \"" + filepath.Join(root, "work") + "\": true,\n  \"" + proj + "\": false\n}\n"
	if string(data) != want {
		t.Errorf("trust.json:\n%s\nwant:\n%s", data, want)
	}
	if _, err := os.Stat(s.Path() + ".lock"); !os.IsNotExist(err) {
		t.Error("lock left behind")
	}
	if got := TrustOptions(proj, true); len(got) != 5 || got[2].Label != "Trust (this session only)" || got[4].Label != "Do not trust (this session only)" || got[2].Updates != nil {
		t.Errorf("startup options %+v", got)
	}

	for content, msg := range map[string]string{
		`[1]`:           "Invalid trust store " + s.Path() + ": expected an object",
		`{"/x": "yes"}`: "Invalid trust store " + s.Path() + `: value for "/x" must be true, false, or null`,
		`{`:             "Failed to read trust store " + s.Path(),
	} {
		settingsWrite(t, s.Path(), content)
		if _, err := s.Get(proj); err == nil || !strings.HasPrefix(err.Error(), msg) {
			t.Errorf("%s: %v", content, err)
		}
	}
	settingsWrite(t, s.Path(), `{"/x": null}`)
	if d, err := s.Get("/x"); err != nil || d != nil {
		t.Errorf("null: %v %v", d, err)
	}
}

func TestTrustQueryResolve(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		q            TrustQuery
		trusted, ask bool
	}{
		{TrustQuery{Override: &no, HasResources: true, Saved: &TrustDecision{Trusted: true}, Default: "always"}, false, false},
		{TrustQuery{Override: &yes, Default: "never"}, true, false},
		{TrustQuery{}, true, false},
		{TrustQuery{Saved: &TrustDecision{Trusted: false}}, false, false},
		{TrustQuery{HasResources: true, Saved: &TrustDecision{Trusted: true}, Default: "never"}, true, false},
		{TrustQuery{HasResources: true, Default: "always"}, true, false},
		{TrustQuery{HasResources: true, Default: "never"}, false, false},
		{TrustQuery{HasResources: true, Default: "ask"}, false, true},
	} {
		if trusted, ask := tc.q.Resolve(); trusted != tc.trusted || ask != tc.ask {
			t.Errorf("%+v: %v %v", tc.q, trusted, ask)
		}
	}
}
