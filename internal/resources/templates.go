package resources

import (
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"
)

// descriptionMax is how much of a template's first line serves as its description when the
// frontmatter gives none (in UTF-16 code units, as pi counts).
const descriptionMax = 60

// loadTemplate reads one template file. The name is the file name without .md.
func loadTemplate(path string, source SourceInfo) (*Template, []Diagnostic) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, []Diagnostic{{Type: DiagnosticWarning, Kind: KindTemplate, Message: err.Error(), Path: path}}
	}
	fm, body, err := ParseFrontmatter(string(data))
	if err != nil {
		return nil, []Diagnostic{{Type: DiagnosticWarning, Kind: KindTemplate, Message: err.Error(), Path: path}}
	}
	t := &Template{
		Name:     strings.TrimSuffix(filepath.Base(path), ".md"),
		Content:  body,
		FilePath: path,
		Source:   source,
	}
	t.Description, _ = fm.String("description")
	if t.Description == "" {
		for _, line := range strings.Split(body, "\n") {
			if trimJS(line) != "" {
				t.Description = truncateUTF16(line, descriptionMax)
				break
			}
		}
	}
	t.ArgumentHint, _ = fm.String("argument-hint")
	return t, nil
}

// truncateUTF16 cuts s to n UTF-16 code units and marks the cut with "..." (JavaScript's slice).
func truncateUTF16(s string, n int) string {
	units := utf16.Encode([]rune(s))
	if len(units) <= n {
		return s
	}
	return string(utf16.Decode(units[:n])) + "..."
}

// ExpandTemplate returns text with a leading /name replaced by that template's content, its arguments
// substituted; any other text is returned as it is. The name runs to the first whitespace; the
// arguments are the rest after the whitespace that follows it.
func ExpandTemplate(text string, templates []Template) string {
	name, args, ok := splitCommand(text)
	if !ok {
		return text
	}
	for i := range templates {
		if templates[i].Name == name {
			return SubstituteArgs(templates[i].Content, ParseCommandArgs(args))
		}
	}
	return text
}

// splitCommand splits "/name args" at the first (JavaScript) whitespace; ok is false when text does
// not start with "/" followed by a name.
func splitCommand(text string) (name, args string, ok bool) {
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	rest := text[1:]
	end := strings.IndexFunc(rest, isJSSpace)
	if end < 0 {
		return rest, "", rest != ""
	}
	if end == 0 {
		return "", "", false
	}
	return rest[:end], strings.TrimLeftFunc(rest[end:], isJSSpace), true
}
