package resources

// Command is a slash command a template or skill adds, as RPC's get_commands lists it (Source is
// "prompt" or "skill") and the editor's completion shows it.
type Command struct {
	Name         string
	Description  string
	ArgumentHint string
	Source       string
	SourceInfo   SourceInfo
	// CompletesArguments: the command suggests completions of its argument text (an extension
	// command's getArgumentCompletions; the session's CompleteArguments asks for them).
	CompletesArguments bool
}

// ArgumentCompletion is one suggestion for a command's arguments: Value replaces the argument text
// typed so far; Label (Value when empty) and Description are shown.
type ArgumentCompletion struct {
	Value       string `json:"value"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description,omitempty"`
}

// Commands are the templates' commands, then the skills' (/skill:name), in load order.
func (s *Set) Commands() []Command {
	if s == nil {
		return nil
	}
	out := make([]Command, 0, len(s.Templates)+len(s.Skills))
	for _, t := range s.Templates {
		out = append(out, Command{Name: t.Name, Description: t.Description, ArgumentHint: t.ArgumentHint, Source: "prompt", SourceInfo: t.Source})
	}
	for _, sk := range s.Skills {
		out = append(out, Command{Name: "skill:" + sk.Name, Description: sk.Description, Source: "skill", SourceInfo: sk.Source})
	}
	return out
}
