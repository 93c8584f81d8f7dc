package compaction

import (
	"context"
	"errors"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// Branch summaries (/tree): when the user moves to another point of the session tree, the branch being
// left can be summarised so the conversation continues knowing what was tried there.

// Branch summary defaults of pi 0.73.1.
const (
	// DefaultBranchReserveTokens is settings.json's branchSummary.reserveTokens default.
	DefaultBranchReserveTokens = 16384
	// defaultContextWindow stands for a model that does not say its context window.
	defaultContextWindow = 128000
)

// NoContentToSummarize is the summary of a branch with no message to summarise (pi writes it as the
// branch summary all the same).
const NoContentToSummarize = "No content to summarize"

// Tree is the part of a session the branch summary reads; *session.Manager implements it.
type Tree interface {
	// Path returns the entries from the root to id.
	Path(id string) []*session.Entry
	// Entry returns the entry with id, or nil.
	Entry(id string) *session.Entry
}

// CollectBranchEntries returns the entries being left when moving from oldLeafID to targetID, oldest
// first: from the old leaf back to, not including, the deepest entry both positions descend from
// (commonAncestorID, "" when they share none). Earlier compactions and branch summaries on the way are
// included; their summaries become context. An empty oldLeafID leaves nothing.
func CollectBranchEntries(t Tree, oldLeafID, targetID string) (entries []*session.Entry, commonAncestorID string) {
	if oldLeafID == "" {
		return nil, ""
	}
	onOld := map[string]bool{}
	for _, e := range t.Path(oldLeafID) {
		onOld[e.ID] = true
	}
	target := t.Path(targetID)
	for i := len(target) - 1; i >= 0; i-- {
		if onOld[target[i].ID] {
			commonAncestorID = target[i].ID
			break
		}
	}
	for id := oldLeafID; id != "" && id != commonAncestorID; {
		e := t.Entry(id)
		if e == nil {
			break
		}
		entries = append(entries, e)
		id = e.ParentID
	}
	for i, j := 0, len(entries)-1; i < j; i, j = i+1, j-1 {
		entries[i], entries[j] = entries[j], entries[i]
	}
	return entries, commonAncestorID
}

// messageForBranch is the message an entry contributes to a branch summary: messages except tool
// results (the call says enough), custom messages, branch summaries and compaction summaries.
func messageForBranch(e *session.Entry) provider.Message {
	switch e.Type {
	case session.TypeMessage:
		if e.Role == provider.RoleToolResult {
			return nil
		}
		return entryMessage(e)
	case session.TypeCustomMessage:
		return customMessageOf(e)
	case session.TypeBranchSummary:
		return &provider.BranchSummaryMessage{Summary: e.Summary, FromID: e.FromID, Timestamp: e.Time()}
	case session.TypeCompaction:
		return &provider.CompactionSummaryMessage{Summary: e.Summary, TokensBefore: e.TokensBefore, Timestamp: e.Time()}
	}
	return nil
}

// BranchPreparation is what a branch summary reads.
type BranchPreparation struct {
	Messages    []provider.Message
	FileOps     *FileOps
	TotalTokens int
}

// PrepareBranchEntries picks the messages of entries (oldest first) to summarise within tokenBudget
// (≤ 0: no limit), newest first: it stops at the first message that would exceed the budget, except
// that a compaction or branch summary still goes in while the total is under 90 % of the budget. File
// operations come from every entry's tool calls walked and from the details of earlier generated
// branch summaries, even those beyond the budget.
func PrepareBranchEntries(entries []*session.Entry, tokenBudget int) BranchPreparation {
	prep := BranchPreparation{FileOps: NewFileOps()}
	for _, e := range entries {
		if e.Type == session.TypeBranchSummary && !e.FromHook && e.Details != nil {
			prep.FileOps.addDetails(e.Details)
		}
	}
	var picked []provider.Message // newest first
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		m := messageForBranch(e)
		if m == nil {
			continue
		}
		prep.FileOps.AddMessage(m)
		tokens := EstimateTokens(m)
		if tokenBudget > 0 && prep.TotalTokens+tokens > tokenBudget {
			isSummary := e.Type == session.TypeCompaction || e.Type == session.TypeBranchSummary
			if isSummary && float64(prep.TotalTokens) < float64(tokenBudget)*0.9 {
				picked = append(picked, m)
				prep.TotalTokens += tokens
			}
			break
		}
		picked = append(picked, m)
		prep.TotalTokens += tokens
	}
	prep.Messages = make([]provider.Message, len(picked))
	for i, m := range picked {
		prep.Messages[len(picked)-1-i] = m
	}
	return prep
}

