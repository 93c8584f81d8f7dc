package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/pi-go/pi-go/internal/resources"
)

// resourceState holds the templates and skills. They are read on first need (the first prompt, the
// first "/" typed, get_commands), not while the TUI draws its first frame: discovery reads every
// template and skill file.
type resourceState struct {
	loadMu sync.Mutex // one load at a time
	set    atomic.Pointer[resources.Set]
	// prompt is the system prompt's configuration (custom prompt, appends, context files), replaced
	// by Reload; nil: Options.Prompt.
	prompt atomic.Pointer[SystemPromptOptions]
}

// Resources are the session's templates and skills, read now if they have not been yet; their
// diagnostics are reported as warnings when they are read. Without Options.LoadResources there are
// none.
func (s *Session) Resources() *resources.Set {
	if set := s.res.set.Load(); set != nil {
		return set
	}
	s.res.loadMu.Lock()
	set := s.res.set.Load()
	if set == nil {
		set = s.loadResources()
		s.res.set.Store(set)
	}
	s.res.loadMu.Unlock()
	return set
}

func (s *Session) loadResources() *resources.Set {
	if s.opts.LoadResources == nil {
		return &resources.Set{}
	}
	set := s.opts.LoadResources()
	if set == nil {
		set = &resources.Set{}
	}
	for _, d := range set.Diagnostics {
		s.warn(errors.New(d.String()))
	}
	return set
}

// loadedResources are the resources if they have been read (nil otherwise); it never reads them,
// so the footer's context estimate does not pull discovery into the first frame.
func (s *Session) loadedResources() *resources.Set { return s.res.set.Load() }

// ExtensionReloader is implemented by hooks whose extensions /reload loads again.
type ExtensionReloader interface {
	ReloadExtensions(ctx context.Context) error
}

// Reload reloads the extensions (ExtensionReloader), then re-reads settings.json, the system
// prompt's files and context files, the templates and the skills (pi's /reload). The next prompt sends the system prompt's changes; a run in progress keeps
// what it has.
func (s *Session) Reload() error {
	var errs []error
	// pi reloads the extension runtime first: its session_shutdown and new session_start frame
	// the reload.
	if r, ok := s.opts.Hooks.(ExtensionReloader); ok {
		if err := r.ReloadExtensions(context.Background()); err != nil {
			errs = append(errs, err)
		}
	}
	if s.opts.Settings != nil {
		for _, err := range s.opts.Settings.Reload() {
			s.warn(err)
		}
	}
	if s.opts.ReloadPrompt != nil {
		prompt, err := s.opts.ReloadPrompt()
		if err != nil {
			errs = append(errs, fmt.Errorf("reload: %w", err))
		} else {
			s.res.prompt.Store(&prompt)
		}
	}
	s.discoverResources("reload")
	s.res.loadMu.Lock()
	s.res.set.Store(s.loadResources())
	s.res.loadMu.Unlock()
	return errors.Join(errs...)
}

// promptOptions are the system prompt's inputs as they stand: the configuration with the skills the
// model may load (none until the resources are read).
func (s *Session) promptOptions() (SystemPromptOptions, *resources.Set) {
	o := s.opts.Prompt
	if p := s.res.prompt.Load(); p != nil {
		o = *p
	}
	set := s.loadedResources()
	if set != nil && s.opts.LoadResources != nil { // else Prompt.Skills stand as given
		o.Skills = nil
		for _, sk := range set.Skills {
			o.Skills = append(o.Skills, Skill{Name: sk.Name, Description: sk.Description, FilePath: sk.FilePath,
				DisableModelInvocation: sk.DisableModelInvocation})
		}
	}
	return o, set
}
