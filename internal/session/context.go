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
// summaries and custom messages as messages, and the last model and thinking level of the path. A
// message that cannot be decoded is left out and reported in Warnings; the error is for reading the
// file.
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
	// the entries that contribute, in order
	var use []*Entry
	if compaction >= 0 {
		c := path[compaction]
		kept := -1
		for i := 0; i < compaction; i++ {
			if path[i].ID == c.FirstKeptEntryID {
				kept = i
				break
			}
		}
		if kept >= 0 {
			use = append(use, path[kept:compaction]...)
		}
		use = append(use, path[compaction+1:]...)
	} else {
		use = path
	}
	warns, err := decodeAll(use)
	if err != nil {
		return ctx, warns, err
	}
	msgs := make([]provider.Message, 0, len(use)+1)
	if compaction >= 0 {
		c := path[compaction]
		msgs = append(msgs, &provider.CompactionSummaryMessage{Summary: c.Summary, TokensBefore: c.TokensBefore, Timestamp: c.Time()})
	}
	for _, e := range use {
		switch e.Type {
		case TypeMessage:
			if msg := e.cached(); msg != nil {
				msgs = append(msgs, msg)
			}
		case TypeCustomMessage:
			msgs = append(msgs, &provider.CustomMessage{
				CustomType: e.CustomType, Content: e.Content, ContentIsString: e.ContentIsString,
				Display: e.Display, Details: detailsValue(e.Details), Timestamp: e.Time(),
			})
		case TypeBranchSummary:
			if e.Summary != "" {
				msgs = append(msgs, &provider.BranchSummaryMessage{Summary: e.Summary, FromID: e.FromID, Timestamp: e.Time()})
			}
		}
	}
	ctx.Messages = msgs
	return ctx, warns, nil
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

// decodeAll makes sure every message entry in es is decoded. Lines are read back from the file in
// file order, in large sequential reads, and decoded on all CPUs when there is much to do.
func decodeAll(es []*Entry) ([]Warning, error) {
	var todo []*Entry
	total := 0
	for _, e := range es {
		if e.Type == TypeMessage && e.cached() == nil {
			todo = append(todo, e)
			total += e.size
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	// group by file (a fork may mix entries of two files), then file order
	srcRank := map[*source]int{}
	for _, e := range todo {
		if _, ok := srcRank[e.src]; !ok {
			srcRank[e.src] = len(srcRank)
		}
	}
	sort.SliceStable(todo, func(i, j int) bool {
		if a, b := srcRank[todo[i].src], srcRank[todo[j].src]; a != b {
			return a < b
		}
		return todo[i].off < todo[j].off
	})
	workers := runtime.GOMAXPROCS(0)
	if total < parallelDecodeBytes || workers < 2 {
		workers = 1
	}
	// split into contiguous shares of about equal bytes; each worker reads and decodes its share
	shares := make([][]*Entry, 0, workers)
	per := total/workers + 1
	startIdx, acc := 0, 0
	for i, e := range todo {
		acc += e.size
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
func decodeShare(es []*Entry) ([]Warning, error) {
	var warns []Warning
	var scratch []byte
	var win []byte
	var winSrc *source
	var winOff int64
	for i := 0; i < len(es); i++ {
		e := es[i]
		var line []byte
		switch {
		case e.line != nil:
			line = e.line
		case e.src == nil:
			warns = append(warns, Warning{Line: e.lineNo, Message: fmt.Sprintf("entry %s has no data", e.ID)})
			continue
		default:
			if winSrc != e.src || e.off < winOff || e.off+int64(e.size) > winOff+int64(len(win)) {
				// read from this entry up to the end of the last entry that fits in the window
				end := e.off + int64(e.size)
				for j := i + 1; j < len(es) && es[j].src == e.src && es[j].line == nil; j++ {
					je := es[j].off + int64(es[j].size)
					if je-e.off > readWindow || je < end {
						break
					}
					end = je
				}
				n := int(end - e.off)
				if cap(win) < n {
					win = make([]byte, n)
				}
				win = win[:n]
				if err := e.src.readAt(win, e.off); err != nil {
					return warns, err
				}
				winSrc, winOff = e.src, e.off
			}
			rel := int(e.off - winOff)
			line = win[rel : rel+e.size]
			if crcOf(line) != e.sum {
				return warns, fmt.Errorf("session file %s changed on disk since it was loaded (entry %s, line %d)", e.src.path, e.ID, e.lineNo)
			}
		}
		m, err := decodeMessageScratch(line[e.msgStart:e.msgEnd], &scratch)
		if err != nil {
			path := ""
			if e.src != nil {
				path = e.src.path
			}
			warns = append(warns, Warning{Path: path, Line: e.lineNo, Message: fmt.Sprintf("message of entry %s left out of the context: %v", e.ID, err)})
			continue
		}
		e.store(m)
	}
	return warns, nil
}
