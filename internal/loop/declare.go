package loop

import (
	"slices"

	"github.com/pi-go/pi-go/internal/provider"
)

// The prompt and the tool set live in the transcript as system messages (see provider's transcript.go):
// the Agent's tools are what can run, the system messages declare what the model may call. Before
// every request the loop declares the difference, so a request offers exactly the tools that run.

// initialSystemMessage is the leading system message of an Agent built with a prompt or tools, nil
// when it has neither.
func initialSystemMessage(prompt string, tools []Tool) *provider.SystemMessage {
	if prompt == "" && len(tools) == 0 {
		return nil
	}
	m := provider.NewSystemMessage(0)
	m.Content = []provider.Content{provider.TextContent(prompt)}
	m.ToolsAdded = definitions(tools)
	return m
}

func definitions(tools []Tool) []provider.ToolDefinition {
	if len(tools) == 0 {
		return nil
	}
	defs := make([]provider.ToolDefinition, len(tools))
	for i, t := range tools {
		defs[i] = t.Definition()
	}
	return defs
}

func onlySystemMessages(msgs []provider.Message) bool {
	for _, m := range msgs {
		if m.Role() != provider.RoleSystem {
			return false
		}
	}
	return true
}

// declareToolChanges returns pending (the messages about to enter the transcript) with the tool
// changes since the transcript's declarations (pi's declareToolChanges): when pending holds a system
// message, the last one carries them in place of its own tool fields; otherwise a new system message is
// inserted before the first message that is not one. pending comes back as it is when nothing changed.
func (r *run) declareToolChanges(pending []provider.Message) []provider.Message {
	sysIndex := -1
	for i := len(pending) - 1; i >= 0; i-- {
		if pending[i].Role() == provider.RoleSystem {
			sysIndex = i
			break
		}
	}
	var carrier *provider.SystemMessage
	baseline := pending
	if sysIndex >= 0 {
		if sm, ok := pending[sysIndex].(*provider.SystemMessage); ok {
			cp := *sm
			cp.ToolsAdded, cp.ToolsRemoved = nil, nil
			carrier = &cp
			baseline = slices.Clone(pending)
			baseline[sysIndex] = carrier
		}
	}

	r.a.mu.Lock()
	declared := provider.CurrentTools(r.a.state.Messages, baseline)
	executable := slices.Clone(r.a.state.Tools)
	r.a.mu.Unlock()
	added, removed := provider.ToolStateChanges(declared, definitions(executable))
	unchanged := len(added) == 0 && len(removed) == 0

	if carrier != nil {
		own := pending[sysIndex].(*provider.SystemMessage)
		if unchanged && len(own.ToolsAdded) == 0 && len(own.ToolsRemoved) == 0 {
			return pending
		}
		carrier.ToolsAdded, carrier.ToolsRemoved = added, removed
		return baseline
	}
	if unchanged {
		return pending
	}
	update := provider.NewSystemMessage(provider.Now())
	update.ToolsAdded, update.ToolsRemoved = added, removed
	at := slices.IndexFunc(pending, func(m provider.Message) bool { return m.Role() != provider.RoleSystem })
	if at < 0 {
		at = len(pending)
	}
	return slices.Insert(slices.Clone(pending), at, provider.Message(update))
}
