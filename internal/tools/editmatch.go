package tools

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// EditReplacement is one targeted replacement of the edit tool.
type EditReplacement struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

// editNormalizeToLF turns CRLF and lone CR line breaks into LF.
func editNormalizeToLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// editDetectLineEnding is "\r\n" when the first line break of s is CRLF, else "\n".
func editDetectLineEnding(s string) string {
	if lf := strings.IndexByte(s, '\n'); lf > 0 && s[lf-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

func editRestoreLineEndings(s, ending string) string {
	if ending != "\r\n" {
		return s
	}
	return strings.ReplaceAll(s, "\n", "\r\n")
}

// editFuzzyPunctuation maps the characters pi's fuzzy match treats as their ASCII look-alikes.
var editFuzzyPunctuation = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ", "\u2007", " ",
	"\u2008", " ", "\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ",
)

// editIsJSWhitespace is JavaScript's trimEnd set: white space and line terminators.
func editIsJSWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x00A0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// editFuzzyNormalize is pi's normalizeForFuzzyMatch: NFKC, trailing white space removed from every
// line, smart quotes, Unicode dashes and special spaces turned into ASCII. Text that needs none of
// that is returned as it is, without a copy.
func editFuzzyNormalize(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	copied := -1 // s[:copied] is in b; -1 while nothing had to change
	for start := 0; start <= len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		line := s[start:end]
		trimmed := strings.TrimRightFunc(line, editIsJSWhitespace)
		punct := editHasFuzzyPunctuation(trimmed)
		if len(trimmed) != len(line) || punct {
			if copied < 0 {
				b.Grow(len(s))
				copied = 0
			}
			b.WriteString(s[copied:start])
			if punct {
				editFuzzyPunctuation.WriteString(&b, trimmed)
			} else {
				b.WriteString(trimmed)
			}
			copied = end
		}
		start = end + 1
	}
	if copied < 0 {
		return s
	}
	b.WriteString(s[copied:])
	return b.String()
}

// editHasFuzzyPunctuation reports whether s holds a character editFuzzyPunctuation replaces.
func editHasFuzzyPunctuation(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r >= 0x2018 && r <= 0x201F, r >= 0x2010 && r <= 0x2015, r == 0x2212,
			r == 0x00A0, r >= 0x2002 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
			return true
		}
		i += size - 1
	}
	return false
}

// editSpace holds the content edits are matched in, with its fuzzy form computed once.
type editSpace struct {
	content string
	fuzzy   *string
}

func (sp *editSpace) fuzzyContent() string {
	if sp.fuzzy == nil {
		f := editFuzzyNormalize(sp.content)
		sp.fuzzy = &f
	}
	return *sp.fuzzy
}

type editMatch struct {
	found         bool
	index, length int
	usedFuzzy     bool
}

// find is pi's fuzzyFindText: the exact text first, else the fuzzy form in the fuzzy content.
func (sp *editSpace) find(oldText string) editMatch {
	if i := strings.Index(sp.content, oldText); i >= 0 {
		return editMatch{found: true, index: i, length: len(oldText)}
	}
	fuzzyOld := editFuzzyNormalize(oldText)
	if i := strings.Index(sp.fuzzyContent(), fuzzyOld); i >= 0 {
		return editMatch{found: true, index: i, length: len(fuzzyOld), usedFuzzy: true}
	}
	return editMatch{}
}

// occurrences counts oldText in the fuzzy content, as pi does whether or not the match was exact
// (so copies that differ only in trailing white space or quotes count as duplicates).
func (sp *editSpace) occurrences(oldText string) int {
	fuzzyOld := editFuzzyNormalize(oldText)
	if fuzzyOld == "" {
		// JavaScript's split("") yields one piece per UTF-16 unit.
		return editUTF16Len(sp.fuzzyContent()) - 1
	}
	return strings.Count(sp.fuzzyContent(), fuzzyOld)
}

func editUTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// editApply is pi's applyEditsToNormalizedContent: every edit is matched against the same
// (LF-normalised) original, in the fuzzy space for all if any needs it; matches must be unique and
// must not overlap; they are applied back to front. It returns the content the edits were matched
// in and the result.
func editApply(content string, edits []EditReplacement, path string) (base, next string, err error) {
	n := len(edits)
	lfEdits := make([]EditReplacement, n)
	for i, e := range edits {
		lfEdits[i] = EditReplacement{OldText: editNormalizeToLF(e.OldText), NewText: editNormalizeToLF(e.NewText)}
		if lfEdits[i].OldText == "" {
			if n == 1 {
				return "", "", fmt.Errorf("oldText must not be empty in %s.", path)
			}
			return "", "", fmt.Errorf("edits[%d].oldText must not be empty in %s.", i, path)
		}
	}
	original := &editSpace{content: content}
	space := original
	for _, e := range lfEdits {
		if original.find(e.OldText).usedFuzzy {
			space = &editSpace{content: original.fuzzyContent()}
			break
		}
	}
	type matched struct {
		edit, index, length int
		newText             string
	}
	matches := make([]matched, 0, n)
	for i, e := range lfEdits {
		m := space.find(e.OldText)
		if !m.found {
			if n == 1 {
				return "", "", fmt.Errorf("Could not find the exact text in %s. The old text must match exactly including all whitespace and newlines.", path)
			}
			return "", "", fmt.Errorf("Could not find edits[%d] in %s. The oldText must match exactly including all whitespace and newlines.", i, path)
		}
		if count := space.occurrences(e.OldText); count > 1 {
			if n == 1 {
				return "", "", fmt.Errorf("Found %d occurrences of the text in %s. The text must be unique. Please provide more context to make it unique.", count, path)
			}
			return "", "", fmt.Errorf("Found %d occurrences of edits[%d] in %s. Each oldText must be unique. Please provide more context to make it unique.", count, i, path)
		}
		matches = append(matches, matched{edit: i, index: m.index, length: m.length, newText: e.NewText})
	}
	sort.SliceStable(matches, func(a, b int) bool { return matches[a].index < matches[b].index })
	for i := 1; i < len(matches); i++ {
		prev, cur := matches[i-1], matches[i]
		if prev.index+prev.length > cur.index {
			return "", "", fmt.Errorf("edits[%d] and edits[%d] overlap in %s. Merge them into one edit or target disjoint regions.", prev.edit, cur.edit, path)
		}
	}
	base = space.content
	var b strings.Builder
	b.Grow(len(base))
	last := 0
	for _, m := range matches {
		b.WriteString(base[last:m.index])
		b.WriteString(m.newText)
		last = m.index + m.length
	}
	b.WriteString(base[last:])
	next = b.String()
	if next == base {
		if n == 1 {
			return "", "", fmt.Errorf("No changes made to %s. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.", path)
		}
		return "", "", fmt.Errorf("No changes made to %s. The replacements produced identical content.", path)
	}
	return base, next, nil
}
