package demo

import (
	"strings"
	"unicode"

	"github.com/pi-go/pi-go/internal/lazyregexp"
)

// intentKind is what the latest user message asks the demo to do with a tool.
type intentKind int

const (
	intentNone     intentKind = iota
	intentRun                 // run a command with bash
	intentRunVague            // "run the tests": a run request without a command
	intentRead                // read one or more files
	intentList                // list a directory
	intentExplore             // look around the project: list, then read the README, then summarise
)

type intent struct {
	kind    intentKind
	command string   // intentRun
	paths   []string // intentRead
	dir     string   // intentList ("" = the working directory)
}

// maxReads caps the parallel read calls one message can trigger.
const maxReads = 3

var (
	// A run verb that starts the message or a clause ("please run", "can you run", ", then run"), so
	// "how do I run pi with ollama?" is a question, not a command.
	reRun = lazyregexp.New(`(?i)(?:^|[.!?,;:]\s*|\b(?:please|pls|can you|could you|would you|will you|now|then|and|also|just|go ahead and|try to|try)\s+)(?:run|execute|exec)\b:?\s*(.*)`)
	// reFence is a fenced code block; its body is taken as the command.
	reFence    = lazyregexp.New("(?s)```[A-Za-z0-9_+-]*\\n(.*?)```")
	reBacktick = lazyregexp.New("`([^`\\n]+)`")
	reDollar   = lazyregexp.New(`^\$\s+(\S.*)$`)
	reReadVerb = lazyregexp.New(`(?i)\b(?:read|show|open|cat|display|view|print|look at|see|contents? of|what'?s in|what is in|inside|summari[sz]e|explain|check)\b`)
	reListWord = lazyregexp.New(`(?i)\b(?:list|show|display|what|which|see|view|give)\b[^.?!]*\b(?:files?|folders?|director(?:y|ies)|dirs?|contents|entries)\b`)
	reLs       = lazyregexp.New(`(?i)(?:^|\s)ls(?:\s|$|[.?!])|\bwhat'?s (?:in )?here\b|\bdirectory listing\b`)
	reExplore  = lazyregexp.New(`(?i)\b(?:summari[sz]e|overview|explore|look around|tour)\b|\bwhat (?:is|does) this (?:project|repo|repository|codebase|directory|folder)\b|\btell me about (?:this|the) (?:project|repo|repository|codebase)\b`)
	// reInDir finds the directory in "files in internal", "contents of cmd/pi".
	reInDir = lazyregexp.New(`(?i)\b(?:in|of|under|inside)\s+(?:the\s+)?([~A-Za-z0-9_./-]+)`)
)

// notCommandStart are first words after "run" that make a phrase, not a command line.
var notCommandStart = map[string]bool{
	"the": true, "a": true, "an": true, "some": true, "my": true, "this": true, "that": true,
	"these": true, "those": true, "it": true, "all": true, "any": true, "tests": true, "test": true,
	"me": true, "something": true, "anything": true, "your": true, "our": true, "everything": true,
	"commands": true, "command": true, "stuff": true, "again": true, "them": true, "on": true, "in": true,
}

// notDirWord are words after "in"/"of" that name the current directory rather than a path.
var notDirWord = map[string]bool{
	"this": true, "here": true, "current": true, "my": true, "that": true, "it": true, "directory": true,
	"folder": true, "dir": true, "repo": true, "repository": true, "project": true, "cwd": true,
	"workspace": true, "codebase": true, "there": true, "a": true, "detail": true, "order": true,
	"total": true, "all": true, "one": true, "them": true, "it.": true, "general": true,
}

// extensionlessFiles are file names recognised without an extension (as written, case-sensitive).
var extensionlessFiles = map[string]bool{
	"README": true, "LICENSE": true, "Makefile": true, "Dockerfile": true, "Justfile": true,
	"Gemfile": true, "Rakefile": true, "Procfile": true, "CHANGELOG": true, "AUTHORS": true,
	"NOTICE": true, "CODEOWNERS": true, "Containerfile": true, "Vagrantfile": true,
}

// recognise finds the tool request, if any, in a user message. Order matters: an explicit run wins,
// then a named file, then a directory listing, then a general look around.
func recognise(text string) intent {
	text = strings.TrimSpace(text)
	if cmd, ok := runCommand(text); ok {
		if cmd == "" {
			return intent{kind: intentRunVague}
		}
		return intent{kind: intentRun, command: cmd}
	}
	files, dirs := pathTokens(text)
	words := len(strings.Fields(text))
	if len(files) > 0 && (reReadVerb.MatchString(text) || words <= 4) {
		if len(files) > maxReads {
			files = files[:maxReads]
		}
		return intent{kind: intentRead, paths: files}
	}
	if reListWord.MatchString(text) || reLs.MatchString(text) {
		return intent{kind: intentList, dir: listDir(text, dirs)}
	}
	if reExplore.MatchString(text) {
		return intent{kind: intentExplore}
	}
	return intent{kind: intentNone}
}

