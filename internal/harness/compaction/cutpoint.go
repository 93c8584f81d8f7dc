package compaction

import (
	"encoding/json"
	"sort"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// CutPoint is where a compaction cuts a branch: entries from FirstKeptEntryIndex on are kept
// verbatim, the ones before are summarised.
type CutPoint struct {
	FirstKeptEntryIndex int
	// TurnStartIndex is the entry that started the turn the cut falls into, when the cut splits a
	// turn; -1 otherwise.
	TurnStartIndex int
	// IsSplitTurn is set when the cut falls after the start of a turn (at an assistant message, say):
	// the turn's beginning is then summarised separately.
	IsSplitTurn bool
}

// entryMessage returns the message of a message entry, nil for other entries and for a message that
// cannot be decoded (session.BuildContext leaves those out of the context too).
func entryMessage(e *session.Entry) provider.Message {
	if e.Type != session.TypeMessage {
		return nil
	}
	m, err := e.Message()
	if err != nil {
		return nil
	}
	return m
}

// isCutPoint reports whether a branch may start its kept part at e: any message but a tool result
// (which must follow its tool call), and branch summaries and custom messages, which reach the model
// as user messages.
func isCutPoint(e *session.Entry) bool {
	switch e.Type {
	case session.TypeMessage:
		switch e.Role {
		case provider.RoleUser, provider.RoleAssistant, provider.RoleBashExecution, provider.RoleCustom,
			provider.RoleBranchSummary, provider.RoleCompactionSummary:
			return true
		}
	case session.TypeBranchSummary, session.TypeCustomMessage:
		return true
	}
	return false
}

// isTurnStart reports whether e starts a turn: a user message, a bash execution the user ran, or a
// branch summary or custom message (user-role content).
func isTurnStart(e *session.Entry) bool {
	switch e.Type {
	case session.TypeBranchSummary, session.TypeCustomMessage:
		return true
	case session.TypeMessage:
		return e.Role == provider.RoleUser || e.Role == provider.RoleBashExecution
	}
	return false
}

// FindTurnStartIndex returns the index of the entry that starts the turn containing entries[index],
// looking back no further than start; -1 when there is none.
func FindTurnStartIndex(entries []*session.Entry, index, start int) int {
	for i := index; i >= start; i-- {
		if isTurnStart(entries[i]) {
			return i
		}
	}
	return -1
}

// FindCutPoint finds where to cut entries[start:end] so that about keepRecentTokens of the newest
// messages are kept (pi's findCutPoint). Walking back from the newest entry it adds up the estimated
// size of the entries that reach the model (messages, custom messages, branch summaries); at the
// first entry where the sum reaches keepRecentTokens it cuts at the first cut point at or after that
// entry, or, when there is none (trailing tool results larger than the budget by themselves), at the
// newest cut point: the assistant message that called them (pi 1.6; 0.73.1 kept everything then). If
// the budget is never reached everything is kept (the cut is the first cut point); with no cut point
// at all the cut is start. The cut then moves back over directly preceding entries that do not reach
// the model (model and thinking changes, labels, ...), so they stay with what follows them. A cut that is not a user message splits the turn it falls into, when that turn started within
// the range.
func FindCutPoint(entries []*session.Entry, start, end, keepRecentTokens int) CutPoint {
	var cutPoints []int
	for i := start; i < end; i++ {
		if isCutPoint(entries[i]) {
			cutPoints = append(cutPoints, i)
		}
	}
	if len(cutPoints) == 0 {
		return CutPoint{FirstKeptEntryIndex: start, TurnStartIndex: -1}
	}
	cut := cutPoints[0]
	accumulated := 0
	for i := end - 1; i >= start; i-- {
		tokens := EstimateTokens(messageForCompaction(entries[i]))
		if tokens == 0 {
			continue
		}
		accumulated += tokens
		if accumulated >= keepRecentTokens {
			c := sort.SearchInts(cutPoints, i)
			cut = cutPoints[min(c, len(cutPoints)-1)]
			break
		}
	}
	cut = withLeadingEntries(entries, cut, start)
	return splitAt(entries, cut, start)
}

// withLeadingEntries moves a cut back over the entries directly before it that do not reach the model
// (model and thinking changes, labels, ...). As in pi 1.6 it stops at custom messages and branch
// summaries, which do (0.73.1 moved over them too).
func withLeadingEntries(entries []*session.Entry, cut, start int) int {
	for cut > start {
		prev := entries[cut-1]
		if prev.Type == session.TypeCompaction || prev.Type == session.TypeMessage || messageForCompaction(prev) != nil {
			break
		}
		cut--
	}
	return cut
}

// splitAt describes a cut at index: a cut whose entry does not start a turn (isTurnStart) splits the
// turn it falls in when that turn's start is in range. (As in pi, a cut moved back onto a model or
// thinking change before a user message counts as splitting the previous turn. pi 0.73.1 took only a
// user message for a turn start here, and split a turn at a custom message with nothing before it.)
func splitAt(entries []*session.Entry, cut, start int) CutPoint {
	if isTurnStart(entries[cut]) {
		return CutPoint{FirstKeptEntryIndex: cut, TurnStartIndex: -1}
	}
	ts := FindTurnStartIndex(entries, cut, start)
	return CutPoint{FirstKeptEntryIndex: cut, TurnStartIndex: ts, IsSplitTurn: ts != -1}
}

// messageForCompaction is the message an entry contributes to a compaction's summary: messages,
// custom messages and branch summaries; not compactions (their summary is the previous summary).
func messageForCompaction(e *session.Entry) provider.Message {
	switch e.Type {
	case session.TypeMessage:
		return entryMessage(e)
	case session.TypeCustomMessage:
		return customMessageOf(e)
	case session.TypeBranchSummary:
		return &provider.BranchSummaryMessage{Summary: e.Summary, FromID: e.FromID, Timestamp: e.Time()}
	}
	return nil
}

func customMessageOf(e *session.Entry) *provider.CustomMessage {
	var details any
	if e.Details != nil {
		if json.Unmarshal(e.Details, &details) != nil {
			details = nil
		}
	}
	return &provider.CustomMessage{
		CustomType: e.CustomType, Content: e.Content, ContentIsString: e.ContentIsString,
		Display: e.Display, Details: details, Timestamp: e.Time(),
	}
}
