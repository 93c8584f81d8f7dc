package resources

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseCommandArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"a b  c", []string{"a", "b", "c"}},
		{`"API compatibility" x`, []string{"API compatibility", "x"}},
		{`'single quoted' x`, []string{"single quoted", "x"}},
		{`doesn't work`, []string{"doesn't", "work"}},
		{`"" b`, []string{"", "b"}},
		{`''`, []string{""}},
		{`"the \"fast\" path"`, []string{`the "fast" path`}},
		{`'it\'s'`, []string{"it's"}},
		{`"a\b"`, []string{`a\b`}},
		{`"unclosed quote`, []string{`"unclosed`, "quote"}},
		{`x "`, []string{"x", `"`}},
		{"line1\nline2\tz", []string{"line1", "line2", "z"}},
		{"a\u00a0b\u3000c", []string{"a", "b", "c"}},
		{`ab"cd ef"`, []string{`ab"cd`, `ef"`}},
	} {
		if got := ParseCommandArgs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("ParseCommandArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSubstituteArgs(t *testing.T) {
	args := []string{"a", "b", "c"}
	for _, tc := range []struct {
		tpl  string
		args []string
		want string
	}{
		{"$1-$2-$3-$4", args, "a-b-c-"},
		{"$@|$ARGUMENTS", args, "a b c|a b c"},
		{"${@:2}|${@:2:1}|${@:0}|${@:9}|${@:1:0}", args, "b c|b|a b c||"},
		{"${1:-x} ${4:-y} ${@:-z}", args, "a y a b c"},
		{"${1:-x} ${@:-z} ${ARGUMENTS:-w}", nil, "x z w"},
		{"${1:-x}", []string{""}, "x"},
		{"$10", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "ten"}, "ten"},
		{"$99999999999999999999999 ${@:99999999999999999999:2}", args, " "},
		{"$HOME ${FOO} $ $x", args, "$HOME ${FOO} $ $x"},
		{"$1", []string{"$2"}, "$2"},
	} {
		if got := SubstituteArgs(tc.tpl, tc.args); got != tc.want {
			t.Errorf("SubstituteArgs(%q, %q) = %q, want %q", tc.tpl, tc.args, got, tc.want)
		}
	}
}