// runCommand extracts the command of "run `go version`", "please run ls -la", "$ make". ok with an
// empty command means a run request whose command could not be told ("run the tests").
func runCommand(text string) (cmd string, ok bool) {
	if m := reDollar.FindStringSubmatch(firstLine(text)); m != nil {
		return strings.TrimSpace(m[1]), true
	}
	if m := reBacktick.FindStringSubmatch(text); m != nil && strings.TrimSpace(m[0]) == text {
		// A message that is nothing but `a command` (a lone path is a read request, handled later).
		if f, _ := pathTokens(text); len(f) == 0 {
			return strings.TrimSpace(m[1]), true
		}
	}
	// Only a run verb in the first line counts: a command mentioned further down a long message (a
	// pasted log, instructions being discussed) is not a request to run it.
	loc := reRun.FindStringSubmatchIndex(text)
	if loc == nil || strings.Contains(strings.TrimRight(text[:loc[2]], " \t\r\n:"), "\n") {
		return "", false
	}
	verbAt := loc[0]
	if m := reFence.FindStringSubmatch(text[verbAt:]); m != nil {
		return strings.TrimSpace(m[1]), true
	}
	if m := reBacktick.FindStringSubmatch(text[verbAt:]); m != nil {
		return strings.TrimSpace(m[1]), true
	}
	rest := firstLine(text[loc[2]:])
	rest = strings.TrimSpace(rest)
	for _, prefix := range []string{"the command ", "command ", "this command ", "this: ", "this "} {
		if strings.HasPrefix(strings.ToLower(rest), prefix) {
			rest = strings.TrimSpace(rest[len(prefix):])
		}
	}
	for _, suffix := range []string{" for me", " please", " now", " here"} {
		rest = strings.TrimSuffix(strings.TrimRight(rest, ".!? "), suffix)
	}
	rest = strings.TrimRight(rest, ".!? ")
	rest = strings.Trim(rest, `"'“”‘’`)
	fields := strings.Fields(rest)
	if len(fields) == 0 || notCommandStart[strings.ToLower(fields[0])] || !commandLike(fields[0]) {
		return "", true
	}
	return rest, true
}

// commandLike reports whether a word can be the program of a command line.
func commandLike(w string) bool {
	for _, r := range w {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_./~-+", r)) {
			return false
		}
	}
	return w != ""
}

// pathTokens finds the file paths (with an extension, a dotfile, a well-known name, or a path with a
// slash not ending in one) and directory paths (ending in a slash) mentioned in text, in order, once each.
func pathTokens(text string) (files, dirs []string) {
	seen := map[string]bool{}
	var tokens []string
	for _, m := range reBacktick.FindAllStringSubmatch(text, -1) {
		tokens = append(tokens, m[1])
	}
	tokens = append(tokens, strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;()[]{}<>\"“”‘`|", r)
	})...)
	for _, tok := range tokens {
		tok = strings.TrimPrefix(strings.TrimSpace(tok), "@")
		tok = strings.TrimRight(tok, ".,:;!?'’")
		if tok == "" || seen[tok] || strings.Contains(tok, "://") || !pathChars(tok) {
			continue
		}
		switch {
		case strings.HasSuffix(tok, "/") && strings.Trim(tok, "./") != "":
			seen[tok] = true
			dirs = append(dirs, tok)
		case fileLike(tok):
			seen[tok] = true
			files = append(files, tok)
		}
	}
	return files, dirs
}

func pathChars(tok string) bool {
	for _, r := range tok {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_./~-", r)) {
			return false
		}
	}
	return true
}

// fileLike reports whether a path-shaped token names a file.
func fileLike(tok string) bool {
	base := tok
	if i := strings.LastIndexByte(tok, '/'); i >= 0 {
		base = tok[i+1:]
	}
	if base == "" || strings.Trim(base, ".") == "" {
		return false
	}
	if extensionlessFiles[base] {
		return true
	}
	if base[0] == '.' && !strings.Contains(base[1:], ".") {
		return len(base) > 2 // .gitignore, .env
	}
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 {
		// "cmd/pi" could be a directory as well as a file: not a file request.
		return false
	}
	ext := base[dot+1:]
	if len(ext) > 10 {
		return false
	}
	hasLetter := false
	for _, r := range ext {
		if unicode.IsLetter(r) {
			hasLetter = true
		}
	}
	switch strings.ToLower(base) {
	case "e.g", "i.e", "etc", "vs", "pi.dev", "node.js":
		return false
	}
	if !strings.Contains(tok, "/") {
		switch strings.ToLower(ext) {
		case "com", "org", "net", "dev", "io": // a host name, not a file
			return false
		}
	}
	return hasLetter
}

// listDir picks the directory a list request names: a path ending in "/", else the word after
// "in"/"of"/"under" when it is path-like, else "" (the working directory).
func listDir(text string, dirs []string) string {
	if len(dirs) > 0 {
		return dirs[0]
	}
	for _, m := range reInDir.FindAllStringSubmatch(text, -1) {
		w := strings.TrimRight(m[1], ".,:;!?")
		if w == "" || notDirWord[strings.ToLower(w)] || w == "." || w == "./" {
			continue
		}
		if strings.ContainsAny(w, "/.~") || !isEnglishFiller(w) {
			return w
		}
	}
	return ""
}

// isEnglishFiller reports words that follow "in" in ordinary sentences ("in short", "in detail").
func isEnglishFiller(w string) bool {
	switch strings.ToLower(w) {
	case "short", "detail", "brief", "full", "general", "order", "total", "turn", "case", "fact",
		"particular", "there", "here", "which", "alphabetical", "columns", "a", "an", "your":
		return true
	}
	return false
}

// reFileBlock is a file attached with @path: pi inlines it as <file name="/abs/path">…</file>.
var reFileBlock = lazyregexp.New(`(?s)<file name="([^"]*)">\n?(.*?)\n?</file>\n?`)

type attachedFile struct {
	name, content string
}

// splitFileBlocks takes the attached files out of a message, so that words inside them are never
// taken for requests (a README saying "run make install" must not run anything).
func splitFileBlocks(text string) (string, []attachedFile) {
	var files []attachedFile
	for _, m := range reFileBlock.FindAllStringSubmatch(text, -1) {
		files = append(files, attachedFile{name: m[1], content: m[2]})
	}
	if files == nil {
		return text, nil
	}
	return strings.TrimSpace(reFileBlock.ReplaceAllString(text, "")), files
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
