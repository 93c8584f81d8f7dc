package tools

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// unicodeSpaces are the space characters pi turns into ASCII spaces in paths (models and pasted text
// produce them; file names rarely contain them).
var unicodeSpaces = strings.NewReplacer(
	"\u00A0", " ", "\u2000", " ", "\u2001", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ",
	"\u2005", " ", "\u2006", " ", "\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ",
	"\u202F", " ", "\u205F", " ", "\u3000", " ",
)

// ExpandPath strips a leading "@", normalises Unicode spaces and expands "~" and "~/".
func ExpandPath(p string) string {
	p = strings.TrimPrefix(p, "@")
	p = unicodeSpaces.Replace(p)
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = home + p[1:]
		}
	}
	return p
}

// ResolvePath expands p and makes it absolute against cwd.
func ResolvePath(p, cwd string) string {
	p = ExpandPath(p)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// ResolveReadPath resolves p like ResolvePath and, when that file does not exist, tries the spellings
// macOS gives file names that users and models rarely type (pi's read fallbacks): a narrow no-break
// space before "AM."/"PM." (screenshots), the NFD form of the name, a curly apostrophe U+2019 for "'",
// and NFD with the curly apostrophe. The first variant that exists wins; otherwise the plain
// resolution is returned so the caller reports the path the user gave.
func ResolveReadPath(p, cwd string) string {
	resolved := ResolvePath(p, cwd)
	if readPathExists(resolved) {
		return resolved
	}
	amPM := readScreenshotVariant(resolved)
	nfd := norm.NFD.String(resolved)
	for _, variant := range []string{amPM, nfd, readCurlyVariant(resolved), readCurlyVariant(nfd)} {
		if variant != resolved && readPathExists(variant) {
			return variant
		}
	}
	return resolved
}

func readPathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// readScreenshotVariant puts U+202F before every " AM." / " PM." (any case), as macOS names
// screenshots ("Screenshot 2024-01-01 at 10.00.00\u202fAM.png").
func readScreenshotVariant(p string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+4 <= len(p); i++ {
		if p[i] != ' ' || p[i+3] != '.' {
			continue
		}
		if m := p[i+1 : i+3]; !strings.EqualFold(m, "AM") && !strings.EqualFold(m, "PM") {
			continue
		}
		b.WriteString(p[last:i])
		b.WriteString("\u202F")
		last = i + 1
	}
	if last == 0 {
		return p
	}
	b.WriteString(p[last:])
	return b.String()
}

func readCurlyVariant(p string) string { return strings.ReplaceAll(p, "'", "\u2019") }
