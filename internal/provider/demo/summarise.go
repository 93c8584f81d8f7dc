package demo

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/lazyregexp"
)

var (
	reExit      = lazyregexp.New(`(?s)^(.*?)\s*Command exited with code (\d+)\s*$`)
	reTimeout   = lazyregexp.New(`(?s)^(.*?)\s*Command timed out after (\d+) seconds\s*$`)
	reAborted   = lazyregexp.New(`(?s)^(.*?)\s*Command aborted\s*$`)
	reNotice    = lazyregexp.New(`(?s)^(.*?)\n\n\[([^\n\]]*)\]\s*$`)
	reANSI      = lazyregexp.New("\x1b\\[[0-9;?]*[ -/]*[@-~]")
	reStop      = lazyregexp.New(`(?i)^\W*(?:stop|cancel|never ?mind|forget (?:it|that)|enough|halt|that'?s all|no more)\b`)
	reGoVersion = lazyregexp.New(`^go version go(\S+) (\S+)`)
	reGitBranch = lazyregexp.New(`(?m)^On branch (\S+)`)
	reLongLs    = lazyregexp.New(`^[-dlcbpsD][-rwxsStTl@+.]{9}`)
)

// quotedLines is how many lines of a file or an output the demo quotes.
const quotedLines = 5

// bashResult is a bash tool result taken apart: pi appends the exit status to the output.
type bashResult struct {
	output   string
	exit     int
	timeout  string // seconds, when it timed out
	aborted  bool
	notice   string // pi's truncation notice, without brackets
	noOutput bool
}

func parseBash(text string) bashResult {
	var r bashResult
	text = strings.TrimRight(text, "\n")
	if m := reExit.FindStringSubmatch(text); m != nil {
		r.exit, _ = strconv.Atoi(m[2])
		text = m[1]
	} else if m := reTimeout.FindStringSubmatch(text); m != nil {
		r.timeout = m[2]
		text = m[1]
	} else if m := reAborted.FindStringSubmatch(text); m != nil {
		r.aborted = true
		text = m[1]
	}
	if m := reNotice.FindStringSubmatch(text); m != nil && strings.Contains(m[2], "Full output") {
		text, r.notice = m[1], m[2]
	}
	text = strings.TrimRight(text, "\n")
	r.noOutput = text == "" || text == "(no output)"
	if !r.noOutput {
		r.output = text
	}
	return r
}

func (o outcome) aborted() bool {
	t := strings.TrimSpace(o.Text)
	return strings.HasSuffix(t, "Command aborted") || t == "Operation aborted" || t == "No result provided" ||
		(len(t) < 80 && strings.HasSuffix(strings.ToLower(t), "aborted"))
}

// failed reports a one-line error result (path not found, permission denied, …).
func (o outcome) failed() bool {
	t := strings.TrimSpace(o.Text)
	if t == "" || strings.Contains(t, "\n") || len(t) > 300 {
		return false
	}
	lower := strings.ToLower(t)
	for _, k := range []string{"no such file", "not found", "permission denied", "is a directory", "not a directory",
		"beyond end of file", "cannot read", "enoent", "eacces", "operation aborted"} {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return strings.HasPrefix(lower, "error")
}

// brief is a few words in parentheses about a result, for mentioning it in passing.
func (o outcome) brief() string {
	if o.failed() {
		return "(it failed)"
	}
	if l, ok := o.listing(); ok {
		return "(" + plural(len(l.entries), "entry", "entries") + ")"
	}
	switch o.Name {
	case "bash":
		b := parseBash(o.Text)
		if b.timeout != "" {
			return "(timed out)"
		}
		return fmt.Sprintf("(exit status %d)", b.exit)
	case "read":
		return "(" + plural(countLines(o.Text), "line", "lines") + ")"
	}
	return "(" + plural(countLines(o.Text), "line", "lines") + " of output)"
}

// listing is a directory listing parsed from an ls result or from `ls` run through bash.
type listing struct {
	entries []string // directories end in "/" when the format tells
	notice  string
}

func (o outcome) listing() (listing, bool) {
	switch {
	case o.Name == "ls" && !o.failed():
		text := strings.TrimRight(o.Text, "\n")
		var l listing
		if m := reNotice.FindStringSubmatch(text); m != nil {
			text, l.notice = m[1], m[2]
		}
		if strings.TrimSpace(text) == "(empty directory)" {
			return l, true
		}
		for _, line := range strings.Split(text, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				l.entries = append(l.entries, line)
			}
		}
		return l, true
	case o.Name == "bash" && isLsCommand(o.arg("command")):
		b := parseBash(o.Text)
		if b.exit != 0 || b.aborted || b.timeout != "" {
			return listing{}, false
		}
		var l listing
		for _, line := range strings.Split(b.output, "\n") {
			fields := strings.Fields(line)
			switch {
			case len(fields) == 0 || (len(fields) == 2 && fields[0] == "total"):
			case len(fields) >= 9 && reLongLs.MatchString(fields[0]):
				name := strings.Join(fields[8:], " ")
				if i := strings.Index(name, " -> "); i >= 0 {
					name = name[:i]
				}
				if name == "." || name == ".." {
					continue
				}
				if fields[0][0] == 'd' {
					name += "/"
				}
				l.entries = append(l.entries, name)
			default:
				l.entries = append(l.entries, fields...)
			}
		}
		return l, true
	}
	return listing{}, false
}

