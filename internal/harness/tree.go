package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/pi-go/pi-go/internal/harness/compaction"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// NavigateOptions tune NavigateTree.
type NavigateOptions struct {
	// Summarize asks the model to summarise the branch being left (a branch_summary entry).
	Summarize bool
	// CustomInstructions steer the summary; ReplaceInstructions makes them the whole prompt.
	CustomInstructions  string
	ReplaceInstructions bool
	// Label is attached to the summary entry, or to the target when not summarising.
	Label string
}

// NavigateResult is what NavigateTree did.
type NavigateResult struct {
	// EditorText is the text of the user message navigated to (for the editor), if any.
	EditorText string
	Cancelled  bool
	Aborted    bool
}

// NavigateTree moves to another point of the session tree (/tree): a user (or custom) message puts the
// leaf on its parent and returns its text for the editor; any other entry becomes the leaf. With a
// summary, the branch being left is summarised into a branch_summary entry at the new position. An
// aborted summary changes nothing.
func (s *Session) NavigateTree(ctx context.Context, targetID string, o NavigateOptions) (NavigateResult, error) {
	store := s.Store()
	oldLeaf := store.LeafID()
	if targetID == oldLeaf {
		return NavigateResult{}, nil
	}
	target := store.Entry(targetID)
	if target == nil {
		return NavigateResult{}, fmt.Errorf("Entry %s not found", targetID)
	}
	if o.Summarize && s.Model() == nil {
		return NavigateResult{}, errors.New("No model available for summarization")
	}
	s.Abort()

	// session_before_tree may cancel, supply the summary or change the instructions and label.
	entries, ancestor := compaction.CollectBranchEntries(store, oldLeaf, targetID)
	var summary compaction.BranchSummary
	fromExtension := false
	if h, ok := s.opts.Hooks.(TreeHook); ok {
		v := h.BeforeTree(ctx, TreePreparation{TargetID: targetID, OldLeafID: oldLeaf, CommonAncestorID: ancestor,
			EntriesToSummarize: entries, UserWantsSummary: o.Summarize, CustomInstructions: o.CustomInstructions,
			ReplaceInstructions: o.ReplaceInstructions, Label: o.Label})
		if v.Cancel {
			return NavigateResult{Cancelled: true}, nil
		}
		if v.Summary != nil && o.Summarize {
			summary, fromExtension = *v.Summary, true
		}
		if v.CustomInstructions != nil {
			o.CustomInstructions = *v.CustomInstructions
		}
		if v.ReplaceInstructions != nil {
			o.ReplaceInstructions = *v.ReplaceInstructions
		}
		if v.Label != nil {
			o.Label = *v.Label
		}
	}
	if o.Summarize && !fromExtension {
		if len(entries) > 0 {
			cctx, done := s.beginCompaction(ctx)
			sum, err := s.summarizer(cctx)
			if err == nil {
				summary, err = sum.GenerateBranchSummary(cctx, entries, compaction.BranchSummaryOptions{
					CustomInstructions:  o.CustomInstructions,
					ReplaceInstructions: o.ReplaceInstructions,
					ReserveTokens:       s.opts.Settings.Settings().BranchSummaryReserveTokens(),
				})
			}
			aborted := cctx.Err() != nil
			done()
			if aborted || errors.Is(err, compaction.ErrCancelled) || errors.Is(err, context.Canceled) {
				return NavigateResult{Cancelled: true, Aborted: true}, nil
			}
			if err != nil {
				return NavigateResult{}, err
			}
		}
	}

	newLeaf := targetID
	var editorText string
	switch {
	case target.Type == session.TypeMessage && target.Role == provider.RoleUser:
		newLeaf = target.ParentID
		if m, err := target.Message(); err == nil {
			if u, ok := m.(*provider.UserMessage); ok {
				editorText = provider.TextOf(u.Content, "")
			}
		}
	case target.Type == session.TypeCustomMessage:
		newLeaf = target.ParentID
		editorText = provider.TextOf(target.Content, "")
	}

	var summaryEntry *session.Entry
	if summary.Summary != "" {
		var details any = compaction.Details{ReadFiles: summary.ReadFiles, ModifiedFiles: summary.ModifiedFiles}
		if fromExtension && summary.ReadFiles == nil && summary.ModifiedFiles == nil {
			details = nil
		}
		id, err := store.BranchWithSummary(newLeaf, summary.Summary, details, fromExtension, summary.Usage)
		if err != nil {
			return NavigateResult{}, err
		}
		summaryEntry = store.Entry(id)
		if o.Label != "" {
			s.appendEntry(store.AppendLabelChange(id, o.Label))
		}
	} else {
		if newLeaf == "" {
			store.ResetLeaf()
		} else if err := store.Branch(newLeaf); err != nil {
			return NavigateResult{}, err
		}
		if o.Label != "" {
			s.appendEntry(store.AppendLabelChange(targetID, o.Label))
		}
	}
	built, err := store.BuildContext()
	if err != nil {
		return NavigateResult{}, err
	}
	s.agent.ReplaceMessages(built.Messages)
	s.restoreTools(nil) // the branch's tools, as pi 1.6 restores them after /tree (without --tools modifiers)
	if h, ok := s.opts.Hooks.(TreeHook); ok {
		h.TreeNavigated(store.LeafID(), oldLeaf, summaryEntry, fromExtension)
	}
	return NavigateResult{EditorText: editorText}, nil
}
