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

func (n *normaliser) id(v string) string {
	if r, ok := n.ids[v]; ok {
		return r
	}
	r := fmt.Sprintf("<id%d>", len(n.ids)+1)
	n.ids[v] = r
	return r
}

func (n *normaliser) value(v any) any {
	switch t := v.(type) {
	case *Obj:
		for _, k := range t.Keys {
			x := t.M[k]
			switch {
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

func (n *normaliser) str(s string) string {
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

// piDocsBlock is the paragraph pi 0.73.1 adds to its default system prompt pointing at its own
// installed README, docs and examples. pi-go ships no pi documentation, so it leaves the block out
// (reported once by the request check, then removed before comparing).
var piDocsBlock = regexp.MustCompile(`(?s)\n\nPi documentation \(read only when the user asks about pi itself.*?\n- Always read pi \.md files completely[^\n]*`)

// stripPiDocs removes pi's documentation paragraph from a system prompt.
func stripPiDocs(s string) (string, bool) {
	out := piDocsBlock.ReplaceAllString(s, "")
	return out, out != s
}
