package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/resources"
)

// This file is what the TUI does with templates and skills: they join the "/" completion list (pi's
// order: built-ins, templates, extension commands, skills), are read in the background after the first
// frame, and /reload reads them again. Running them is the session's input pipeline, like any prompt.

// reloadDoneMsg is the end of /reload.
type reloadDoneMsg struct{ err error }

// loadResources reads the templates and skills off the UI goroutine, so the first "/" finds them
// ready; problems arrive as warnings.
func (m *model) loadResources() tea.Cmd {
	sess := m.sess
	return m.op(func() tea.Msg {
		sess.Resources()
		return nil
	})
}

// resourceCommands are the completion entries of extension commands, templates and skills (skills
// unless enableSkillCommands is false), each description tagged with its scope as pi does.
func (m *model) resourceCommands() []slashCommand {
	skills := true
	if m.opts.Settings != nil {
		if v := m.opts.Settings.Settings().EnableSkillCommands; v != nil {
			skills = *v
		}
	}
	builtin := map[string]bool{}
	for _, c := range commands() {
		builtin[c.name] = true
	}
	var templates, extensions, skillList []slashCommand
	for _, c := range m.sess.Commands() {
		sc := slashCommand{name: c.Name, hint: c.ArgumentHint, desc: tagDescription(c.Description, c.SourceInfo)}
		switch c.Source {
		case "prompt":
			templates = append(templates, sc)
		case "extension":
			if !builtin[c.Name] {
				extensions = append(extensions, sc)
			}
		case "skill":
			if skills {
				skillList = append(skillList, sc)
			}
		}
	}
	return append(append(templates, extensions...), skillList...)
}

// tagDescription prefixes a description with the scope it was loaded from: [u]ser, [p]roject or
// [t]emporary.
func tagDescription(desc string, src resources.SourceInfo) string {
	if src.Source == "" || src.Source == "builtin" {
		return desc
	}
	tag := "t"
	switch src.Scope {
	case "user":
		tag = "u"
	case "project":
		tag = "p"
	}
	if desc == "" {
		return "[" + tag + "]"
	}
	return "[" + tag + "] " + strings.TrimSpace(desc)
}

// cmdReload is /reload: settings, context files, templates and skills are read again.
func (m *model) cmdReload(string) tea.Cmd {
	switch {
	case m.sess.IsCompacting():
		m.addWarning("Wait for compaction to finish before reloading.")
		return nil
	case m.busy():
		m.addWarning("Wait for the current response to finish before reloading.")
		return nil
	}
	m.addStatus("Reloading skills, prompts, settings and context files...")
	sess := m.sess
	return m.op(func() tea.Msg { return reloadDoneMsg{err: sess.Reload()} })
}

func (m *model) reloadDone(msg reloadDoneMsg) tea.Cmd {
	if msg.err != nil {
		m.addError(msg.err.Error())
		return nil
	}
	m.addStatus("Reloaded skills, prompts, settings and context files")
	return m.reloadKeysAndTheme()
}
