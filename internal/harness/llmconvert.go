package harness

import (
	"sync"

	"github.com/pi-go/pi-go/internal/provider"
)

// llmConverter is ConvertToLLM for a session's requests: the user message a bash execution, a
// custom message or a summary becomes is made once and given again to every later request while
// that message stays in the transcript. Providers recognise the messages a request shares with the
// previous one by identity (openai's conversion cache); a summary converted anew on every request
// would look like a changed transcript from that point on.
type llmConverter struct {
	mu   sync.Mutex
	last map[provider.Message]provider.Message // by transcript message, its converted form
}

func (c *llmConverter) convert(msgs []provider.Message) []provider.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var next map[provider.Message]provider.Message
	out := make([]provider.Message, 0, len(msgs))
	for _, m := range msgs {
		switch m.(type) {
		case *provider.BashExecutionMessage, *provider.CustomMessage, *provider.BranchSummaryMessage,
			*provider.CompactionSummaryMessage:
		default:
			// Sent as they are, or not at all (and not map keys: another type might not be comparable).
			if llm := convertOne(m); llm != nil {
				out = append(out, llm)
			}
			continue
		}
		llm, ok := c.last[m]
		if !ok {
			llm = convertOne(m)
		}
		if llm == nil {
			continue
		}
		if next == nil {
			next = make(map[provider.Message]provider.Message)
		}
		next[m] = llm
		out = append(out, llm)
	}
	c.last = next // only what this transcript holds: dropped messages are forgotten
	return out
}
