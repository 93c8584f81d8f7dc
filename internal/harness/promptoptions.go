package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/pi-go/pi-go/internal/provider"
)

// pi 1.6 hands before_agent_start handlers the prompt's structure (event.systemPromptOptions, its
// BuildSystemPromptOptions) besides the rendered text; handlers may edit it in place (add a section,
// change a tool's lines, the guidelines, the tools), and the run's prompt is built from the edited
// structure. This file is that structure as pi's JSON, and the run's edited options.

// PromptOptionsHook is the optional part of ExtensionHooks that hands handlers the structure. It
// replaces BeforeAgentStart and CustomStartHook for the hooks that implement it.
type PromptOptionsHook interface {
	BeforeAgentStartWithOptions(ctx context.Context, start AgentStart) AgentStartResult
}

// AgentStart is what before_agent_start is told: the prompt (Prompt and Images) or the custom message
// (Custom) starting the run, the system prompt's text and its structure.
type AgentStart struct {
	Prompt       string
	Images       []provider.Content
	Custom       *provider.CustomMessage
	SystemPrompt string
	Options      SystemPromptOptions
}

// AgentStartResult is what the handlers did: messages to add, a replacement for the prompt's text
// ("" none) and the edited structure (nil when unchanged).
type AgentStartResult struct {
	Messages     []provider.Message
	SystemPrompt string
	Options      *SystemPromptOptions
}

// piPromptOptions is pi 1.6's normalised BuildSystemPromptOptions, key for key.
type piPromptOptions struct {
	CustomPrompt       string              `json:"customPrompt,omitempty"`
	SelectedTools      []string            `json:"selectedTools"`
	HiddenTools        []string            `json:"hiddenTools"`
	ToolSnippets       orderedStrings      `json:"toolSnippets"`
	ToolGuidelines     map[string][]string `json:"toolGuidelines"`
	PromptGuidelines   []string            `json:"promptGuidelines"`
	AppendSystemPrompt string              `json:"appendSystemPrompt"`
	Sections           orderedStrings      `json:"sections"`
	Cwd                string              `json:"cwd"`
	ContextFiles       []piContextFile     `json:"contextFiles"`
	Skills             []piSkill           `json:"skills"`
}

type piContextFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

type piSkill struct {
	Name                   string `json:"name"`
	Description            string `json:"description"`
	FilePath               string `json:"filePath"`
	DisableModelInvocation bool   `json:"disableModelInvocation"`
}

// MarshalPi is o as pi's systemPromptOptions: every tool's lines resolved (the built-in ones
// included), the added sections as a record in their order.
func (o SystemPromptOptions) MarshalPi() (json.RawMessage, error) {
	p := piPromptOptions{
		CustomPrompt: o.CustomPrompt, SelectedTools: append([]string{}, o.Tools...), HiddenTools: []string{},
		ToolGuidelines: map[string][]string{}, PromptGuidelines: append([]string{}, o.PromptGuidelines...),
		Cwd: o.Cwd, ContextFiles: []piContextFile{}, Skills: []piSkill{},
	}
	names := slices.Clone(o.Tools)
	for _, name := range slices.Sorted(maps.Keys(o.ToolPrompts)) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		tp := o.toolPrompt(name)
		if tp.Snippet != "" {
			p.ToolSnippets = append(p.ToolSnippets, provider.PromptSection{Name: name, Text: tp.Snippet})
		}
		if len(tp.Guidelines) > 0 {
			p.ToolGuidelines[name] = tp.Guidelines
		}
	}
	for _, a := range o.AppendPrompts {
		if a != "" && p.AppendSystemPrompt != "" {
			p.AppendSystemPrompt += "\n\n"
		}
		p.AppendSystemPrompt += a
	}
	p.Sections = append(orderedStrings{}, o.Sections...)
	for _, f := range o.ContextFiles {
		p.ContextFiles = append(p.ContextFiles, piContextFile(f))
	}
	for _, sk := range o.Skills {
		p.Skills = append(p.Skills, piSkill{Name: sk.Name, Description: sk.Description, FilePath: sk.FilePath,
			DisableModelInvocation: sk.DisableModelInvocation})
	}
	return json.Marshal(p)
}

