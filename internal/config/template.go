package config

import (
	"os"
	"strings"
)

// templatePart is a piece of a config value template: literal text, or the name of an environment
// variable (name != "").
type templatePart struct {
	text string
	name string
}

// parseTemplate splits a config value that is not a command as pi 1.6 does: "$NAME" (the longest
// run of letters, digits and underscores that does not start with a digit) and "${NAME}" refer to a
// variable; "$$" is "$" and "$!" is "!"; a "$" that starts neither, "${" without "}" and "${...}"
// around something that is not a name stay as they are written.
func parseTemplate(value string) []templatePart {
	var parts []templatePart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, templatePart{text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(value); {
		dollar := strings.IndexByte(value[i:], '$')
		if dollar < 0 {
			lit.WriteString(value[i:])
			break
		}
		lit.WriteString(value[i : i+dollar])
		i += dollar
		rest := value[i+1:]
		switch {
		case strings.HasPrefix(rest, "$"), strings.HasPrefix(rest, "!"):
			lit.WriteByte(rest[0])
			i += 2
		case strings.HasPrefix(rest, "{"):
			end := strings.IndexByte(rest[1:], '}')
			if end < 0 {
				lit.WriteByte('$')
				i++
				continue
			}
			name := rest[1 : 1+end]
			if isEnvVarName(name) {
				flush()
				parts = append(parts, templatePart{name: name})
			} else {
				lit.WriteString(value[i : i+end+3])
			}
			i += end + 3
		default:
			n := envNamePrefix(rest)
			if n == 0 {
				lit.WriteByte('$')
				i++
				continue
			}
			flush()
			parts = append(parts, templatePart{name: rest[:n]})
			i += 1 + n
		}
	}
	flush()
	return parts
}

// envNamePrefix is the length of the environment variable name s starts with (0: none).
func envNamePrefix(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return i
		}
	}
	return len(s)
}

func isEnvVarName(s string) bool { return s != "" && envNamePrefix(s) == len(s) }

// EnvVarNames lists the variables a config value refers to, each once, in order (none for a command).
func EnvVarNames(value string) []string {
	if IsCommand(value) {
		return nil
	}
	var names []string
	for _, p := range parseTemplate(value) {
		if p.name == "" || containsString(names, p.name) {
			continue
		}
		names = append(names, p.name)
	}
	return names
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// expand resolves a template; a variable that is unset or empty makes the whole value missing.
func (r *ValueResolver) expand(value string, env map[string]string) (string, error) {
	if !strings.Contains(value, "$") {
		return value, nil
	}
	var b strings.Builder
	var missing []string
	for _, p := range parseTemplate(value) {
		if p.name == "" {
			b.WriteString(p.text)
			continue
		}
		v, ok := r.lookup(p.name, env)
		if !ok {
			if !containsString(missing, p.name) {
				missing = append(missing, p.name)
			}
			continue
		}
		b.WriteString(v)
	}
	if len(missing) > 0 {
		return "", &MissingEnvError{Names: missing}
	}
	return b.String(), nil
}

// bareEnvName reports whether value is what pi 0.73.1 read as an environment variable and pi 1.6
// sends as text: a plain name (no "$", not a command) of a variable that is set and not empty.
func bareEnvName(value string, getenv Getenv) bool {
	if getenv == nil {
		getenv = os.Getenv
	}
	return isEnvVarName(value) && getenv(value) != ""
}
