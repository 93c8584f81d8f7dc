package session

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/pi-go/pi-go/internal/provider"
)

// ModelRef names a model as the session records it.
type ModelRef struct {
	Provider string
	ModelID  string
}

// Context is what a branch gives the model: its messages, and the thinking level and model in force
// at its leaf.
type Context struct {
	Messages      []provider.Message
	ThinkingLevel provider.ThinkingLevel // "off" when the path never set one
	Model         *ModelRef              // nil when the path names none
}

// BuildContext rebuilds the model context of the current leaf (pi-reference §5.5): the path from the
// root, with the latest compaction's summary replacing what came before its first kept entry, branch
// summaries and custom messages as messages, and the last model and thinking level of the path. As in
// pi 1.6, the compaction's system message checkpoint leads (the prompt and tools it replayed to) and
// system messages among the kept entries are dropped in its favour. Context edits (pi 1.6) among the
// entries that contribute apply, the latest per target: a null replacement leaves the target out, any
// other replaces its content. A message that cannot be decoded is left out and reported in Warnings;
// the error is for reading the file.
func (m *Manager) BuildContext() (Context, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.leaf == nil {
		return Context{ThinkingLevel: provider.ThinkingOff}, nil
	}
	ctx, warns, err := buildContext(pathTo(m.leaf, m.byID))
	m.warnings = append(m.warnings, warns...)
	return ctx, err
}

// BuildContext rebuilds the context of the branch ending at leafID among entries (in file order). An
// empty or unknown leafID means the last entry, as in pi.
func BuildContext(entries []*Entry, leafID string) (Context, error) {
	if len(entries) == 0 {
		return Context{ThinkingLevel: provider.ThinkingOff}, nil
	}
	byID := make(map[string]*Entry, len(entries))
	for _, e := range entries {
		byID[e.ID] = e
	}
	leaf := byID[leafID]
	if leaf == nil {
		leaf = entries[len(entries)-1]
	}
	ctx, _, err := buildContext(pathTo(leaf, byID))
	return ctx, err
}

func buildContext(path []*Entry) (Context, []Warning, error) {
	ctx := Context{ThinkingLevel: provider.ThinkingOff}
	compaction := -1
	for i, e := range path {
		switch e.Type {
		case TypeThinkingLevelChange:
			ctx.ThinkingLevel = provider.ThinkingLevel(e.ThinkingLevel)
		case TypeModelChange:
			ctx.Model = &ModelRef{Provider: e.Provider, ModelID: e.ModelID}
		case TypeMessage:
			if e.Role == provider.RoleAssistant {
				ctx.Model = &ModelRef{Provider: e.asstProvider, ModelID: e.asstModel}
			}
		case TypeCompaction:
			compaction = i
		}
	}
	// the entries that contribute, in order (pi's buildContextEntries): the latest compaction, the
	// entries it kept (their system messages give way to its checkpoint), then those after it
	var use []*Entry
	if compaction >= 0 {
		c := path[compaction]
		use = append(use, c)
		kept := -1
		for i := 0; i < compaction; i++ {
			if path[i].ID == c.FirstKeptEntryID {
				kept = i
				break
			}
		}
		// kept < 0: a retain-none compaction (firstKeptEntryId is its own id) or a kept entry that is
		// not on the path; either way nothing before the compaction remains
		if kept >= 0 {
			for _, e := range path[kept:compaction] {
				if e.Type != TypeMessage || e.Role != provider.RoleSystem {
					use = append(use, e)
				}
			}
		}
		use = append(use, path[compaction+1:]...)
	} else {
		use = path
	}
	// Context edits apply from the entries that contribute: an edit the latest compaction summarised
	// away is gone with what it edited. The latest edit of a target wins.
	edits := latestEdits(use)
	warns, err := decodeAll(use)
	if err != nil {
		return ctx, warns, err
	}
	msgs := make([]provider.Message, 0, len(use)+2)
	var own []provider.Message // the messages of one entry
	for i, e := range use {
		own = own[:0]
		switch e.Type {
		case TypeCompaction:
			if i > 0 {
				continue // an older compaction among the kept entries contributes nothing
			}
			if e.SystemMessage != nil {
				if cp, err := decodeCheckpoint(e.SystemMessage); err != nil {
					warns = append(warns, Warning{Line: e.lineNo, Message: fmt.Sprintf("system message of compaction %s left out of the context: %v", e.ID, err)})
				} else {
					own = append(own, cp)
				}
			}
			own = append(own, &provider.CompactionSummaryMessage{Summary: e.Summary, TokensBefore: e.TokensBefore, Timestamp: e.Time()})
		case TypeMessage:
			if msg := e.cached(); msg != nil {
				own = append(own, msg)
			}
		case TypeCustomMessage:
			own = append(own, &provider.CustomMessage{
				CustomType: e.CustomType, Content: e.Content, ContentIsString: e.ContentIsString,
				Display: e.Display, Details: detailsValue(e.Details), Timestamp: e.Time(),
			})
		case TypeBranchSummary:
			if e.Summary != "" {
				own = append(own, &provider.BranchSummaryMessage{Summary: e.Summary, FromID: e.FromID, Timestamp: e.Time()})
			}
		}
		if edit := edits[e.ID]; edit != nil {
			msgs = appendEdited(msgs, own, edit.Replacement)
			continue
		}
		msgs = append(msgs, own...)
	}
	ctx.Messages = msgs
	return ctx, warns, nil
}