// sectionName is pi's rule for a section's name; "preamble" is not one handlers may set.
var sectionName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// UnmarshalPiPromptOptions reads options pi's way written by handlers. A tool without lines in them
// has none, even a built-in one. An invalid section name is an error, as pi refuses to build the
// prompt.
func UnmarshalPiPromptOptions(data []byte) (SystemPromptOptions, error) {
	var p piPromptOptions
	if err := json.Unmarshal(data, &p); err != nil {
		return SystemPromptOptions{}, err
	}
	o := SystemPromptOptions{CustomPrompt: p.CustomPrompt, Tools: p.SelectedTools, PromptGuidelines: p.PromptGuidelines,
		Cwd: p.Cwd, ToolPrompts: map[string]ToolPrompt{}}
	for name := range builtinToolPrompts {
		o.ToolPrompts[name] = ToolPrompt{}
	}
	for _, s := range p.ToolSnippets {
		o.ToolPrompts[s.Name] = ToolPrompt{Snippet: s.Text}
	}
	for name, g := range p.ToolGuidelines {
		tp := o.ToolPrompts[name]
		tp.Guidelines = g
		o.ToolPrompts[name] = tp
	}
	if p.AppendSystemPrompt != "" {
		o.AppendPrompts = []string{p.AppendSystemPrompt}
	}
	for _, s := range p.Sections {
		if !sectionName.MatchString(s.Name) || s.Name == SectionPreamble {
			return SystemPromptOptions{}, fmt.Errorf("Invalid system prompt section name: %s", s.Name)
		}
	}
	o.Sections = p.Sections
	for _, f := range p.ContextFiles {
		o.ContextFiles = append(o.ContextFiles, ContextFile(f))
	}
	for _, sk := range p.Skills {
		o.Skills = append(o.Skills, Skill{Name: sk.Name, Description: sk.Description, FilePath: sk.FilePath,
			DisableModelInvocation: sk.DisableModelInvocation})
	}
	return o, nil
}

// orderedStrings is a JSON object of strings with its keys in order (pi's records keep insertion
// order, and a section's place in the prompt is its place in the record). Values that are not
// strings (a handler's undefined became null) are left out, as pi skips empty sections.
type orderedStrings []provider.PromptSection

func (o orderedStrings) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, s := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(s.Name)
		v, _ := json.Marshal(s.Text)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o *orderedStrings) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("not an object: %s", data)
	}
	*o = nil
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if s, ok := v.(string); ok {
			*o = append(*o, provider.PromptSection{Name: t.(string), Text: s})
		}
	}
	return nil
}

// runOptions are the run's prompt options edited by before_agent_start (nil: none).
func (s *Session) runOptions() *SystemPromptOptions {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runPrompt
}

// startRun runs before_agent_start for a run: with a PromptOptionsHook, handlers get the prompt's
// structure, and what they edit is the run's prompt (the tools they select become the active ones,
// as pi applies the edited loadout). It returns the messages to add after the starting ones.
func (s *Session) startRun(ctx context.Context, start AgentStart) ([]provider.Message, bool) {
	h, ok := s.opts.Hooks.(PromptOptionsHook)
	if !ok {
		return nil, false
	}
	start.SystemPrompt = s.SystemPrompt()
	start.Options = s.currentPromptOptions()
	r := h.BeforeAgentStartWithOptions(ctx, start)
	if r.Options != nil && !slices.Equal(r.Options.Tools, start.Options.Tools) {
		s.SetActiveTools(r.Options.Tools)
	}
	s.mu.Lock()
	s.runSystemPrompt = r.SystemPrompt
	s.runPrompt = r.Options
	s.mu.Unlock()
	return r.Messages, true
}
