package compaction

import (
	"fmt"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// Preparation is what a compaction summarises and keeps (pi's CompactionPreparation).
type Preparation struct {
	// FirstKeptEntryID is the entry the kept part starts with (the compaction entry's firstKeptEntryId).
	FirstKeptEntryID string
	// FirstKeptEntryIndex is its index in the branch.
	FirstKeptEntryIndex int
	// MessagesToSummarize is the history before the cut (before the split turn's start).
	MessagesToSummarize []provider.Message
	// TurnPrefixMessages is the beginning of a split turn, summarised on its own; empty otherwise.
	TurnPrefixMessages []provider.Message
	IsSplitTurn        bool
	// TokensBefore is the estimated size of the branch's context before compacting.
	TokensBefore int
	// PreviousSummary is the summary of the branch's latest compaction, updated rather than rewritten;
	// "" when there is none.
	PreviousSummary string
	// FileOps are the files read and modified in the summarised part and in earlier compactions.
	FileOps  *FileOps
	Settings Settings
	// KeptTokens is the estimated size of the entries kept verbatim (from FirstKeptEntryIndex on).
	KeptTokens int
	// KeptLatestRequest is set when the cut pi would choose was moved back to keep the branch's latest
	// user message verbatim (see Prepare).
	KeptLatestRequest bool
}

// Prepare decides what compacting a branch (root → leaf entries, as session.Manager.Path returns
// them) summarises and keeps, as pi's prepareCompaction does:
//
//   - the settings apply as Settings.ForWindow(l.ContextWindow) (they are Preparation.Settings);
//   - the part after the latest compaction's kept start is considered (all of it without one);
//   - the cut is FindCutPoint's, keeping about KeepRecentTokens; a split turn's beginning is
//     summarised separately;
//   - the latest compaction's summary becomes PreviousSummary and its file lists carry over;
//   - TokensBefore estimates the branch's context as it is, l.Overhead included unless a server's
//     usage counted it (EstimateRequestTokens);
//   - when the cut would summarise nothing, there is nothing to compact (pi 1.6: no request with an
//     empty conversation).
//
// One addition to pi: the latest user request is always kept verbatim. When pi's cut falls after the
// branch's last user message (a long turn of tool calls, larger than KeepRecentTokens), the cut moves
// back to that message, so the model keeps reading what it was asked to do now instead of a summary
// of it. The kept part is then larger than KeepRecentTokens, up to a limit: when the window is
// known (> 0), the kept part may fill at most half of the usable window (contextWindow −
// ReserveTokens), or KeepRecentTokens if that is more, so that the compaction frees room for the
// work that follows and an overflow in a long run of tool calls can still be recovered. Past the limit
// pi's cut stands, and the request survives in the turn-prefix summary's "Original Request". With an
// unknown window the request is always kept.
//
// A second addition: with a known window the kept part must fit. When l.Overhead plus the kept part
// leaves less than ReserveTokens of the window, the cut moves forward to the first cut point from
// which it does; when even the newest cut point's does not, Prepare returns a *FitError.
//
// It returns ErrAlreadyCompacted when the branch ends with a compaction and ErrNothingToCompact when
// there is nothing to keep or summarise. Other errors come from reading the session file.
// Messages that cannot be decoded are left out, as they are from the context.
func Prepare(branch []*session.Entry, s Settings, l Limits) (*Preparation, error) {
	return prepare(branch, s, l, true)
}

// prepare is Prepare, or with keepLatest false pi's prepareCompaction (no kept request, no fit check).
func prepare(branch []*session.Entry, s Settings, l Limits, keepLatest bool) (*Preparation, error) {
	n := len(branch)
	if n > 0 && branch[n-1].Type == session.TypeCompaction {
		return nil, ErrAlreadyCompacted
	}
	if n == 0 {
		return nil, ErrNothingToCompact
	}
	// Rebuilding the context decodes every message from the boundary on in a few large reads, so the
	// cut point search below reads them from memory.
	ctx, err := session.BuildContext(branch, branch[n-1].ID)
	if err != nil {
		return nil, fmt.Errorf("compaction: read the session: %w", err)
	}
	// What context edits omitted (a failed attempt being recovered from) is neither summarised nor
	// kept: the cut is searched among the entries the model still sees, as pi 1.6 does.
	branch = session.WithoutOmitted(branch)
	if n = len(branch); n == 0 {
		return nil, ErrNothingToCompact
	}
	s = s.ForWindow(l.ContextWindow)
	prev := lastCompactionIndex(branch)
	prep := &Preparation{Settings: s, FileOps: NewFileOps()}
	boundary := 0
	if prev >= 0 {
		c := branch[prev]
		prep.PreviousSummary = c.Summary
		boundary = prev + 1
		for i, e := range branch {
			if e.ID == c.FirstKeptEntryID {
				boundary = i
				break
			}
		}
	}
	prep.TokensBefore = EstimateRequestTokens(ctx.Messages, l.Overhead).Tokens

	// A failed answer at the end (the overflow being recovered from) is never sent again: the cut is
	// chosen before it, so that it does not cut off the request the model must answer.
	end := n
	for keepLatest && end > boundary+1 && isFailedAnswer(branch[end-1]) {
		end--
	}
	cut := FindCutPoint(branch, boundary, end, s.KeepRecentTokens)
	if moved, ok := keepLatestRequest(branch[:end], cut, boundary, s, l.ContextWindow); ok && keepLatest {
		cut = moved
		prep.KeptLatestRequest = true
	}
	if keepLatest && l.ContextWindow > 0 {
		fitted, err := fitCut(branch[:end], cut, boundary, s, l)
		if err != nil {
			return nil, err
		}
		if fitted.FirstKeptEntryIndex != cut.FirstKeptEntryIndex {
			cut, prep.KeptLatestRequest = fitted, false
		}
	}
	kept := branch[cut.FirstKeptEntryIndex]
	if kept.ID == "" {
		return nil, ErrNothingToCompact
	}
	prep.FirstKeptEntryID = kept.ID
	prep.FirstKeptEntryIndex = cut.FirstKeptEntryIndex
	for _, e := range branch[cut.FirstKeptEntryIndex:] {
		prep.KeptTokens += EstimateTokens(messageForCompaction(e))
	}
	prep.IsSplitTurn = cut.IsSplitTurn

	historyEnd := cut.FirstKeptEntryIndex
	if cut.IsSplitTurn {
		historyEnd = cut.TurnStartIndex
	}
	prep.MessagesToSummarize = messagesForCompaction(branch[boundary:historyEnd])
	if cut.IsSplitTurn {
		prep.TurnPrefixMessages = messagesForCompaction(branch[cut.TurnStartIndex:cut.FirstKeptEntryIndex])
	}
	if len(prep.MessagesToSummarize) == 0 && len(prep.TurnPrefixMessages) == 0 {
		return nil, fmt.Errorf("%w: there is nothing before the newest messages (about %d tokens), which compaction keeps verbatim",
			ErrNothingToCompact, prep.KeptTokens)
	}

	if prev >= 0 && !branch[prev].FromHook && branch[prev].Details != nil {
		prep.FileOps.addDetails(branch[prev].Details)
	}
	for _, m := range prep.MessagesToSummarize {
		prep.FileOps.AddMessage(m)
	}
	for _, m := range prep.TurnPrefixMessages {
		prep.FileOps.AddMessage(m)
	}
	return prep, nil
}

// messagesForCompaction are the messages a summary is made of. System messages are prompt state, not
// conversation (pi 1.6): the compaction's checkpoint carries what they declared.
func messagesForCompaction(entries []*session.Entry) []provider.Message {
	out := make([]provider.Message, 0, len(entries))
	for _, e := range entries {
		if m := messageForCompaction(e); m != nil && m.Role() != provider.RoleSystem {
			out = append(out, m)
		}
	}
	return out
}

// keepLatestRequest moves a cut that falls after the last user message of entries[boundary:] back to
// that message (with the non-message entries directly before it), unless the kept part would exceed
// keptLimit. ok is false when the cut stays.
func keepLatestRequest(branch []*session.Entry, cut CutPoint, boundary int, s Settings, contextWindow int) (CutPoint, bool) {
	last := -1
	for i := len(branch) - 1; i >= boundary; i-- {
		if e := branch[i]; e.Type == session.TypeMessage && e.Role == provider.RoleUser {
			last = i
			break
		}
	}
	if last < 0 || cut.FirstKeptEntryIndex <= last {
		return cut, false
	}
	if contextWindow > 0 {
		keptTokens := 0
		for _, e := range branch[last:] {
			keptTokens += EstimateTokens(messageForCompaction(e))
		}
		if keptTokens > keptLimit(s, contextWindow) {
			return cut, false
		}
	}
	return CutPoint{FirstKeptEntryIndex: withLeadingEntries(branch, last, boundary), TurnStartIndex: -1}, true
}

// keptLimit is the most a compaction keeps to hold on to the latest request: half of the usable
// window, or KeepRecentTokens if that is more.
func keptLimit(s Settings, contextWindow int) int {
	return max((contextWindow-s.ReserveTokens)/2, s.KeepRecentTokens)
}

// fitCut makes the kept part fit the window: l.Overhead plus the estimated size of the entries from
// the cut on must leave ReserveTokens free. A cut that keeps too much moves forward to the first cut
// point from which the rest fits; when none does, the error says what the smallest possible kept
// part (from the newest cut point) would need.
func fitCut(branch []*session.Entry, cut CutPoint, boundary int, s Settings, l Limits) (CutPoint, error) {
	budget := l.ContextWindow - s.ReserveTokens - l.Overhead
	// suffix[i] is the estimated size of branch[i:].
	suffix := make([]int, len(branch)+1)
	for i := len(branch) - 1; i >= boundary; i-- {
		suffix[i] = suffix[i+1] + EstimateTokens(messageForCompaction(branch[i]))
	}
	if suffix[cut.FirstKeptEntryIndex] <= budget {
		return cut, nil
	}
	newest := -1
	for i := cut.FirstKeptEntryIndex + 1; i < len(branch); i++ {
		if !isCutPoint(branch[i]) {
			continue
		}
		newest = i
		if suffix[i] <= budget {
			return splitAt(branch, withLeadingEntries(branch, i, boundary), boundary), nil
		}
	}
	smallest := suffix[cut.FirstKeptEntryIndex]
	if newest >= 0 {
		smallest = suffix[newest]
	}
	return cut, &FitError{Kept: smallest, Overhead: l.Overhead, ContextWindow: l.ContextWindow, ReserveTokens: s.ReserveTokens}
}

// isFailedAnswer reports whether e is an assistant message that ended in an error.
func isFailedAnswer(e *session.Entry) bool {
	a, ok := entryMessage(e).(*provider.AssistantMessage)
	return ok && a.StopReason == provider.StopReasonError
}
