package rpc

import (
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/resources"
)

// The data of RPC responses, field for field as pi writes them: a field pi leaves undefined is
// omitted, not null.

// dispositionData answers prompt, steer and follow_up (pi 1.6): what became of the message.
type dispositionData struct {
	Disposition harness.Disposition `json:"disposition"`
}

// stateData is get_state's RpcSessionState.
type stateData struct {
	Model                 *provider.Model        `json:"model,omitempty"`
	ThinkingLevel         provider.ThinkingLevel `json:"thinkingLevel"`
	IsStreaming           bool                   `json:"isStreaming"`
	IsCompacting          bool                   `json:"isCompacting"`
	SteeringMode          string                 `json:"steeringMode"`
	FollowUpMode          string                 `json:"followUpMode"`
	SessionFile           string                 `json:"sessionFile,omitempty"`
	SessionID             string                 `json:"sessionId"`
	SessionName           string                 `json:"sessionName,omitempty"`
	AutoCompactionEnabled bool                   `json:"autoCompactionEnabled"`
	MessageCount          int                    `json:"messageCount"`
	PendingMessageCount   int                    `json:"pendingMessageCount"`
}

func (s *server) state() stateData {
	store := s.sess.Store()
	agent := s.sess.Agent()
	return stateData{
		Model:                 s.sess.Model(),
		ThinkingLevel:         s.sess.ThinkingLevel(),
		IsStreaming:           s.runs.isStreaming(),
		IsCompacting:          s.sess.IsCompacting(),
		SteeringMode:          string(agent.SteeringMode()),
		FollowUpMode:          string(agent.FollowUpMode()),
		SessionFile:           store.SessionFile(),
		SessionID:             store.SessionID(),
		SessionName:           store.SessionName(),
		AutoCompactionEnabled: s.sess.AutoCompactionEnabled(),
		MessageCount:          len(s.sess.Messages()),
		PendingMessageCount:   s.sess.PendingMessageCount(),
	}
}

type messagesData struct {
	Messages []provider.Message `json:"messages"`
}

func nonNilMessages(m []provider.Message) []provider.Message {
	if m == nil {
		return []provider.Message{}
	}
	return m
}

type modelsData struct {
	Models []*provider.Model `json:"models"`
}

type cycleModelData struct {
	Model         *provider.Model        `json:"model"`
	ThinkingLevel provider.ThinkingLevel `json:"thinkingLevel"`
	IsScoped      bool                   `json:"isScoped"`
}

type levelData struct {
	Level provider.ThinkingLevel `json:"level"`
}

type levelsData struct {
	Levels []provider.ThinkingLevel `json:"levels"`
}

// queueData answers clear_queue: the texts the queues held.
type queueData struct {
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// bashUpdate is the bash_execution_update event (pi 1.6): output of an RPC bash command as it
// arrives, with the command's id (omitted when the command had none).
type bashUpdate struct {
	id    []byte
	delta string
}

func (u bashUpdate) MarshalJSON() ([]byte, error) {
	b := []byte(`{"type":"bash_execution_update"`)
	if u.id != nil {
		b = append(b, `,"id":`...)
		b = append(b, u.id...)
	}
	b = append(b, `,"delta":`...)
	b = jsonx.AppendString(b, u.delta)
	return append(b, '}'), nil
}

// cancelledData answers new_session, switch_session and clone: pi-go has no extension that could
// cancel them.
type cancelledData struct {
	Cancelled bool `json:"cancelled"`
}

type forkData struct {
	Text      string `json:"text"`
	Cancelled bool   `json:"cancelled"`
}

type forkMessagesData struct {
	Messages []harness.ForkMessage `json:"messages"`
}

// lastTextData is get_last_assistant_text's {text}; with no assistant text pi sends {}.
type lastTextData struct {
	Text *string `json:"text,omitempty"`
}

// bashData is pi's BashResult; exitCode is undefined when the command was cancelled or killed.
type bashData struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode,omitempty"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

type commandsData struct {
	Commands []commandData `json:"commands"`
}

// commandData is one get_commands entry, field for field as pi writes it.
type commandData struct {
	Name        string               `json:"name"`
	Description string               `json:"description"`
	Source      string               `json:"source"`
	SourceInfo  resources.SourceInfo `json:"sourceInfo"`
}

// sessionInfoChanged is the session event pi emits when the session is named.
type sessionInfoChanged struct {
	Type string `json:"type"`
	Name string `json:"name"`
}
