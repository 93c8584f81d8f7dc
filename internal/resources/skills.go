package resources

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf16"
)

// The Agent Skills limits.
const (
	maxNameLength        = 64
	maxDescriptionLength = 1024
)

// loadSkill reads one skill file. A SKILL.md is a declared skill: its problems are reported, and it
// is left out only without a description. Another .md file is a skill only when its frontmatter has a
// description; otherwise it is passed over in silence (a README beside the skills).
func loadSkill(path string, source SourceInfo) (*Skill, []Diagnostic) {
	declared := filepath.Base(path) == "SKILL.md"
	warn := func(msg string) Diagnostic {
		return Diagnostic{Type: DiagnosticWarning, Kind: KindSkill, Message: msg, Path: path}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, []Diagnostic{warn(err.Error())}
	}
	fm, _, err := ParseFrontmatter(string(data))
	if err != nil {
		if declared {
			return nil, []Diagnostic{warn(err.Error())}
		}
		return nil, nil
	}
	description, isString := fm.String("description")
	hasDescription := isString && trimJS(description) != ""
	if !declared && !hasDescription {
		return nil, nil
	}
	var diags []Diagnostic
	switch {
	case !hasDescription:
		diags = append(diags, warn("description is required"))
	case len(utf16.Encode([]rune(description))) > maxDescriptionLength:
		diags = append(diags, warn(fmt.Sprintf("description exceeds %d characters (%d)", maxDescriptionLength, len(utf16.Encode([]rune(description))))))
	}
	dir := filepath.Dir(path)
	name, _ := fm.String("name")
	if name == "" {
		name = filepath.Base(dir)
	}
	for _, msg := range validateSkillName(name) {
		diags = append(diags, warn(msg))
	}
	if !hasDescription {
		return nil, diags
	}
	disable, _ := fm["disable-model-invocation"].(bool)
	return &Skill{
		Name:                   name,
		Description:            description,
		FilePath:               path,
		BaseDir:                dir,
		DisableModelInvocation: disable,
		Source:                 source,
	}, diags
}

// validateSkillName lists what is wrong with a skill name by the Agent Skills rules (pi warns and
// loads the skill anyway).
func validateSkillName(name string) []string {
	var errs []string
	if n := len(utf16.Encode([]rune(name))); n > maxNameLength {
		errs = append(errs, fmt.Sprintf("name exceeds %d characters (%d)", maxNameLength, n))
	}
	valid := name != ""
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			valid = false
			break
		}
	}
	if !valid {
		errs = append(errs, "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		errs = append(errs, "name must not start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		errs = append(errs, "name must not contain consecutive hyphens")
	}
	return errs
}

// ErrUnknownSkill is returned by ExpandSkill for a /skill: command naming no loaded skill.
var ErrUnknownSkill = errors.New("unknown skill")

// IsSkillCommand reports whether text is a /skill:name command.
func IsSkillCommand(text string) bool { return strings.HasPrefix(text, "/skill:") }

// ExpandSkill turns "/skill:name args" into what pi sends: the skill's instructions (its SKILL.md
// without frontmatter, read now) in a <skill> block, then the arguments, if any, after a blank line.
// The name ends at the first space. A text that is not a skill command is returned as it is; a
// command naming no skill returns the text and ErrUnknownSkill; a file that cannot be read returns
// the text and the error (pi passes the text on unchanged in both cases).
func ExpandSkill(text string, skills []Skill) (string, error) {
	if !IsSkillCommand(text) {
		return text, nil
	}
	name, args, _ := strings.Cut(text[len("/skill:"):], " ")
	args = trimJS(args)
	var skill *Skill
	for i := range skills {
		if skills[i].Name == name {
			skill = &skills[i]
			break
		}
	}
	if skill == nil {
		return text, fmt.Errorf("%w: %s", ErrUnknownSkill, name)
	}
	data, err := os.ReadFile(skill.FilePath)
	if err != nil {
		return text, fmt.Errorf("skill %s: %w", skill.Name, err)
	}
	body, err := StripFrontmatter(string(data))
	if err != nil {
		return text, fmt.Errorf("skill %s: %s: %w", skill.Name, skill.FilePath, err)
	}
	block := `<skill name="` + skill.Name + `" location="` + skill.FilePath + `">` + "\n" +
		"References are relative to " + skill.BaseDir + ".\n\n" + trimJS(body) + "\n</skill>"
	if args == "" {
		return block, nil
	}
	return block + "\n\n" + args, nil
}

// SkillBlock is a user message that ExpandSkill produced, taken apart again for display.
type SkillBlock struct {
	Name, Location, Content string
	// UserMessage is the arguments that followed the block (trimmed; empty without).
	UserMessage string
}

var skillBlockPattern = regexp.MustCompile(`(?s)^<skill name="([^"]+)" location="([^"]+)">\n(.*?)\n</skill>(?:\n\n(.+))?$`)

// ParseSkillBlock recognises the text of a skill invocation (pi's parseSkillBlock); ok is false for
// any other text.
func ParseSkillBlock(text string) (SkillBlock, bool) {
	m := skillBlockPattern.FindStringSubmatch(text)
	if m == nil {
		return SkillBlock{}, false
	}
	return SkillBlock{Name: m[1], Location: m[2], Content: m[3], UserMessage: trimJS(m[4])}, true
}