func TestParseFrontmatter(t *testing.T) {
	fm, body, err := ParseFrontmatter("\uFEFF---\r\ndescription: d\r\nmetadata:\r\n  k: v\r\n---\r\n\r\nBody\r\n")
	if err != nil || fm["description"] != "d" || body != "Body" {
		t.Fatalf("got %v %q %v", fm, body, err)
	}
	if fm, body, _ := ParseFrontmatter("no frontmatter\n"); len(fm) != 0 || body != "no frontmatter\n" {
		t.Errorf("without frontmatter: %v %q", fm, body)
	}
	if fm, body, _ := ParseFrontmatter("---\nunterminated"); len(fm) != 0 || body != "---\nunterminated" {
		t.Errorf("unterminated: %v %q", fm, body)
	}
	if fm, _, err := ParseFrontmatter("---\n- a list\n---\nx"); err != nil || len(fm) != 0 {
		t.Errorf("a list is no mapping: %v %v", fm, err)
	}
	if _, _, err := ParseFrontmatter("---\ndescription: [unclosed\n---\nx"); err == nil ||
		!strings.HasPrefix(err.Error(), "invalid frontmatter: ") {
		t.Errorf("malformed YAML: %v", err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func names[T any](items []T, name func(T) string) []string {
	var out []string
	for _, it := range items {
		out = append(out, name(it))
	}
	return out
}

func templateNames(s *Set) []string {
	return names(s.Templates, func(t Template) string { return t.Name })
}
func skillNames(s *Set) []string { return names(s.Skills, func(s Skill) string { return s.Name }) }

// TestDiagnostics: every problem names its file; nothing is dropped in silence.
func TestDiagnostics(t *testing.T) {
	work := workspace(t)
	o := optionsFor(t, work, []string{"--approve", "--skill", "missing-skill", "--prompt-template", "missing.md"})
	set := Load(o)
	var got []string
	for _, d := range set.Diagnostics {
		got = append(got, strings.ReplaceAll(d.String(), work, "$WORK"))
	}
	want := []string{
		"skill $WORK/agent/skills/Bad_Name/SKILL.md: name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
		"skill $WORK/agent/skills/no-description/SKILL.md: description is required",
		"skill $WORK/proj/missing-skill: skill path does not exist",
		`skill name "pdf-tools" collision: $WORK/agent/skills/pdf-tools/SKILL.md skipped, $WORK/proj/.pi/skills/pdf-tools/SKILL.md wins`,
		"prompt template $WORK/agent/prompts/broken.md: invalid frontmatter: ",
		"prompt template $WORK/proj/missing.md: Prompt template path does not exist",
		`prompt template name "/fix" collision: $WORK/agent/prompts/fix.md skipped, $WORK/proj/.pi/prompts/fix.md wins`,
	}
	if len(got) != len(want) {
		t.Fatalf("diagnostics:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("diagnostic %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// TestTrustGating: an untrusted project's .pi/prompts, .pi/skills and .agents/skills do not load;
// the user's ~/.agents/skills does, and is not taken for a project one.
func TestTrustGating(t *testing.T) {
	work := workspace(t)
	write(t, filepath.Join(work, "home/.agents/skills/home-skill/SKILL.md"), "---\ndescription: from ~/.agents\n---\nx")
	for _, trusted := range []bool{false, true} {
		o := optionsFor(t, work, nil)
		o.ProjectTrusted = trusted
		set := Load(o)
		hasProject := slices.Contains(skillNames(set), "changelog-writer") || slices.Contains(skillNames(set), "bom-skill")
		if hasProject != trusted {
			t.Errorf("trusted=%v: skills %v", trusted, skillNames(set))
		}
		if !slices.Contains(skillNames(set), "home-skill") {
			t.Errorf("trusted=%v: ~/.agents/skills not loaded: %v", trusted, skillNames(set))
		}
		fix, _ := set.Template("fix")
		if strings.Contains(fix.FilePath, "proj") != trusted {
			t.Errorf("trusted=%v: /fix from %s", trusted, fix.FilePath)
		}
	}
}

// TestSettingsEntries: settings entries name files and directories (relative to their settings
// file's directory, "~" expanded) and filter with globs, !, + and -.
func TestSettingsEntries(t *testing.T) {
	work := t.TempDir()
	agent, home := filepath.Join(work, "agent"), filepath.Join(work, "home")
	write(t, filepath.Join(work, "lib/one.md"), "One")
	write(t, filepath.Join(work, "lib/nested/two.md"), "Two")
	write(t, filepath.Join(work, "lib/nested/skip.md"), "Skip")
	write(t, filepath.Join(work, "lib/.hidden/three.md"), "Hidden")
	write(t, filepath.Join(home, "mine/four.md"), "Four")
	write(t, filepath.Join(agent, "prompts/auto.md"), "Auto")
	write(t, filepath.Join(agent, "prompts/off.md"), "Off")
	write(t, filepath.Join(agent, "skills/kept/SKILL.md"), "---\ndescription: kept\n---\n")
	write(t, filepath.Join(agent, "skills/dropped/SKILL.md"), "---\ndescription: dropped\n---\n")
	set := Load(Options{AgentDir: agent, Cwd: work, Home: home,
		GlobalPrompts: []string{"../lib", "~/mine/four.md", "!**/skip.md", "!off.md"},
		GlobalSkills:  []string{"!dropped"},
	})
	if got, want := templateNames(set), []string{"two", "one", "four", "auto"}; !slices.Equal(got, want) {
		t.Errorf("templates %v, want %v", got, want)
	}
	if got := skillNames(set); !slices.Equal(got, []string{"kept"}) {
		t.Errorf("skills %v", got)
	}
	set = Load(Options{AgentDir: agent, Cwd: work, Home: home, GlobalPrompts: []string{"!*.md", "+prompts/off.md"}})
	if got := templateNames(set); !slices.Equal(got, []string{"off"}) {
		t.Errorf("force-included: %v", got)
	}
}

// TestIgnoreFilesAndNesting: .gitignore in a skills directory hides what it names; a directory with
// SKILL.md is not searched further; .agents/skills groups nest, and .md files beside skills count
// there only below the root.
func TestIgnoreFilesAndNesting(t *testing.T) {
	work := t.TempDir()
	agent := filepath.Join(work, "agent")
	write(t, filepath.Join(agent, "skills/.gitignore"), "wip/\n")
	write(t, filepath.Join(agent, "skills/wip/SKILL.md"), "---\ndescription: ignored\n---\n")
	write(t, filepath.Join(agent, "skills/outer/SKILL.md"), "---\ndescription: outer\n---\n")
	write(t, filepath.Join(agent, "skills/outer/inner/SKILL.md"), "---\ndescription: not a separate skill\n---\n")
	// Named after its directory, as pi names a skill without a name.
	write(t, filepath.Join(agent, "skills/loose.md"), "---\ndescription: a root-level markdown skill\n---\n")
	write(t, filepath.Join(agent, "skills/README.md"), "# Just a readme\n")
	proj := filepath.Join(work, "proj")
	write(t, filepath.Join(proj, ".git/HEAD"), "")
	write(t, filepath.Join(proj, ".agents/skills/group/sub/deep/SKILL.md"), "---\ndescription: deep\n---\n")
	write(t, filepath.Join(proj, ".agents/skills/group/note.md"), "---\nname: note\ndescription: below the root\n---\n")
	write(t, filepath.Join(proj, ".agents/skills/top.md"), "---\ndescription: at the root\n---\n")
	write(t, filepath.Join(work, ".agents/skills/above-repo/SKILL.md"), "---\ndescription: above the repository\n---\n")
	set := Load(Options{AgentDir: agent, Cwd: filepath.Join(proj), Home: filepath.Join(work, "home"), ProjectTrusted: true})
	if got, want := skillNames(set), []string{"note", "deep", "skills", "outer"}; !slices.Equal(got, want) {
		t.Errorf("skills %v, want %v", got, want)
	}
	if len(set.Diagnostics) != 0 {
		t.Errorf("diagnostics: %v", set.Diagnostics)
	}
}

// TestSymlinkedSkillCountsOnce: a skill reached through a symlink and directly is one skill.
func TestSymlinkedSkillCountsOnce(t *testing.T) {
	work := t.TempDir()
	agent := filepath.Join(work, "agent")
	write(t, filepath.Join(work, "shared/linked/SKILL.md"), "---\ndescription: linked\n---\n")
	if err := os.MkdirAll(filepath.Join(agent, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(work, "shared/linked"), filepath.Join(agent, "skills/linked")); err != nil {
		t.Skip(err)
	}
	set := Load(Options{AgentDir: agent, Cwd: work, SkillPaths: []string{filepath.Join(work, "shared/linked")}})
	if got := skillNames(set); !slices.Equal(got, []string{"linked"}) || len(set.Diagnostics) != 0 {
		t.Errorf("skills %v, diagnostics %v", got, set.Diagnostics)
	}
}

func TestSkillValidation(t *testing.T) {
	long := strings.Repeat("a", 65)
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"pdf-tools", nil},
		{"-x", []string{"name must not start or end with a hyphen"}},
		{"a--b", []string{"name must not contain consecutive hyphens"}},
		{long, []string{"name exceeds 64 characters (65)"}},
		{"Ünï", []string{"name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"}},
	} {
		if got := validateSkillName(tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.name, got, tc.want)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big", "SKILL.md")
	write(t, path, "---\ndescription: "+strings.Repeat("d", 1025)+"\n---\n")
	sk, diags := loadSkill(path, SourceInfo{})
	if sk == nil || len(diags) != 1 || diags[0].Message != "description exceeds 1024 characters (1025)" {
		t.Errorf("long description: %v %v", sk, diags)
	}
}

func TestExpandSkillErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gone", "SKILL.md")
	skills := []Skill{{Name: "gone", FilePath: path, BaseDir: filepath.Dir(path)}}
	if got, err := ExpandSkill("/skill:gone x", skills); got != "/skill:gone x" || err == nil {
		t.Errorf("unreadable skill: %q %v", got, err)
	}
	if got, err := ExpandSkill("/skill:other", skills); got != "/skill:other" || err == nil {
		t.Errorf("unknown skill: %q %v", got, err)
	}
	if got, err := ExpandSkill("plain", skills); got != "plain" || err != nil {
		t.Errorf("plain text: %q %v", got, err)
	}
}

func TestParseSkillBlockTakesApartWhatExpandSkillMakes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s", "SKILL.md")
	write(t, path, "---\ndescription: d\n---\nLine one.\n\nLine two.\n")
	skills := []Skill{{Name: "s", FilePath: path, BaseDir: filepath.Dir(path)}}
	for in, wantUser := range map[string]string{"/skill:s": "", "/skill:s do it\nnow": "do it\nnow"} {
		text, err := ExpandSkill(in, skills)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := ParseSkillBlock(text)
		if !ok || b.Name != "s" || b.Location != path || b.UserMessage != wantUser ||
			b.Content != "References are relative to "+filepath.Dir(path)+".\n\nLine one.\n\nLine two." {
			t.Errorf("%q: %+v %v", in, b, ok)
		}
	}
	if _, ok := ParseSkillBlock("plain <skill> text"); ok {
		t.Error("plain text taken for a skill block")
	}
}