// appendEdited appends an entry's messages as a context edit leaves them (pi's projectContextEntry):
// none for a null replacement; otherwise user, assistant, tool result and custom messages get the
// replacement content (a string becomes one text block for assistant and tool results, which have
// no string form), the others stay as they are.
func appendEdited(msgs, own []provider.Message, r *Replacement) []provider.Message {
	if r == nil {
		return msgs
	}
	for _, m := range own {
		switch x := m.(type) {
		case *provider.UserMessage:
			c := *x
			c.Content, c.ContentIsString = provider.CloneContent(r.Content), r.IsString
			m = &c
		case *provider.AssistantMessage:
			c := *x
			c.Content = provider.CloneContent(r.Content)
			m = &c
		case *provider.ToolResultMessage:
			c := *x
			c.Content = provider.CloneContent(r.Content)
			m = &c
		case *provider.CustomMessage:
			c := *x
			c.Content, c.ContentIsString = provider.CloneContent(r.Content), r.IsString
			m = &c
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// decodeCheckpoint decodes a compaction's system message.
func decodeCheckpoint(raw json.RawMessage) (*provider.SystemMessage, error) {
	m, err := provider.UnmarshalMessage(raw)
	if err != nil {
		return nil, err
	}
	sm, ok := m.(*provider.SystemMessage)
	if !ok {
		return nil, fmt.Errorf("a %s message, not a system message", m.Role())
	}
	return sm, nil
}

// detailsValue decodes details as provider messages hold them (a generic JSON value).
func detailsValue(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// parallelDecodeBytes is the amount of undecoded message bytes from which decoding is spread over
// the CPUs; below it the goroutines cost more than they save.
const parallelDecodeBytes = 4 << 20

// pendingDecode is an entry to decode with the location it had when decoding started.
type pendingDecode struct {
	e   *Entry
	loc *location
}

// decodeAll makes sure every message entry in es is decoded. Lines are read back from the file in
// file order, in large sequential reads, and decoded on all CPUs when there is much to do.
func decodeAll(es []*Entry) ([]Warning, error) {
	var todo []pendingDecode
	total := 0
	for _, e := range es {
		if e.Type == TypeMessage && e.cached() == nil {
			l := e.where()
			todo = append(todo, pendingDecode{e, l})
			total += l.size
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	// group by file (a fork may mix entries of two files), then file order
	srcRank := map[*source]int{}
	for _, t := range todo {
		if _, ok := srcRank[t.loc.src]; !ok {
			srcRank[t.loc.src] = len(srcRank)
		}
	}
	sort.SliceStable(todo, func(i, j int) bool {
		if a, b := srcRank[todo[i].loc.src], srcRank[todo[j].loc.src]; a != b {
			return a < b
		}
		return todo[i].loc.off < todo[j].loc.off
	})
	workers := runtime.GOMAXPROCS(0)
	if total < parallelDecodeBytes || workers < 2 {
		workers = 1
	}
	// split into contiguous shares of about equal bytes; each worker reads and decodes its share
	shares := make([][]pendingDecode, 0, workers)
	per := total/workers + 1
	startIdx, acc := 0, 0
	for i, t := range todo {
		acc += t.loc.size
		if acc >= per && len(shares) < workers-1 {
			shares = append(shares, todo[startIdx:i+1])
			startIdx, acc = i+1, 0
		}
	}
	shares = append(shares, todo[startIdx:])
	type result struct {
		warns []Warning
		err   error
	}
	results := make([]result, len(shares))
	var wg sync.WaitGroup
	for i, share := range shares {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].warns, results[i].err = decodeShare(share)
		}()
	}
	wg.Wait()
	var warns []Warning
	for _, r := range results {
		warns = append(warns, r.warns...)
		if r.err != nil {
			return warns, r.err
		}
	}
	return warns, nil
}

// readWindow is how much of the file one read brings in while decoding.
const readWindow = 1 << 20

// decodeShare decodes entries sorted by file offset, reading the file through a window so that
// thousands of small lines cost a few large reads.
func decodeShare(ps []pendingDecode) ([]Warning, error) {
	var warns []Warning
	var dec provider.MessageDecoder
	var win []byte
	var winSrc *source
	var winOff int64
	for i := 0; i < len(ps); i++ {
		e, l := ps[i].e, ps[i].loc
		var line []byte
		switch {
		case l.line != nil:
			line = l.line
		case l.src == nil:
			warns = append(warns, Warning{Line: e.lineNo, Message: fmt.Sprintf("entry %s has no data", e.ID)})
			continue
		default:
			if winSrc != l.src || l.off < winOff || l.off+int64(l.size) > winOff+int64(len(win)) {
				// read from this entry up to the end of the last entry that fits in the window
				end := l.off + int64(l.size)
				for j := i + 1; j < len(ps) && ps[j].loc.src == l.src && ps[j].loc.line == nil; j++ {
					je := ps[j].loc.off + int64(ps[j].loc.size)
					if je-l.off > readWindow || je < end {
						break
					}
					end = je
				}
				n := int(end - l.off)
				if cap(win) < n {
					win = make([]byte, n)
				}
				win = win[:n]
				if err := l.src.readAt(win, l.off); err != nil {
					return warns, err
				}
				winSrc, winOff = l.src, l.off
			}
			rel := int(l.off - winOff)
			line = win[rel : rel+l.size]
			if crcOf(line) != l.sum {
				return warns, fmt.Errorf("session file %s changed on disk since it was loaded (entry %s, line %d)", l.src.path, e.ID, e.lineNo)
			}
		}
		m, err := dec.Decode(line[e.msgStart:e.msgEnd])
		if err != nil {
			path := ""
			if l.src != nil {
				path = l.src.path
			}
			warns = append(warns, Warning{Path: path, Line: e.lineNo, Message: fmt.Sprintf("message of entry %s left out of the context: %v", e.ID, err)})
			continue
		}
		e.store(m)
	}
	return warns, nil
}

// WithoutOmitted returns path without the context_edit entries and the entries whose latest edit on
// path omits them (replacement null): the entries that still give the model something, for
// compaction's cut-point search (pi 1.6 searches the projected entries). path itself is not changed.
func WithoutOmitted(path []*Entry) []*Entry {
	latest := latestEdits(path)
	if len(latest) == 0 {
		return path
	}
	out := make([]*Entry, 0, len(path))
	for _, e := range path {
		if e.Type == TypeContextEdit {
			continue
		}
		if edit := latest[e.ID]; edit != nil && edit.Replacement == nil {
			continue
		}
		out = append(out, e)
	}
	return out
}

// latestEdits maps each target to the last context edit of it among es.
func latestEdits(es []*Entry) map[string]*Entry {
	edits := map[string]*Entry{}
	for _, e := range es {
		if e.ValidEdit() {
			edits[e.TargetID] = e
		}
	}
	return edits
}
