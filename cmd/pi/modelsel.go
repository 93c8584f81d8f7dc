package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/demo"
	"github.com/pi-go/pi-go/internal/session"
)

// modelSelection is the model and thinking level a session starts with.
type modelSelection struct {
	model    *provider.Model
	thinking provider.ThinkingLevel
	// fromCLI: the model was named on the command line, so a resumed session keeps it.
	fromCLI bool
	// forceThinking: the level came from the command line and overrides a resumed session's.
	forceThinking bool
	scoped        []provider.ScopedModel
	demo          bool
}

// noModelsMessage is the guidance when nothing is configured (non-interactive modes do not fall back
// to the demo model unless asked with --provider demo).
const noModelsMessage = `No models available.

Configure a model, then run pi again:
  export ANTHROPIC_API_KEY=sk-ant-...                (or OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, ...)
  pi --base-url http://localhost:11434/v1 --model qwen2.5-coder   (any OpenAI-compatible server)
  ~/.pi/agent/models.json                            (custom providers, as pi reads them)
or try the offline demo model: pi --provider demo -p "hello"`

// selectModel chooses the initial model and thinking level (pi-reference §3.9).
func (a *app) selectModel(ctx context.Context, store *session.Manager, interactive bool) (modelSelection, error) {
	o := a.opts
	var sel modelSelection
	wantDemo := strings.EqualFold(o.Provider, demo.ProviderName)
	if wantDemo || (interactive && a.endpoint == nil) {
		a.registry = a.withDemo()
	}

	patterns := o.Models
	if len(patterns) == 0 {
		patterns = a.settings.Settings().EnabledModels
	}
	if len(patterns) > 0 {
		scoped, warnings := a.scopeWithExtensions(ctx, patterns)
		for _, w := range warnings {
			a.warn("%s", w)
		}
		sel.scoped = scoped
	}

	switch {
	case wantDemo:
		sel.model, sel.fromCLI, sel.demo = a.registry.Find(demo.ProviderName, demo.ModelID), true, true
	case a.endpoint != nil:
		id := o.Model
		if base, lvl, found := cutThinkingSuffix(id); found {
			id, sel.thinking = base, lvl
		}
		sel.model, sel.fromCLI = a.registry.Find(a.endpoint.Provider, id), true
	case o.Model != "":
		res, err := a.resolveCLIModelWithExtensions(ctx, o.Provider, o.Model)
		if err != nil {
			return sel, &exitError{code: 1, msg: "Error: " + err.Error()}
		}
		if res.Warning != "" {
			a.warn("%s", res.Warning)
		}
		sel.model, sel.thinking, sel.fromCLI = res.Model, res.Thinking, true
	}

	if o.APIKey != "" {
		target := sel.model
		if target == nil && len(sel.scoped) > 0 {
			target = sel.scoped[0].Model
		}
		if target == nil {
			return sel, &exitError{code: 1, msg: "Error: --api-key requires a model to be specified via --model, --provider/--model, or --models"}
		}
		a.auth.SetRuntimeAPIKey(target.Provider, config.NewAPIKey(o.APIKey))
	}

	resuming := !store.IsFresh()
	if sel.model == nil && !wantDemo && a.endpoint == nil {
		if resuming {
			a.awaitExtensionSessionModel(ctx, store)
		} else {
			a.awaitExtensionDefault(ctx)
		}
	}
	if sel.model == nil && len(sel.scoped) > 0 && !resuming {
		s := a.settings.Settings()
		pick := sel.scoped[0]
		for _, sm := range sel.scoped {
			if sm.Model.Provider == s.DefaultProvider && sm.Model.ID == s.DefaultModel {
				pick = sm
				break
			}
		}
		sel.model = pick.Model
		if sel.thinking == "" {
			sel.thinking = pick.Thinking
		}
	}
	if o.Thinking != "" {
		sel.thinking = provider.ThinkingLevel(o.Thinking)
	}
	sel.forceThinking = o.Thinking != "" || (sel.fromCLI && sel.thinking != "")

	if sel.model == nil {
		sel.model = a.defaultModel(interactive)
	}
	if sel.model != nil && sel.model.Provider == demo.ProviderName {
		sel.demo = true
	}
	if sel.model == nil && !interactive && !resuming {
		return sel, &exitError{code: 1, msg: noModelsMessage}
	}
	if sel.model != nil && !a.hasAuth(sel.model.Provider) {
		if !interactive {
			// A key that names an unset variable says which (resolving it runs no command: a
			// command always counts as configured).
			var nk *config.NoAPIKeyError
			if _, _, err := a.auth.APIKey(context.Background(), sel.model.Provider); err != nil && !errors.As(err, &nk) {
				return sel, &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			env := provider.APIKeyEnvVar(sel.model.Provider)
			hint := "set its apiKey in ~/.pi/agent/models.json or pass --api-key"
			if env != "" {
				hint = fmt.Sprintf("set %s or pass --api-key", env)
			}
			return sel, &exitError{code: 1, msg: fmt.Sprintf("Error: No API key found for %s: %s.", sel.model.Provider, hint)}
		}
	}
	if sel.thinking == "" {
		if d := a.settings.Settings().DefaultThinkingLevel; provider.IsThinkingLevel(d) {
			sel.thinking = provider.ThinkingLevel(d)
		} else {
			sel.thinking = provider.DefaultThinkingLevel
		}
	}
	return sel, nil
}

// defaultModel is the settings default if usable, else the first available model in pi's order; the
// demo model is among the available ones only in interactive mode with nothing else configured.
func (a *app) defaultModel(interactive bool) *provider.Model {
	s := a.settings.Settings()
	if s.DefaultProvider != "" && s.DefaultModel != "" {
		if m := a.registry.Find(s.DefaultProvider, s.DefaultModel); m != nil && a.auth.HasAuth(m.Provider) {
			return m
		}
	}
	var real []*provider.Model
	for _, m := range a.registry.Available(a.hasAuth) {
		if m.Provider != demo.ProviderName {
			real = append(real, m)
		}
	}
	if m := provider.DefaultAvailableModel(real); m != nil {
		return m
	}
	if interactive {
		return a.registry.Find(demo.ProviderName, demo.ModelID)
	}
	return nil
}

// withDemo returns the registry with the demo model added.
func (a *app) withDemo() *provider.Registry {
	if a.registry.Find(demo.ProviderName, demo.ModelID) != nil {
		return a.registry
	}
	var extra []provider.Model
	for _, m := range a.registry.All() {
		extra = append(extra, *m)
	}
	extra = append(extra, *demo.Model())
	return provider.NewRegistry(extra, nil)
}

func cutThinkingSuffix(id string) (string, provider.ThinkingLevel, bool) {
	i := strings.LastIndex(id, ":")
	if i < 0 {
		return id, "", false
	}
	if lvl := id[i+1:]; provider.IsThinkingLevel(lvl) {
		return id[:i], provider.ThinkingLevel(lvl), true
	}
	return id, "", false
}