// BranchSummaryOptions tune a branch summary.
type BranchSummaryOptions struct {
	// CustomInstructions are added to the prompt as "Additional focus", or replace it when
	// ReplaceInstructions is set.
	CustomInstructions  string
	ReplaceInstructions bool
	// ReserveTokens is settings' branchSummary.reserveTokens (DefaultBranchReserveTokens): the branch
	// is read up to the model's context window minus this.
	ReserveTokens int
}

// BranchSummary is a generated branch summary, for a branch_summary entry whose details are
// {readFiles, modifiedFiles}.
type BranchSummary struct {
	Summary       string   `json:"summary"`
	ReadFiles     []string `json:"readFiles"`
	ModifiedFiles []string `json:"modifiedFiles"`
	// Usage is what the summary request cost (nil when no request was made).
	Usage *provider.Usage `json:"-"`
}

// GenerateBranchSummary summarises the entries of a branch being left (CollectBranchEntries) in pi's
// format, preceded by pi's preamble and followed by the file lists. As in pi 1.6 a reasoning model
// summarises with the session's thinking level, up to the model's output limit (0.73.1 asked for no
// reasoning and at most 2048 tokens). With no message to summarise the summary is
// NoContentToSummarize. A cancelled ctx or an aborted answer gives ErrCancelled (navigation is
// cancelled, nothing is written); a failed answer gives "Branch summarization failed: …" (see
// failure).
func (s Summarizer) GenerateBranchSummary(ctx context.Context, entries []*session.Entry, opts BranchSummaryOptions) (BranchSummary, error) {
	if err := s.validate(); err != nil {
		return BranchSummary{}, err
	}
	if ctx.Err() != nil {
		return BranchSummary{}, ErrCancelled
	}
	window := s.Model.ContextWindow
	if window <= 0 {
		window = defaultContextWindow
	}
	prep := PrepareBranchEntries(entries, window-opts.ReserveTokens)
	if len(prep.Messages) == 0 {
		return BranchSummary{Summary: NoContentToSummarize, ReadFiles: []string{}, ModifiedFiles: []string{}}, nil
	}
	instructions := branchSummaryPrompt
	switch {
	case opts.ReplaceInstructions && opts.CustomInstructions != "":
		instructions = opts.CustomInstructions
	case opts.CustomInstructions != "":
		instructions += "\n\nAdditional focus: " + opts.CustomInstructions
	}
	msg, err := s.request(ctx, s.prompt(prep.Messages, instructions), 0, s.reasoning())
	if err != nil {
		return BranchSummary{}, err
	}
	if f := failure(msg, "Branch summarization"); f != "" {
		return BranchSummary{}, errors.New(f)
	}
	readFiles, modifiedFiles := prep.FileOps.Lists()
	summary := branchSummaryPreamble + answerText(msg) + FormatFileOperations(readFiles, modifiedFiles)
	if ctx.Err() != nil {
		return BranchSummary{}, ErrCancelled
	}
	usage := msg.Usage
	return BranchSummary{Summary: summary, ReadFiles: readFiles, ModifiedFiles: modifiedFiles, Usage: &usage}, nil
}
