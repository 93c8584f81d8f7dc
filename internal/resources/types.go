package resources

import "fmt"

// SourceInfo says where a template or skill came from, with pi's field names and values (RPC's
// get_commands returns it): Source is "auto" (found in a conventional directory), "local" (a settings
// entry or a path given on the command line); Scope is "user", "project" or "temporary"; Origin is
// "top-level", or "package" for a package's resource (Source is then the package's source); BaseDir is the directory the entry was resolved against.
type SourceInfo struct {
	Path    string `json:"path"`
	Source  string `json:"source"`
	Scope   string `json:"scope"`
	Origin  string `json:"origin"`
	BaseDir string `json:"baseDir,omitempty"`
}

// PackageFile is a skill or prompt file an installed package carries, with its source.
type PackageFile struct {
	Path   string
	Source SourceInfo
}

// Template is a prompt template: /Name expands to Content with the arguments substituted.
type Template struct {
	Name         string
	Description  string
	ArgumentHint string
	Content      string
	FilePath     string
	Source       SourceInfo
}

// Skill is an Agent Skills skill: the model is told its name, description and SKILL.md path; /skill:Name
// sends the file's instructions.
type Skill struct {
	Name        string
	Description string
	FilePath    string
	// BaseDir is the skill's directory (the parent of its SKILL.md); its references are relative to it.
	BaseDir                string
	DisableModelInvocation bool
	Source                 SourceInfo
}

// DiagnosticType is how serious a diagnostic is.
type DiagnosticType string

const (
	DiagnosticWarning   DiagnosticType = "warning"
	DiagnosticError     DiagnosticType = "error"
	DiagnosticCollision DiagnosticType = "collision"
)

// Resource kinds a Diagnostic names.
const (
	KindSkill    = "skill"
	KindTemplate = "prompt template"
)

// Diagnostic is a problem met while loading, naming the file.
type Diagnostic struct {
	Type DiagnosticType
	// Kind is KindSkill or KindTemplate.
	Kind    string
	Message string
	Path    string
	// Winner is, for a collision, the file that kept the name (Path is the one skipped).
	Winner string
}

// String is the diagnostic as a one-line warning naming the file.
func (d Diagnostic) String() string {
	switch {
	case d.Type == DiagnosticCollision:
		return fmt.Sprintf("%s %s: %s skipped, %s wins", d.Kind, d.Message, d.Path, d.Winner)
	case d.Path != "":
		return fmt.Sprintf("%s %s: %s", d.Kind, d.Path, d.Message)
	}
	return d.Kind + ": " + d.Message
}
