package harness

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// Session event types beyond the agent's own (pi's names).
const (
	EventAutoRetryStart       = "auto_retry_start"
	EventAutoRetryEnd         = "auto_retry_end"
	EventCompactionStart      = "compaction_start"
	EventCompactionEnd        = "compaction_end"
	EventQueueUpdate          = "queue_update"
	EventThinkingLevelChanged = "thinking_level_changed"
	// EventAgentSettled (pi 1.6) ends the work a run started: it follows the last agent_end of a
	// prompt once its retries, compactions and the messages queued meanwhile are done, and the session
	// is idle. pi 1.6's RpcClient.waitForIdle waits for it.
	EventAgentSettled = "agent_settled"
	// EventEntryAppended (pi 1.6) announces a session entry the session wrote by itself, outside the
	// message events (pi: context edits of retried and recovered answers, extension entries).
	EventEntryAppended = "entry_appended"
)

// Compaction reasons.
const (
	CompactionManual    = "manual"
	CompactionThreshold = "threshold"
	CompactionOverflow  = "overflow"
)

// Event is what the session's listeners receive: every agent event (Agent set, Type equal to its type)
// and the session's own events. Events are immutable once emitted.
type Event struct {
	Type  string
	Agent *loop.Event

	// auto_retry_start / auto_retry_end
	Attempt      int
	MaxAttempts  int
	DelayMs      int64
	ErrorMessage string // also compaction_end
	Success      bool
	FinalError   string

	// compaction_start / compaction_end (Aborted also agent_settled's: an abort ended the work)
	Reason  string
	Result  *CompactionResult
	Aborted bool
	// WillRetry: compaction_end's; agent_end's, whether an automatic retry follows.
	WillRetry bool

	// entry_appended
	Entry *session.Entry

	// queue_update
	Steering []string
	FollowUp []string

	// thinking_level_changed
	Level provider.ThinkingLevel
}

func agentEvent(e loop.Event) Event { return Event{Type: string(e.Type), Agent: &e} }

// MarshalJSON writes the event exactly as pi's JSON and RPC modes do.
func (e Event) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil) }

// AppendJSON appends the event's JSON to dst (an output that writes many events reuses its buffer);
// on error it returns nil.
func (e Event) AppendJSON(dst []byte) ([]byte, error) {
	if e.Agent != nil {
		out, err := e.Agent.AppendJSON(dst)
		if err != nil || e.Agent.Type != loop.EventAgentEnd {
			return out, err
		}
		// pi 1.6's session adds willRetry to the agent's agent_end.
		out = out[:len(out)-1]
		return append(strconv.AppendBool(append(out, `,"willRetry":`...), e.WillRetry), '}'), nil
	}
	b := bytes.NewBuffer(dst)
	b.WriteString(`{"type":"`)
	b.WriteString(e.Type)
	b.WriteByte('"')
	str := func(k, v string) {
		b.WriteString(`,"` + k + `":`)
		b.Write(jsonx.AppendString(b.AvailableBuffer(), v))
	}
	num := func(k string, v int64) { b.WriteString(`,"` + k + `":` + strconv.FormatInt(v, 10)) }
	boolean := func(k string, v bool) { b.WriteString(`,"` + k + `":` + strconv.FormatBool(v)) }
	list := func(k string, vs []string) {
		b.WriteString(`,"` + k + `":[`)
		for i, v := range vs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonx.AppendString(b.AvailableBuffer(), v))
		}
		b.WriteByte(']')
	}
	switch e.Type {
	case EventAutoRetryStart:
		num("attempt", int64(e.Attempt))
		num("maxAttempts", int64(e.MaxAttempts))
		num("delayMs", e.DelayMs)
		str("errorMessage", e.ErrorMessage)
	case EventAutoRetryEnd:
		boolean("success", e.Success)
		num("attempt", int64(e.Attempt))
		if e.FinalError != "" {
			str("finalError", e.FinalError)
		}
	case EventCompactionStart:
		str("reason", e.Reason)
	case EventCompactionEnd:
		str("reason", e.Reason)
		if e.Result != nil {
			data, err := provider.MarshalJS(e.Result)
			if err != nil {
				return nil, err
			}
			b.WriteString(`,"result":`)
			b.Write(data)
		}
		boolean("aborted", e.Aborted)
		boolean("willRetry", e.WillRetry)
		if e.ErrorMessage != "" {
			str("errorMessage", e.ErrorMessage)
		}
	case EventQueueUpdate:
		list("steering", nonNil(e.Steering))
		list("followUp", nonNil(e.FollowUp))
	case EventThinkingLevelChanged:
		str("level", string(e.Level))
	case EventAgentSettled:
		boolean("aborted", e.Aborted)
	case EventEntryAppended:
		if e.Entry == nil {
			return nil, errors.New("entry_appended without an entry")
		}
		raw, err := e.Entry.Raw()
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"entry":`)
		b.Write(raw)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
