package main

import (
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
)

// signature names a line for sequence comparison: its type, plus the assistant event type of a
// message_update, the command of a response, the role of a message event.
func signature(o *Obj) string {
	s := o.Str("type")
	switch s {
	case "message_update":
		if e, ok := o.Get("assistantMessageEvent").(*Obj); ok {
			s += "/" + e.Str("type")
		}
	case "response":
		s += "/" + o.Str("command")
		if ok, _ := o.Get("success").(bool); !ok {
			s += "(failed)"
		}
	case "message_start", "message_end":
		if m, ok := o.Get("message").(*Obj); ok {
			s += "/" + m.Str("role")
		}
	case "message":
		if m, ok := o.Get("message").(*Obj); ok {
			s += "/" + m.Str("role")
		}
	}
	return s
}

// stripPartial drops the partial-message snapshots of message_update events (pi 0.73.1). pi
// serialises its shared, still-mutating partial message when the event is written, so pi's
// snapshots depend on chunk timing (text already complete at text_start, arguments ahead of the
// delta); pi-go's are exact snapshots. Everything else of the event is compared.
func stripPartial(o *Obj) *Obj {
	if o.Str("type") != "message_update" {
		return o
	}
	c := clone(o).(*Obj)
	c.Delete("message")
	if e, ok := c.Get("assistantMessageEvent").(*Obj); ok {
		e.Delete("partial")
	}
	return c
}

// maskUpdateUsage replaces the value of a delta-only message_update's usage (pi 1.6) by a
// placeholder: pi writes the live usage object of the streaming message when the event is
// dispatched, so its numbers depend on how far the stream had been read by then. Whether the field
// is there is still compared, and so is every other field (pi-go's partial snapshots included).
func maskUpdateUsage(o *Obj) *Obj {
	if o.Str("type") != "message_update" || o.Get("usage") == nil {
		return o
	}
	c := clone(o).(*Obj)
	c.Set("usage", "<usage>")
	return c
}

// normaliseAll normalises copies of the lines with one normaliser (ids numbered across the lines).
func normaliseAll(lines []*Obj, n *normaliser) []*Obj {
	out := make([]*Obj, len(lines))
	for i, l := range lines {
		out[i] = n.value(clone(l)).(*Obj)
	}
	return out
}

// compareSequences aligns two line sequences by signature (longest common subsequence), reports lines
// only one side has, and diffs the aligned pairs field by field.
func compareSequences(a, b []*Obj) []string {
	sa := make([]string, len(a))
	sb := make([]string, len(b))
	for i, o := range a {
		sa[i] = signature(o)
	}
	for i, o := range b {
		sb[i] = signature(o)
	}
	var out []string
	pairs := lcs(sa, sb)
	ia, ib := 0, 0
	flush := func(toA, toB int) {
		for ; ia < toA; ia++ {
			out = append(out, fmt.Sprintf("line %d only in pi: %s", ia, sa[ia]))
		}
		for ; ib < toB; ib++ {
			out = append(out, fmt.Sprintf("line %d only in pi-go: %s", ib, sb[ib]))
		}
	}
	for _, p := range pairs {
		flush(p[0], p[1])
		out = append(out, diffValues(fmt.Sprintf("[%d %s]", p[0], sa[p[0]]), a[p[0]], b[p[1]])...)
		ia, ib = p[0]+1, p[1]+1
	}
	flush(len(a), len(b))
	return out
}

