package resources

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Frontmatter is the YAML block at the top of a template or skill file, as a map (empty when the file
// has none, or when its YAML is not a mapping).
type Frontmatter map[string]any

// String is the value of key when it is a string.
func (f Frontmatter) String(key string) (string, bool) {
	s, ok := f[key].(string)
	return s, ok
}

// ParseFrontmatter splits content into its frontmatter and body as pi does: a byte order mark is
// dropped and line ends normalised to \n; frontmatter is the text between a leading "---" and the next
// line starting with "---", and the body after it is trimmed. Without frontmatter the body is the
// whole (normalised, untrimmed) text. YAML that does not parse is an error.
func ParseFrontmatter(content string) (Frontmatter, string, error) {
	text := strings.TrimPrefix(content, "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	if !strings.HasPrefix(text, "---") {
		return Frontmatter{}, text, nil
	}
	end := strings.Index(text[3:], "\n---")
	if end < 0 {
		return Frontmatter{}, text, nil
	}
	end += 3
	yamlText := ""
	if end > 4 {
		yamlText = text[4:end]
	}
	body := trimJS(text[end+4:])
	if yamlText == "" {
		return Frontmatter{}, body, nil
	}
	var parsed any
	if err := yaml.Unmarshal([]byte(yamlText), &parsed); err != nil {
		return nil, "", fmt.Errorf("invalid frontmatter: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if m, ok := parsed.(map[string]any); ok {
		return Frontmatter(m), body, nil
	}
	return Frontmatter{}, body, nil
}

// StripFrontmatter is the body of content.
func StripFrontmatter(content string) (string, error) {
	_, body, err := ParseFrontmatter(content)
	return body, err
}

// trimJS trims what JavaScript's String.prototype.trim trims.
func trimJS(s string) string { return strings.TrimFunc(s, isJSSpace) }

// isJSSpace is JavaScript's \s: the Unicode space separators, line terminators and the BOM.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}