func isLsCommand(cmd string) bool {
	f := strings.Fields(cmd)
	return len(f) > 0 && f[0] == "ls" && !strings.ContainsAny(cmd, "|;&><")
}

// summarise describes one tool result in a paragraph or two.
func (p *planner) summarise(o outcome) string {
	if o.aborted() {
		return fmt.Sprintf("%s was aborted before it finished, so there is no result to report.", capitalise(o.label()))
	}
	switch o.Name {
	case "ls":
		if o.failed() {
			return fmt.Sprintf("Listing failed: %s", strings.TrimSpace(o.Text))
		}
		l, _ := o.listing()
		return p.describeListing(o.label(), l)
	case "read":
		return p.describeFile(o.arg("path"), o.Text)
	case "bash":
		return p.describeBash(o)
	}
	if o.failed() {
		return fmt.Sprintf("%s reported an error: %s", capitalise(o.label()), strings.TrimSpace(o.Text))
	}
	lines := outputLines(o.Text)
	if len(lines) == 0 {
		return fmt.Sprintf("%s returned nothing.", capitalise(o.label()))
	}
	return fmt.Sprintf("%s returned %s:\n\n%s", capitalise(o.label()), plural(len(lines), "line", "lines"), fence("", excerpt(lines, quotedLines, 0)))
}

func (p *planner) describeListing(label string, l listing) string {
	if len(l.entries) == 0 {
		return fmt.Sprintf("%s shows an empty directory.", capitalise(label))
	}
	var dirs, files, hidden []string
	for _, e := range l.entries {
		if strings.HasSuffix(e, "/") {
			dirs = append(dirs, e)
		} else {
			files = append(files, e)
		}
		if strings.HasPrefix(e, ".") {
			hidden = append(hidden, e)
		}
	}
	var b strings.Builder
	count := plural(len(l.entries), "entry", "entries")
	switch p.choose("listing", 3) {
	case 0:
		fmt.Fprintf(&b, "%s shows %s", capitalise(label), count)
	case 1:
		fmt.Fprintf(&b, "%s lists %s", capitalise(label), count)
	default:
		fmt.Fprintf(&b, "There are %s in %s", count, strings.ToLower(label[:1])+label[1:])
	}
	switch {
	case len(dirs) > 0 && len(files) > 0:
		fmt.Fprintf(&b, ": %s (%s) and %s", plural(len(dirs), "directory", "directories"), namesList(dirs, 5), plural(len(files), "file", "files"))
		if notable := notableFiles(files); len(notable) > 0 {
			fmt.Fprintf(&b, ", among them %s", codeList(notable))
		}
		b.WriteString(".")
	case len(dirs) > 0:
		fmt.Fprintf(&b, ", all directories: %s.", namesList(dirs, 6))
	default:
		fmt.Fprintf(&b, ": %s.", namesList(files, 6))
	}
	if len(hidden) > 0 {
		fmt.Fprintf(&b, " %s hidden (%s).", map[bool]string{true: "One is", false: fmt.Sprint(len(hidden), " are")}[len(hidden) == 1], namesList(hidden, 3))
	}
	if kind := projectKind(l.entries); kind != "" {
		b.WriteString(" " + kind)
	}
	if l.notice != "" {
		fmt.Fprintf(&b, " The listing was cut short (%s).", l.notice)
	}
	return b.String()
}

// namesList writes up to max names in backticks, then how many more.
func namesList(names []string, max int) string {
	if len(names) <= max {
		return codeList(names)
	}
	quoted := make([]string, max)
	for i, n := range names[:max] {
		quoted[i] = "`" + n + "`"
	}
	return strings.Join(quoted, ", ") + fmt.Sprintf(" and %d more", len(names)-max)
}

// notableFiles picks up to three files a developer would look at first.
func notableFiles(files []string) []string {
	var out []string
	for _, f := range files {
		lower := strings.ToLower(f)
		if strings.HasPrefix(lower, "readme") || strings.HasPrefix(lower, "main.") || f == "go.mod" || f == "package.json" ||
			f == "Makefile" || f == "Cargo.toml" || f == "pyproject.toml" || f == "Dockerfile" || f == "AGENTS.md" {
			out = append(out, f)
		}
		if len(out) == 3 {
			break
		}
	}
	return out
}

