package provider

import (
	"bytes"
	"strings"
)

// The system prompt and the tool set live in the transcript as system messages (pi 1.6's
// pi-ai/utils/transcript). These functions replay them: in order, later messages patch earlier ones.

// orderedSet keeps named values in JavaScript Map order: replacing a value keeps its place, deleting
// then setting a name again moves it last.
type orderedSet[V any] struct {
	names  []string
	values map[string]V
}

func (s *orderedSet[V]) set(name string, v V) {
	if s.values == nil {
		s.values = map[string]V{}
	}
	if _, ok := s.values[name]; !ok {
		s.names = append(s.names, name)
	}
	s.values[name] = v
}

func (s *orderedSet[V]) delete(name string) {
	if _, ok := s.values[name]; !ok {
		return
	}
	delete(s.values, name)
	for i, n := range s.names {
		if n == name {
			s.names = append(s.names[:i:i], s.names[i+1:]...)
			break
		}
	}
}

func (s *orderedSet[V]) len() int { return len(s.names) }

// replay folds system messages, in order, into the current prompt and tools.
type replay struct {
	content  []string
	sections orderedSet[string]
	tools    orderedSet[ToolDefinition]
	first    *SystemMessage
}

func (r *replay) add(sm *SystemMessage) {
	if r.first == nil {
		r.first = sm
	}
	if text := sm.Text(); text != "" {
		r.content = append(r.content, text)
	}
	for _, s := range sm.Sections {
		if s.Removed {
			r.sections.delete(s.Name)
		} else {
			r.sections.set(s.Name, s.Text)
		}
	}
	r.addTools(sm)
}

// addTools applies a message's removals, then its additions (a same-named addition replaces the
// earlier declaration in place).
func (r *replay) addTools(sm *SystemMessage) {
	for _, name := range sm.ToolsRemoved {
		r.tools.delete(name)
	}
	for _, t := range sm.ToolsAdded {
		r.tools.set(t.Name, t)
	}
}

func (r *replay) currentTools() []ToolDefinition {
	if r.tools.len() == 0 {
		return nil
	}
	out := make([]ToolDefinition, len(r.tools.names))
	for i, n := range r.tools.names {
		out[i] = r.tools.values[n]
	}
	return out
}

// message is the replayed system message, nil when no system message was added.
func (r *replay) message() *SystemMessage {
	if r.first == nil {
		return nil
	}
	out := &SystemMessage{
		Content:         []Content{TextContent(strings.Join(r.content, "\n\n"))},
		ContentIsString: true,
		ToolsAdded:      r.currentTools(),
		Timestamp:       r.first.Timestamp,
		TimestampLast:   true,
	}
	if r.sections.len() > 0 {
		out.Sections = make([]PromptSection, len(r.sections.names))
		for i, n := range r.sections.names {
			out.Sections[i] = PromptSection{Name: n, Text: r.sections.values[n]}
		}
	}
	return out
}

// CurrentTools is the tool set the system messages of the transcript parts declare, the parts taken
// as one transcript in order (the loop passes the transcript and the messages about to join it).
func CurrentTools(parts ...[]Message) []ToolDefinition {
	var r replay
	for _, msgs := range parts {
		for _, m := range msgs {
			if sm, ok := m.(*SystemMessage); ok {
				r.addTools(sm)
			}
		}
	}
	return r.currentTools()
}

// CurrentSystemMessage replays every system message of msgs into one holding the current prompt and
// tools: contents are joined by blank lines, sections patched by name (a replaced section keeps its
// place, one removed and set again goes last), tools resolved as CurrentTools does. Its timestamp is
// the first system message's. It is nil when msgs hold no system message.
func CurrentSystemMessage(msgs []Message) *SystemMessage {
	var r replay
	for _, m := range msgs {
		if sm, ok := m.(*SystemMessage); ok {
			r.add(sm)
		}
	}
	return r.message()
}

// SystemMessageText renders a system message as a complete prompt: its content, then its sections,
// the non-empty ones joined by blank lines.
func SystemMessageText(m *SystemMessage) string {
	if m == nil {
		return ""
	}
	var parts []string
	if text := m.Text(); text != "" {
		parts = append(parts, text)
	}
	for _, s := range m.Sections {
		if !s.Removed && s.Text != "" {
			parts = append(parts, s.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// CurrentSystemPrompt is the prompt text the system messages of msgs replay to.
func CurrentSystemPrompt(msgs []Message) string {
	return SystemMessageText(CurrentSystemMessage(msgs))
}

// CollapseSystemMessages splits a transcript for a request to an API without mid-conversation system
// messages: the replayed prompt and tools, and the other messages in order (msgs itself when it holds
// no system message).
func CollapseSystemMessages(msgs []Message) (prompt string, tools []ToolDefinition, rest []Message) {
	var r replay
	for i, m := range msgs {
		sm, ok := m.(*SystemMessage)
		switch {
		case ok && rest == nil:
			rest = make([]Message, i, len(msgs)-1)
			copy(rest, msgs[:i])
			r.add(sm)
		case ok:
			r.add(sm)
		case rest != nil:
			rest = append(rest, m)
		}
	}
	if rest == nil {
		return "", nil, msgs
	}
	head := r.message()
	return SystemMessageText(head), head.ToolsAdded, rest
}

// DeclarationsEqual reports whether two tools declare the same interface to the model: the same name,
// description, parameters and constrained-sampling preference (JSON compared without whitespace).
func DeclarationsEqual(a, b *ToolDefinition) bool {
	return a.Name == b.Name && a.Description == b.Description &&
		rawEqual(a.Parameters, b.Parameters, "{}") && rawEqual(a.ConstrainedSampling, b.ConstrainedSampling, "")
}

func rawEqual(a, b []byte, empty string) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if compactRaw(&ca, a, empty) != nil || compactRaw(&cb, b, empty) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// ToolStateChanges compares two complete tool sets: the tools of current that previous lacks or
// declares differently are added, the tools of previous that current lacks or declares differently are
// removed (a changed declaration is a removal and an addition).
func ToolStateChanges(previous, current []ToolDefinition) (added []ToolDefinition, removed []string) {
	find := func(set []ToolDefinition, name string) *ToolDefinition {
		for i := range set {
			if set[i].Name == name {
				return &set[i]
			}
		}
		return nil
	}
	for i := range current {
		if p := find(previous, current[i].Name); p == nil || !DeclarationsEqual(p, &current[i]) {
			added = append(added, current[i])
		}
	}
	for i := range previous {
		if c := find(current, previous[i].Name); c == nil || !DeclarationsEqual(&previous[i], c) {
			removed = append(removed, previous[i].Name)
		}
	}
	return added, removed
}

// DiffSections compares the sections the model has (replayed, so none is a removal) with the wanted
// ones and returns the patch: changed and new sections in wanted's order, then removals. nil when
// nothing changed.
func DiffSections(previous, wanted []PromptSection) []PromptSection {
	prev := make(map[string]string, len(previous))
	for _, s := range previous {
		prev[s.Name] = s.Text
	}
	var patch []PromptSection
	seen := make(map[string]bool, len(wanted))
	for _, s := range wanted {
		seen[s.Name] = true
		if text, ok := prev[s.Name]; !ok || text != s.Text {
			patch = append(patch, PromptSection{Name: s.Name, Text: s.Text})
		}
	}
	for _, s := range previous {
		if !seen[s.Name] {
			patch = append(patch, PromptSection{Name: s.Name, Removed: true})
		}
	}
	return patch
}
