package resources

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pi16Run is one run of testdata/pi16/prompts/record.json: what pi 1.6.0 listed with get_commands
// and sent for each prompt (scripts/interop/record-prompts records it).
type pi16Run struct {
	Name     string   `json:"name"`
	Args     []string `json:"args"`
	Cases    []string `json:"cases"`
	Commands []struct {
		Name        string     `json:"name"`
		Description string     `json:"description"`
		Source      string     `json:"source"`
		SourceInfo  SourceInfo `json:"sourceInfo"`
	} `json:"commands"`
	Sent         []string `json:"sent"`
	SystemPrompt string   `json:"systemPrompt"`
}

func loadPi16Record(t *testing.T) []pi16Run {
	t.Helper()
	data, err := os.ReadFile("../../testdata/pi16/prompts/record.json")
	if err != nil {
		t.Fatal(err)
	}
	var runs []pi16Run
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	return runs
}

// workspace copies testdata/resources as the recorder laid it out: proj/ (a repository root) is the
// project, agent/ the agent directory, home/ HOME.
func workspace(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	if err := os.CopyFS(work, os.DirFS("../../testdata/resources")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"proj/.git", "home"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return work
}

// optionsFor reads a recorded run's command line the way pi-go's flags fill Options.
func optionsFor(t *testing.T, work string, args []string) Options {
	t.Helper()
	o := Options{
		AgentDir:      filepath.Join(work, "agent"),
		Cwd:           filepath.Join(work, "proj"),
		Home:          filepath.Join(work, "home"),
		GlobalPrompts: []string{"../extra-prompts"}, // agent/settings.json
	}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--approve":
			o.ProjectTrusted = true
		case "--no-approve":
		case "--no-skills":
			o.NoSkills = true
		case "--no-prompt-templates":
			o.NoTemplates = true
		case "--skill":
			i++
			o.SkillPaths = append(o.SkillPaths, args[i])
		case "--prompt-template":
			i++
			o.TemplatePaths = append(o.TemplatePaths, args[i])
		case "--tools":
			i++
		default:
			t.Fatalf("record.json: flag %q not understood", args[i])
		}
	}
	return o
}

// TestPi16Commands: pi 1.6.0's get_commands, template and skill entries, field for field and in order.
func TestPi16Commands(t *testing.T) {
	for _, run := range loadPi16Record(t) {
		t.Run(run.Name, func(t *testing.T) {
			work := workspace(t)
			set := Load(optionsFor(t, work, run.Args))
			var want []Command
			for _, c := range run.Commands {
				if c.Source == "extension" {
					continue // pi's built-in extensions (mcp, llama.cpp) are not resources
				}
				c.SourceInfo.Path = strings.ReplaceAll(c.SourceInfo.Path, "$WORK", work)
				c.SourceInfo.BaseDir = strings.ReplaceAll(c.SourceInfo.BaseDir, "$WORK", work)
				want = append(want, Command{Name: c.Name, Description: c.Description, Source: c.Source, SourceInfo: c.SourceInfo})
			}
			got := set.Commands()
			for i := range got {
				got[i].ArgumentHint = "" // get_commands does not carry it
			}
			if len(got) != len(want) {
				t.Fatalf("got %d commands, pi %d:\n%s", len(got), len(want), dump(got, want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("command %d:\n got %+v\n pi  %+v", i, got[i], want[i])
				}
			}
		})
	}
}

// TestPi16Expansion: for each prompt, the user message pi 1.6.0 sent is what skill and template
// expansion make of it.
func TestPi16Expansion(t *testing.T) {
	for _, run := range loadPi16Record(t) {
		t.Run(run.Name, func(t *testing.T) {
			work := workspace(t)
			set := Load(optionsFor(t, work, run.Args))
			for i, in := range run.Cases {
				got, _ := ExpandSkill(in, set.Skills)
				got = ExpandTemplate(got, set.Templates)
				want := strings.ReplaceAll(run.Sent[i], "$WORK", work)
				if got != want {
					t.Errorf("%q:\n got %q\n pi  %q", in, got, want)
				}
			}
		})
	}
}

func dump(got, want []Command) string {
	var b strings.Builder
	for _, c := range got {
		b.WriteString(" got " + c.Name + " " + c.SourceInfo.Path + "\n")
	}
	for _, c := range want {
		b.WriteString(" pi  " + c.Name + " " + c.SourceInfo.Path + "\n")
	}
	return b.String()
}
