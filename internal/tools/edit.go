package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
	"golang.org/x/text/unicode/norm"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/textdiff"
)

//go:embed edit.md
var editDescription string

const editSchema = `{"type":"object","required":["path","edits"],"properties":{` +
	`"path":{"type":"string","description":"Path to the file to edit (relative or absolute)"},` +
	`"edits":{"type":"array","items":{"type":"object","required":["oldText","newText"],"properties":{` +
	`"oldText":{"type":"string","description":"Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."},` +
	`"newText":{"type":"string","description":"Replacement text for this targeted edit."}}},` +
	`"description":"One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead."}}}`

// EditOptions configure the edit tool.
type EditOptions struct {
	// Mutations serialises this tool's changes with the write tool's writes of the same file. Pass the
	// queue given to NewWrite; nil gives the tool a queue of its own.
	Mutations *MutationQueue
}

// EditArgs are the edit tool's arguments (after PrepareArguments).
type EditArgs struct {
	Path  string            `json:"path"`
	Edits []EditReplacement `json:"edits"`
}

// EditDetails is the edit tool's details object.
type EditDetails struct {
	Diff string `json:"diff"`
	// Patch is the change as a standard unified diff (pi 1.6).
	Patch            string `json:"patch"`
	FirstChangedLine int    `json:"firstChangedLine,omitempty"`
}

type editTool struct {
	cwd    string
	queue  *MutationQueue
	writer atomicWriter
}

// NewEdit returns the edit tool, resolving relative paths against cwd.
func NewEdit(cwd string, opts EditOptions) loop.Tool {
	return &editTool{cwd: cwd, queue: queueOrNew(opts.Mutations)}
}

func (t *editTool) Definition() provider.ToolDefinition {
	return withPreferStrictSampling(toolDefinition("edit", editDescription, editSchema))
}

// PrepareArguments accepts what models send besides the schema (pi's prepareArguments): edits as a
// JSON string, and the legacy top-level oldText/newText, which become one more entry of edits.
func (t *editTool) PrepareArguments(raw json.RawMessage) json.RawMessage {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return raw
	}
	changed := false
	if v, ok := args["edits"]; ok && len(v) > 0 && v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			var list []json.RawMessage
			if json.Unmarshal([]byte(s), &list) == nil && list != nil {
				args["edits"], changed = json.RawMessage(s), true
			}
		}
	}
	var oldText, newText string
	if json.Unmarshal(args["oldText"], &oldText) == nil && json.Unmarshal(args["newText"], &newText) == nil &&
		editIsJSONString(args["oldText"]) && editIsJSONString(args["newText"]) {
		var list []json.RawMessage
		if v, ok := args["edits"]; ok {
			if json.Unmarshal(v, &list) != nil {
				list = nil
			}
		}
		legacy, err := json.Marshal(EditReplacement{OldText: oldText, NewText: newText})
		if err != nil {
			return raw
		}
		list = append(list, legacy)
		edits, err := json.Marshal(list)
		if err != nil {
			return raw
		}
		args["edits"] = edits
		delete(args, "oldText")
		delete(args, "newText")
		changed = true
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(args)
	if err != nil {
		return raw
	}
	return out
}

func editIsJSONString(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"'
}

func (t *editTool) Execute(ctx context.Context, call loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	var args EditArgs
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return loop.ToolResult{}, fmt.Errorf("edit: invalid arguments: %w", err)
	}
	if len(args.Edits) == 0 {
		return loop.ToolResult{}, errors.New("Edit tool input is invalid. edits must contain at least one replacement.")
	}
	abs := ResolvePath(args.Path, t.cwd)
	unlock, err := lockForChange(ctx, t.queue, abs)
	if err != nil {
		return loop.ToolResult{}, err
	}
	defer unlock()

	cannotEdit := func(err error) error {
		if code := errnoCode(err); code != "" {
			return fmt.Errorf("Could not edit file: %s. Error code: %s.", args.Path, code)
		}
		return fmt.Errorf("Could not edit file: %s. %v.", args.Path, unwrapPath(err))
	}
	if err := unix.Access(abs, unix.R_OK|unix.W_OK); err != nil {
		return loop.ToolResult{}, cannotEdit(err)
	}
	if info, err := os.Stat(abs); err != nil {
		return loop.ToolResult{}, cannotEdit(err)
	} else if info.IsDir() {
		return loop.ToolResult{}, cannotEdit(unix.EISDIR)
	} else if !info.Mode().IsRegular() {
		return loop.ToolResult{}, fmt.Errorf("Could not edit file: %s. It is not a regular file (a device, socket or pipe).", args.Path)
	}
	raw, err := editReadFile(abs)
	if err != nil {
		return loop.ToolResult{}, nodeError(err, "read", abs)
	}
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}

	// The model never types the invisible BOM: match without it and put it back.
	content, bom := raw, ""
	if rest, ok := strings.CutPrefix(content, "\uFEFF"); ok {
		content, bom = rest, "\uFEFF"
	}
	ending := editDetectLineEnding(content)
	base, next, err := editApply(editNormalizeToLF(content), args.Edits, args.Path)
	if err != nil {
		return loop.ToolResult{}, err
	}
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	if err := t.writer.write(abs, bom+editRestoreLineEndings(next, ending)); err != nil {
		return loop.ToolResult{}, err
	}
	diff, first := textdiff.Format(base, next, textdiff.DefaultContext)
	return loop.ToolResult{
		Content: []provider.Content{provider.TextContent(fmt.Sprintf("Successfully replaced %d block(s) in %s.", len(args.Edits), args.Path))},
		Details: &EditDetails{Diff: diff, Patch: textdiff.Patch(args.Path, base, next, textdiff.DefaultContext), FirstChangedLine: first},
	}, nil
}

// editReadFile reads a file straight into a string (os.ReadFile and a conversion would copy it twice).
func editReadFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if info, err := f.Stat(); err == nil {
		b.Grow(int(info.Size()) + 1)
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

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