// lcs returns index pairs of a longest common subsequence of a and b.
func lcs(a, b []string) [][2]int {
	n, m := len(a), len(b)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			out = append(out, [2]int{i, j})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// comparable prepares an event stream for comparison: partial snapshots stripped (pi 0.73.1) or
// the usage of delta-only updates masked (pi 1.6), tool_execution_update left out and consecutive
// bash_execution_update deltas of one command joined into one event (how a process's output is cut
// into updates depends on pipe timing), and each run of tool_execution_end events of one parallel
// batch put in tool-call order (they arrive in the order the tools finish).
func (c *checker) comparable(events []*Obj, n *normaliser) []*Obj {
	var out []*Obj
	for _, o := range normaliseAll(events, n) {
		switch o.Str("type") {
		case "tool_execution_update":
			continue
		case "bash_execution_update":
			if k := len(out) - 1; k >= 0 && out[k].Str("type") == o.Str("type") && render(out[k].Get("id")) == render(o.Get("id")) {
				out[k].Set("delta", out[k].Str("delta")+o.Str("delta"))
				continue
			}
		}
		if c.ver.deltaUpdates {
			out = append(out, maskUpdateUsage(o))
		} else {
			out = append(out, stripPartial(o))
		}
	}
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && out[j].Str("type") == "tool_execution_end" {
			j++
		}
		if j > i+1 {
			run := out[i:j]
			sort.SliceStable(run, func(x, y int) bool { return run[x].Str("toolCallId") < run[y].Str("toolCallId") })
		}
		i = max(j, i+1)
	}
	return out
}

// compareEvents compares two event streams (JSON mode or RPC output).
func (c *checker) compareEvents(what string, a, b []*Obj, na, nb *normaliser) {
	if c.ver.deltaUpdates {
		c.rep.noteOnce("message_update.usage values are not compared (pi writes the streaming message's live usage when it dispatches the event); their presence is")
	}
	c.rep.diffs(what, compareSequences(c.comparable(a, na), c.comparable(b, nb)))
}

// compareRequests compares request bodies pairwise. pi's documentation paragraph is removed from its
// system prompt first (noted once per call).
func (c *checker) compareRequests(what string, a, b []*Obj, wa, wb *workspace) {
	if len(a) != len(b) {
		c.rep.diffs(what, []string{fmt.Sprintf("request count: pi %d, pi-go %d", len(a), len(b))})
	}
	if ha, hb := wa.headers(), wb.headers(); len(ha) > 0 && len(hb) > 0 {
		c.compareHeaders(what, ha[0], hb[0])
	}
	noted := false
	for i := 0; i < len(a) && i < len(b); i++ {
		ra := c.norm(wa.root).value(clone(a[i])).(*Obj)
		rb := c.norm(wb.root).value(clone(b[i])).(*Obj)
		if msgs, ok := ra.Get("messages").([]any); ok && len(msgs) > 0 {
			if m, ok := msgs[0].(*Obj); ok {
				if s, ok := m.Get("content").(string); ok {
					if stripped, had := c.stripPiDocs(s); had {
						m.Set("content", stripped)
						if !noted {
							c.rep.note("%s: pi's system prompt points at its own installed docs (paths into pi's npm package); pi-go has none (removed before comparing)", what)
							noted = true
						}
					}
				}
			}
		}
		c.rep.diffs(fmt.Sprintf("%s: request %d", what, i+1), diffValues("body", ra, rb))
	}
}

// compareSessionFiles compares two session files line by line after normalisation.
func (c *checker) compareSessionFiles(what, pa, pb string, wa, wb *workspace) {
	la, errA := readLines(pa)
	lb, errB := readLines(pb)
	if errA != nil || errB != nil {
		c.rep.errorf("%s: reading session files: %v %v", what, errA, errB)
		return
	}
	na, nb := c.norm(wa.root), c.norm(wb.root)
	na.nameEntries(la)
	nb.nameEntries(lb)
	d := compareSequences(normaliseAll(la, na), normaliseAll(lb, nb))
	if len(d) == 0 {
		ra, _ := os.ReadFile(pa)
		rb, _ := os.ReadFile(pb)
		d = rawLinesDiff(string(ra), string(rb), wa.root, wb.root)
	}
	c.rep.diffs(what, d)
}

// rawLinesDiff compares JSONL texts whose entries already compare equal: the lines must then be the
// same bytes too (escaping, number formatting), once ids, times and paths are masked.
func rawLinesDiff(a, b, rootA, rootB string) []string {
	xa := strings.Split(maskRaw(a, rootA), "\n")
	xb := strings.Split(maskRaw(b, rootB), "\n")
	for i := 0; i < len(xa) && i < len(xb); i++ {
		if xa[i] != xb[i] {
			k := firstDiff([]byte(xa[i]), []byte(xb[i]))
			return []string{fmt.Sprintf("line %d differs in its bytes at %d: pi %q, pi-go %q", i+1, k,
				window(xa[i], k), window(xb[i], k))}
		}
	}
	return nil
}

