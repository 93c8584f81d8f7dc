package compaction

import (
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// ContextUsage is how full the context window is, for the footer and RPC's contextUsage (pi 0.73.1's
// getContextUsage). Right after a compaction the size is unknown until the model answers again: the
// usage reported before it describes the old, larger context.
type ContextUsage struct {
	Known         bool    // false: Tokens and Percent are unknown (null in JSON)
	Tokens        int     // estimated tokens in the context
	ContextWindow int     // the model's window
	Percent       float64 // Tokens / ContextWindow × 100
}

// MarshalJSON writes pi's {"tokens","contextWindow","percent"}, with nulls when unknown.
func (u ContextUsage) MarshalJSON() ([]byte, error) {
	b := []byte(`{"tokens":`)
	if u.Known {
		b = strconv.AppendInt(b, int64(u.Tokens), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"contextWindow":`...)
	b = strconv.AppendInt(b, int64(u.ContextWindow), 10)
	b = append(b, `,"percent":`...)
	if u.Known {
		b = jsonx.AppendNumber(b, u.Percent)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}'), nil
}

// ContextUsageOf computes the context usage of a branch (root → leaf entries) whose agent transcript
// is messages, for a model with contextWindow and requests that carry overhead tokens besides the
// messages (EstimateRequestTokens). ok is false when the window is unknown (≤ 0), where pi reports no
// usage at all (as it does without a model).
func ContextUsageOf(branch []*session.Entry, messages []provider.Message, contextWindow, overhead int) (u ContextUsage, ok bool) {
	if contextWindow <= 0 {
		return ContextUsage{}, false
	}
	u.ContextWindow = contextWindow
	if c := lastCompactionIndex(branch); c >= 0 && !hasUsageAfter(branch, c) {
		return u, true
	}
	est := EstimateRequestTokens(messages, overhead)
	u.Known = true
	u.Tokens = est.Tokens
	u.Percent = float64(est.Tokens) / float64(contextWindow) * 100
	return u, true
}

// hasUsageAfter reports whether the newest completed assistant message after index c reported a
// non-zero context size.
func hasUsageAfter(branch []*session.Entry, c int) bool {
	for i := len(branch) - 1; i > c; i-- {
		e := branch[i]
		if e.Type != session.TypeMessage || e.Role != provider.RoleAssistant {
			continue
		}
		if u, ok := assistantUsage(entryMessage(e)); ok {
			return u.ContextTokens() > 0
		}
	}
	return false
}

func lastCompactionIndex(branch []*session.Entry) int {
	for i := len(branch) - 1; i >= 0; i-- {
		if branch[i].Type == session.TypeCompaction {
			return i
		}
	}
	return -1
}
