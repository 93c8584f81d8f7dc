package compaction

import (
	"errors"
	"fmt"
)

// Settings are the compaction settings (settings.json "compaction").
type Settings struct {
	// Enabled turns automatic compaction on; manual compaction works either way.
	Enabled bool
	// ReserveTokens is the room kept free for the model's answer: compaction triggers when the context
	// exceeds contextWindow − ReserveTokens, and summaries may use 80 % of it.
	ReserveTokens int
	// KeepRecentTokens is about how much of the newest conversation is kept verbatim.
	KeepRecentTokens int
}

// Defaults of pi 0.73.1.
const (
	DefaultReserveTokens    = 16384
	DefaultKeepRecentTokens = 20000
)

// DefaultSettings returns pi's defaults: enabled, 16384 reserved, 20000 kept.
func DefaultSettings() Settings {
	return Settings{Enabled: true, ReserveTokens: DefaultReserveTokens, KeepRecentTokens: DefaultKeepRecentTokens}
}

// windowShare is the largest part of a context window that ReserveTokens and KeepRecentTokens may
// each take (see ForWindow).
const windowShare = 4

// ForWindow returns the settings as they apply to a model with a context window of contextWindow
// tokens: ReserveTokens and KeepRecentTokens are each cut to a quarter of the window. pi's defaults
// (16384 and 20000) are made for windows of 128k tokens and more, where the cut changes nothing; in
// a window of 8k they would reserve more than the window for the answer (so that every turn crossed
// the threshold) and keep more than the window verbatim (so that a compaction cut nothing). pi keeps
// the settings as they are for every window (1.6 adds per-model overrides); the cap is pi-go's. An
// unknown window (≤ 0) leaves them unchanged.
func (s Settings) ForWindow(contextWindow int) Settings {
	if contextWindow <= 0 {
		return s
	}
	share := contextWindow / windowShare
	s.ReserveTokens = min(s.ReserveTokens, share)
	s.KeepRecentTokens = min(s.KeepRecentTokens, share)
	return s
}

// Limits are what a compaction knows of the requests it must make room in.
type Limits struct {
	// ContextWindow is the model's context window in tokens (the smaller one a server reported, when
	// it did); 0 when unknown, which turns off ForWindow and the fit check.
	ContextWindow int
	// Overhead is the estimated size of what every request carries besides the messages: the system
	// prompt and the tool definitions (OverheadTokens).
	Overhead int
}

// Reasons Prepare finds nothing to do. Manual compaction reports them (pi's texts); automatic
// compaction ends quietly.
var (
	// ErrAlreadyCompacted: the branch ends with a compaction.
	ErrAlreadyCompacted = errors.New("Already compacted") //nolint:staticcheck // pi's text
	// ErrNothingToCompact: nothing would be summarised (the branch is empty, or all of it is within
	// the part a compaction keeps verbatim), or the first kept entry has no id.
	ErrNothingToCompact = errors.New("Nothing to compact (session too small)") //nolint:staticcheck // pi's text
)

// FitError says that no compaction can make the context fit the window: even the smallest part a
// compaction must keep verbatim (the newest message, with the tool results that answer it), with the
// system prompt and the tool definitions, leaves less than ReserveTokens of the window for the answer.
// Summarising would cost a request and make no room, so Prepare refuses instead.
type FitError struct {
	Kept, Overhead, ContextWindow, ReserveTokens int
}

func (e *FitError) Error() string {
	return fmt.Sprintf("the newest messages (about %d tokens) and the system prompt and tools (about %d tokens) "+
		"do not fit the model's context window of %d tokens with %d tokens left for the answer, and compaction "+
		"cannot shorten them; start a new session (/new) or switch to a model with a larger context window",
		e.Kept, e.Overhead, e.ContextWindow, e.ReserveTokens)
}