var (
	rawIDRe       = regexp.MustCompile(`"(id|parentId|firstKeptEntryId|targetId|fromId)":"[0-9a-f-]+"`)
	rawTimeRe     = regexp.MustCompile(`"timestamp":("[^"]*"|\d+)`)
	rawDurationRe = regexp.MustCompile(`"(durationMs|wall_time_seconds)":[\d.]+`)
	// rawDocsRe is a pi 1.6 system message's docs section (removed structurally before, see stripDocs).
	rawDocsRe = regexp.MustCompile(`,"docs":"<docs>(?:[^"\\]|\\.)*"`)
)

// maskRaw hides what legitimately differs in a session file's text: the workspace path, ids, times,
// durations, and the docs section of pi 1.6's system messages.
func maskRaw(s, root string) string {
	s = rawDocsRe.ReplaceAllString(s, "")
	s = rawDurationRe.ReplaceAllString(s, `"$1":<d>`)
	s = strings.ReplaceAll(s, root, "<W>")
	s = strings.ReplaceAll(s, strings.ReplaceAll(strings.TrimPrefix(root, "/"), "/", "-"), "<W>")
	s = rawIDRe.ReplaceAllString(s, `"$1":"<id>"`)
	s = rawTimeRe.ReplaceAllString(s, `"timestamp":<t>`)
	s = fileTimeRe.ReplaceAllString(s, "<ftime>_")
	return uuidRe.ReplaceAllString(s, "<uuid>")
}

func window(s string, at int) string {
	return s[max(0, at-40):min(len(s), at+40)]
}

func readLines(path string) ([]*Obj, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseLines(data)
}

// writeTranscript saves lines for a later look.
func writeTranscript(path string, lines []string) {
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// compareSettings compares the settings.json each program left in its agent dir, byte for byte.
func (c *checker) compareSettings(what string, wa, wb *workspace) {
	a, errA := os.ReadFile(wa.agent + "/settings.json")
	b, errB := os.ReadFile(wb.agent + "/settings.json")
	switch {
	case errA != nil && errB != nil:
		c.rep.same(what)
	case errA != nil || errB != nil:
		c.rep.diffs(what, []string{fmt.Sprintf("settings.json: pi %v, pi-go %v", errA, errB)})
	case string(a) != string(b):
		c.rep.diffs(what, []string{fmt.Sprintf("settings.json: pi %q, pi-go %q", a, b)})
	default:
		c.rep.same(what)
	}
}

// clientHeaders are what each HTTP client adds of its own (pi's OpenAI SDK: X-Stainless-*, fetch's
// Sec-Fetch-Mode and Accept-Language, Accept: application/json; go-openai: Accept: text/event-stream,
// Cache-Control); listed in the README and not compared.
var clientHeaders = map[string]bool{"Accept": true, "Accept-Language": true, "Cache-Control": true,
	"Sec-Fetch-Mode": true, "User-Agent": true, "Accept-Encoding": true, "Connection": true}

// compareHeaders reports request headers only one program sends, and different values of the headers
// a server acts on.
func (c *checker) compareHeaders(what string, a, b http.Header) {
	var d []string
	for k := range a {
		if clientHeaders[k] || strings.HasPrefix(k, "X-Stainless-") {
			continue
		}
		if _, ok := b[k]; !ok {
			d = append(d, fmt.Sprintf("header %s only from pi (%q)", k, a.Get(k)))
		}
	}
	for k := range b {
		if clientHeaders[k] {
			continue
		}
		if _, ok := a[k]; !ok {
			d = append(d, fmt.Sprintf("header %s only from pi-go (%q)", k, b.Get(k)))
		}
	}
	for _, k := range []string{"Authorization", "Content-Type"} {
		if a.Get(k) != b.Get(k) {
			d = append(d, fmt.Sprintf("header %s: pi %q, pi-go %q", k, a.Get(k), b.Get(k)))
		}
	}
	sort.Strings(d)
	c.rep.diffs(what+": request headers", d)
}
