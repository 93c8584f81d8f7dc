package compaction

import "errors"

// ErrCancelled is returned when the context of a compaction or a branch summary was cancelled at any
// point (before a request, while streaming, between the parallel summaries, after them): the caller
// writes nothing. Its text is what pi's manual compaction throws.
var ErrCancelled = errors.New("Compaction cancelled") //nolint:staticcheck // pi's text

// Compaction reasons, as compaction_start and compaction_end name them.
const (
	ReasonManual    = "manual"
	ReasonThreshold = "threshold"
	ReasonOverflow  = "overflow"
)

// OverflowRecoveryFailed is compaction_end's errorMessage when the context overflows again after a
// compaction already tried to make room (the harness emits it without running a compaction).
const OverflowRecoveryFailed = "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model."

// LengthRecoveryFailed is compaction_end's errorMessage when an answer is cut short again (below the
// model's output limit) after a compact-and-retry (pi 1.6).
const LengthRecoveryFailed = "Truncated response recovery failed after one compact-and-retry attempt."

// EndState is what compaction_end reports for a compaction of the given reason that failed with err
// (pi 0.73.1's texts):
//
//   - ErrCancelled: aborted, no message;
//   - manual: "Compaction failed: <err>" (this includes "Already compacted" and "Nothing to compact
//     (session too small)", which the caller also returns to the user);
//   - threshold: ErrAlreadyCompacted and ErrNothingToCompact end quietly (no message, no result);
//     other errors give "Auto-compaction failed: <err>";
//   - overflow: "Context overflow recovery failed: <err>", ErrNothingToCompact included (pi ends
//     quietly, and the user never learns why the overflow was not recovered).
//
// The harness's own failures before compacting (no model, no API key) go through it too for manual
// compaction; automatic compaction ends quietly on those, as pi does.
func EndState(reason string, err error) (aborted bool, errorMessage string) {
	switch {
	case err == nil:
		return false, ""
	case errors.Is(err, ErrCancelled):
		return true, ""
	case reason == ReasonManual:
		return false, "Compaction failed: " + err.Error()
	case reason == ReasonOverflow:
		return false, "Context overflow recovery failed: " + err.Error()
	case errors.Is(err, ErrAlreadyCompacted), errors.Is(err, ErrNothingToCompact):
		return false, ""
	default:
		return false, "Auto-compaction failed: " + err.Error()
	}
}