// projectKind guesses what kind of project a listing belongs to.
func projectKind(entries []string) string {
	has := map[string]bool{}
	for _, e := range entries {
		has[e] = true
	}
	var kind string
	switch {
	case has["go.mod"]:
		kind = "a Go module"
	case has["package.json"]:
		kind = "a JavaScript/TypeScript package"
	case has["Cargo.toml"]:
		kind = "a Rust crate"
	case has["pyproject.toml"] || has["setup.py"] || has["requirements.txt"]:
		kind = "a Python project"
	case has["pom.xml"] || has["build.gradle"]:
		kind = "a Java project"
	case has["Gemfile"]:
		kind = "a Ruby project"
	}
	git := has[".git/"] || has[".git"]
	switch {
	case kind != "" && git:
		return "It looks like " + kind + " under git."
	case kind != "":
		return "It looks like " + kind + "."
	case git:
		return "It's a git repository."
	}
	return ""
}

// describeFile summarises a file's content as read returned it (or as cat printed it).
func (p *planner) describeFile(name, text string) string {
	label := "`" + name + "`"
	if name == "" {
		label = "The file"
	}
	if (outcome{Text: text}).failed() {
		return fmt.Sprintf("Reading %s failed: %s", label, strings.TrimSpace(text))
	}
	if strings.HasPrefix(text, "Read image file [") {
		mime := strings.TrimSuffix(strings.TrimPrefix(firstLine(text), "Read image file ["), "]")
		return fmt.Sprintf("%s is an image (%s). I'm scripted and can't look at it; a model with image input would see it.", capitalise(label), mime)
	}
	content := strings.TrimRight(text, "\n")
	notice := ""
	if m := reNotice.FindStringSubmatch(content); m != nil && (strings.Contains(m[2], "Showing lines") || strings.Contains(m[2], "more lines in file")) {
		content, notice = m[1], m[2]
	}
	if strings.TrimSpace(content) == "" {
		return fmt.Sprintf("%s is empty.", capitalise(label))
	}
	lines := outputLines(content)
	var b strings.Builder
	size := plural(len(lines), "line", "lines")
	switch p.choose("file", 3) {
	case 0:
		fmt.Fprintf(&b, "%s has %s (%s).", capitalise(label), size, formatSize(len(content)))
	case 1:
		fmt.Fprintf(&b, "%s is %s long (%s).", capitalise(label), size, formatSize(len(content)))
	default:
		fmt.Fprintf(&b, "I read %s: %s, %s.", strings.ToLower(label[:1])+label[1:], size, formatSize(len(content)))
	}
	if notice != "" {
		fmt.Fprintf(&b, " That is only part of it: %s.", strings.TrimSuffix(notice, "."))
	}
	b.WriteString(" " + p.pick("begins", "It begins:", "The first lines:", "Here's how it starts:") + "\n\n")
	b.WriteString(fence(fenceLang(name), excerpt(lines, quotedLines, 0)))
	if facts := fileFacts(name, content); facts != "" {
		b.WriteString("\n\n" + facts)
	}
	return b.String()
}

var (
	reGoPackage = lazyregexp.New(`(?m)^package (\w+)`)
	reGoFunc    = lazyregexp.New(`(?m)^func (?:\([^)]*\) )?(\w+)`)
	reGoModule  = lazyregexp.New(`(?m)^module (\S+)`)
	reGoDirect  = lazyregexp.New(`(?m)^go (\S+)`)
	reMdHeading = lazyregexp.New(`(?m)^#{1,3} +(.+?)\s*#*$`)
)

// fileFacts adds what a reader would notice first about a known kind of file.
func fileFacts(name, content string) string {
	base := path.Base(name)
	switch {
	case base == "go.mod":
		var parts []string
		if m := reGoModule.FindStringSubmatch(content); m != nil {
			parts = append(parts, "declares module `"+m[1]+"`")
		}
		if m := reGoDirect.FindStringSubmatch(content); m != nil {
			parts = append(parts, "for Go "+m[1])
		}
		if n := goModRequirements(content); n > 0 {
			parts = append(parts, "with "+plural(n, "requirement", "requirements"))
		}
		if len(parts) > 0 {
			return "It " + strings.Join(parts, " ") + "."
		}
	case strings.HasSuffix(base, ".go"):
		pkg := reGoPackage.FindStringSubmatch(content)
		funcs := reGoFunc.FindAllStringSubmatch(content, -1)
		if pkg == nil {
			return ""
		}
		s := "It's in package `" + pkg[1] + "`"
		if len(funcs) > 0 {
			var names []string
			for _, f := range funcs {
				names = append(names, f[1])
			}
			s += " and defines " + plural(len(funcs), "function", "functions") + " (" + namesList(names, 4) + ")"
		}
		return s + "."
	case strings.HasSuffix(strings.ToLower(base), ".md"):
		hs := reMdHeading.FindAllStringSubmatch(content, -1)
		if len(hs) > 1 {
			var names []string
			for _, h := range hs[1:] {
				names = append(names, "“"+clip(h[1], 40)+"”")
				if len(names) == 4 {
					break
				}
			}
			return "Its sections include " + strings.Join(names, ", ") + "."
		}
	case base == "package.json":
		var pkg struct {
			Name    string            `json:"name"`
			Scripts map[string]string `json:"scripts"`
		}
		if json.Unmarshal([]byte(content), &pkg) == nil && pkg.Name != "" {
			s := "The package is `" + pkg.Name + "`"
			if len(pkg.Scripts) > 0 {
				var names []string
				for k := range pkg.Scripts {
					names = append(names, k)
				}
				s += ", with scripts " + namesList(sortedStrings(names), 4)
			}
			return s + "."
		}
	}
	return ""
}

