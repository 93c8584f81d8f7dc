package main

import (
	"fmt"
	"regexp"
	"strings"
)

// normaliser rewrites what legitimately differs between two runs: the workspace path, timestamps,
// entry and session ids (numbered in order of first appearance, so the tree structure still
// compares), session file names and bash log paths. Tool-call ids and response ids come from the
// scripted server and are kept.
type normaliser struct {
	root string
	// encodedRoot is root as it appears in a session directory name (slashes as dashes).
	encodedRoot string
	ids         map[string]string
	numbered    int
	// piPackage is the pi package directory (named in pi's system prompt), written <pi-package>.
	piPackage string
	// onDocs, when set, is called each time a system message's docs section is removed (pi's
	// pointer to its own installed documentation; pi-go ships none).
	onDocs func()
}

// norm returns a normaliser for a workspace root that also knows the pi under test.
func (c *checker) norm(root string) *normaliser {
	n := newNormaliser(root)
	n.piPackage = c.piPackage
	n.onDocs = func() {
		c.rep.noteOnce("pi's system messages have a sections.docs (paths into pi's npm package); pi-go ships no pi docs (removed before comparing)")
	}
	return n
}

func newNormaliser(root string) *normaliser {
	return &normaliser{root: root, encodedRoot: strings.ReplaceAll(strings.TrimPrefix(root, "/"), "/", "-"),
		ids: map[string]string{}}
}

var (
	uuidRe     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	hex8Re     = regexp.MustCompile(`^[0-9a-f]{8}$`)
	fileTimeRe = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_`)
	isoTimeRe  = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)
	bashLogRe  = regexp.MustCompile(`/tmp/pi-bash-[0-9a-f]+\.log`)
	localURLRe = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	dateLineRe = regexp.MustCompile(`Current date: \d{4}-\d\d-\d\d`)
)

// idKeys hold entry or session ids.
var idKeys = map[string]bool{"id": true, "parentId": true, "entryId": true, "sessionId": true,
	"firstKeptEntryId": true, "targetId": true, "fromId": true}

// nameEntries names the ids of session entries after their entry: its signature and occurrence
// ("<message/user#2>"), so an entry only one program writes (pi 1.6's system messages) does not
// renumber every later id: a parentId then differs only where the tree really differs.
func (n *normaliser) nameEntries(lines []*Obj) {
	count := map[string]int{}
	for _, l := range lines {
		id := l.Str("id")
		if _, done := n.ids[id]; id == "" || done {
			continue
		}
		sig := signature(l)
		count[sig]++
		n.ids[id] = fmt.Sprintf("<%s#%d>", sig, count[sig])
	}
}

func (n *normaliser) id(v string) string {
	if r, ok := n.ids[v]; ok {
		return r
	}
	// Numbered apart from the entries nameEntries named, so one extra entry does not renumber them.
	n.numbered++
	r := fmt.Sprintf("<id%d>", n.numbered)
	n.ids[v] = r
	return r
}

func (n *normaliser) value(v any) any {
	switch t := v.(type) {
	case *Obj:
		n.stripDocs(t)
		for _, k := range t.Keys {
			x := t.M[k]
			switch {
			case k == "durationMs" || k == "wall_time_seconds":
				// pi 1.6 times assistant messages and tool runs (and its bash tool reports the wall
				// time in structuredContent): never equal twice.
				if x != nil {
					t.M[k] = "<duration>"
				}
			case k == "timestamp":
				if _, ok := x.(string); ok {
					t.M[k] = "<time>"
				} else if x != nil {
					t.M[k] = "<ms>"
				}
			case idKeys[k]:
				if s, ok := x.(string); ok && (hex8Re.MatchString(s) || uuidRe.MatchString(s) && len(s) == 36) {
					t.M[k] = n.id(s)
				}
			default:
				t.M[k] = n.value(x)
			}
		}
		return t
	case []any:
		for i := range t {
			t[i] = n.value(t[i])
		}
		return t
	case string:
		return n.str(t)
	default:
		return v
	}
}

// stripDocs removes the docs section of a pi 1.6 system message (role "system" with sections).
func (n *normaliser) stripDocs(o *Obj) {
	if n.onDocs == nil || o.Str("role") != "system" {
		return
	}
	if sec, ok := o.Get("sections").(*Obj); ok {
		if _, has := sec.M["docs"]; has {
			sec.Delete("docs")
			n.onDocs()
		}
	}
}

func (n *normaliser) str(s string) string {
	if n.piPackage != "" {
		s = strings.ReplaceAll(s, n.piPackage, "<pi-package>")
	}
	if n.root != "" {
		s = strings.ReplaceAll(s, n.root, "<W>")
		s = strings.ReplaceAll(s, n.encodedRoot, "<W>")
	}
	s = localURLRe.ReplaceAllString(s, "http://127.0.0.1:<port>")
	if isoTimeRe.MatchString(s) {
		return "<time>"
	}
	s = fileTimeRe.ReplaceAllString(s, "<ftime>_")
	s = bashLogRe.ReplaceAllString(s, "/tmp/pi-bash-<hex>.log")
	s = dateLineRe.ReplaceAllString(s, "Current date: <date>")
	return uuidRe.ReplaceAllStringFunc(s, n.id)
}

// stripPiDocs removes the part of pi's default system prompt pointing at its own installed README,
// docs and examples (pi 0.73.1: a paragraph; pi 1.6: the <docs> section). pi-go ships no pi
// documentation, so it leaves the block out (reported once by the request check, then removed before
// comparing).
func (c *checker) stripPiDocs(s string) (string, bool) {
	out := c.ver.docsBlock.ReplaceAllString(s, "")
	return out, out != s
}