// goModRequirements counts the modules a go.mod requires (in require blocks and single lines).
func goModRequirements(content string) int {
	n, inBlock := 0, false
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "" && !strings.HasPrefix(line, "//"):
			n++
		case line == "require (":
			inBlock = true
		case strings.HasPrefix(line, "require "):
			n++
		}
	}
	return n
}

func (p *planner) describeBash(o outcome) string {
	cmd := o.arg("command")
	label := capitalise(o.label())
	if strings.HasPrefix(cmd, "cat -- ") || strings.HasPrefix(cmd, "cat ") {
		if b := parseBash(o.Text); b.exit == 0 && !b.aborted && b.timeout == "" {
			return p.describeFile(strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(cmd, "cat"), " --")), b.output)
		}
	}
	b := parseBash(o.Text)
	var s strings.Builder
	switch {
	case b.aborted:
		fmt.Fprintf(&s, "%s was aborted before it finished", label)
	case b.timeout != "":
		fmt.Fprintf(&s, "%s timed out after %s seconds", label, b.timeout)
	case b.exit != 0:
		fmt.Fprintf(&s, "%s failed with exit status %d", label, b.exit)
	default:
		fmt.Fprintf(&s, p.pick("bash", "%s finished with exit status 0", "%s succeeded (exit status 0)", "%s ran fine (exit status 0)"), label)
	}
	lines := outputLines(b.output)
	l, isListing := o.listing()
	switch {
	case b.noOutput:
		s.WriteString(" and printed nothing.")
	case isListing:
		// The listing itself is described below; quoting ls -la's columns would only repeat it.
		s.WriteString(".")
	default:
		fmt.Fprintf(&s, " and printed %s:\n\n%s", plural(len(lines), "line", "lines"), fence("", excerpt(lines, quotedLines, 2)))
	}
	if b.notice != "" {
		fmt.Fprintf(&s, "\n\nThe output was long, so the tool kept only its end (%s).", b.notice)
	}
	if isListing {
		s.WriteString(" " + p.describeListing("the listing", l))
	}
	if m := reGoVersion.FindStringSubmatch(b.output); m != nil {
		fmt.Fprintf(&s, "\n\nSo you have Go %s on %s.", m[1], m[2])
	}
	if m := reGitBranch.FindStringSubmatch(b.output); m != nil {
		fmt.Fprintf(&s, "\n\nYou're on branch `%s`.", m[1])
	}
	return s.String()
}

// outputLines splits text into lines without ANSI escapes and without the final empty line.
func outputLines(text string) []string {
	text = strings.TrimRight(reANSI.ReplaceAllString(text, ""), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

func countLines(text string) int { return len(outputLines(text)) }

// excerpt keeps the first head lines (and the last tail ones) of a long text, each line clipped.
func excerpt(lines []string, head, tail int) []string {
	if len(lines) <= head+tail+1 {
		return clipLines(lines)
	}
	out := clipLines(lines[:head])
	out = append(out, fmt.Sprintf("… (%d more lines)", len(lines)-head-tail))
	return append(out, clipLines(lines[len(lines)-tail:])...)
}

func clipLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = clip(strings.ReplaceAll(l, "\t", "    "), 120)
	}
	return out
}

// fenceLang names the code-block language for a file name.
func fenceLang(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".go":
		return "go"
	case ".md":
		return "markdown"
	case ".json":
		return "json"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".ts", ".tsx":
		return "typescript"
	case ".py":
		return "python"
	case ".rs":
		return "rust"
	case ".sh", ".bash":
		return "bash"
	case ".yaml", ".yml":
		return "yaml"
	case ".toml":
		return "toml"
	case ".html":
		return "html"
	case ".css":
		return "css"
	case ".c", ".h":
		return "c"
	}
	if path.Base(name) == "go.mod" {
		return "go"
	}
	return ""
}
