package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/pi-go/pi-go/internal/provider"
)

// ExtensionProvider is the data part of an extension's pi.registerProvider(name, config): the same
// fields as a models.json provider entry (baseUrl, apiKey, api, headers, authHeader, compat,
// models), which pi composes the same way. The functions of a config (streamSimple, oauth) are
// not data: the extension host reports which of them the config has.
type ExtensionProvider struct {
	ProviderConfig
	// types are the models' "type" fields, in order: pi 1.6's "image" and "classifier" models are
	// no use to pi-go ("" and "chat" are chat models).
	types []string
}

// ParseExtensionProvider decodes a registerProvider config. A re-registration merges its defined
// fields over the previous one's, as pi does: pass the merged object.
func ParseExtensionProvider(name string, raw json.RawMessage) (*ExtensionProvider, error) {
	var p ExtensionProvider
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&p.ProviderConfig); err != nil {
		return nil, fmt.Errorf("provider %s: %w", name, err)
	}
	p.Name = name
	var kinds struct {
		Models []struct {
			Type string `json:"type"`
		} `json:"models"`
	}
	if err := json.Unmarshal(raw, &kinds); err == nil {
		for _, m := range kinds.Models {
			p.types = append(p.types, m.Type)
		}
	}
	for _, m := range p.ProviderConfig.Models {
		if m.ID == "" {
			return nil, fmt.Errorf("provider %s: a model has no id", name)
		}
	}
	return &p, nil
}

// MergeProviderConfig is pi's re-registration rule: the fields next defines replace prev's, the
// others stay. Both are JSON objects; prev may be nil.
func MergeProviderConfig(prev, next json.RawMessage) (json.RawMessage, error) {
	merged := map[string]json.RawMessage{}
	if len(prev) > 0 {
		if err := json.Unmarshal(prev, &merged); err != nil {
			return nil, err
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(next, &fields); err != nil {
		return nil, err
	}
	for k, v := range fields {
		if string(v) != "null" {
			merged[k] = v
		}
	}
	return json.Marshal(merged)
}

// ChatModels are the chat models of the registration, with pi's defaults, and whether the registration
// replaces the provider's models at all (a config without "models" only re-routes them). streamAPIs
// are the APIs the extension streams itself (none when the config has no streamSimple): a model of
// one is kept whatever its name; any other must speak an API pi-go has a package for, else it is
// left out and named in skipped.
func (p *ExtensionProvider) ChatModels(streamAPIs ...string) (models []provider.Model, replaces bool, skipped []string) {
	if p.ProviderConfig.Models == nil {
		return nil, false, nil
	}
	models = []provider.Model{}
	defAPI, defBase := modelDefaults(p.Name)
	for i := range p.ProviderConfig.Models {
		d := &p.ProviderConfig.Models[i]
		if i < len(p.types) && p.types[i] != "" && p.types[i] != "chat" {
			continue
		}
		api := firstNonEmpty(d.API, p.API, defAPI)
		streamed := slices.Contains(streamAPIs, api) || len(streamAPIs) == 0 && api == ""
		if !streamed && !provider.SpeaksAPI(api) {
			skipped = append(skipped, fmt.Sprintf("%s/%s (api %q)", p.Name, d.ID, api))
			continue
		}
		models = append(models, definedModel(&p.ProviderConfig, d, api, firstNonEmpty(d.BaseURL, p.BaseURL, defBase)))
	}
	return models, true, skipped
}

// ChatModelAPIs are the APIs of the registration's chat models, each once: a native provider streams
// all of them itself.
func (p *ExtensionProvider) ChatModelAPIs() []string {
	var apis []string
	defAPI, _ := modelDefaults(p.Name)
	for i := range p.ProviderConfig.Models {
		if i < len(p.types) && p.types[i] != "" && p.types[i] != "chat" {
			continue
		}
		d := &p.ProviderConfig.Models[i]
		if api := firstNonEmpty(d.API, p.API, defAPI); api != "" && !slices.Contains(apis, api) {
			apis = append(apis, api)
		}
	}
	return apis
}

// SetExtensionProvider makes p's apiKey, headers and authHeader count for its provider, above
// models.json's (pi 1.6: an extension's apiKey wins, headers merge with the extension's last).
func (a *Auth) SetExtensionProvider(p *ExtensionProvider) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.extProviders == nil {
		a.extProviders = map[string]*ProviderConfig{}
	}
	pc := p.ProviderConfig
	a.extProviders[p.Name] = &pc
}

// RemoveExtensionProvider forgets what SetExtensionProvider set for name.
func (a *Auth) RemoveExtensionProvider(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.extProviders, name)
}

func (a *Auth) extensionProvider(name string) *ProviderConfig {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.extProviders[name]
}

// providerConfig is models.json's entry for a provider with an extension's registration over it
// (nil when there is neither).
func (a *Auth) providerConfig(name string) *ProviderConfig {
	file := a.models.Provider(name)
	ext := a.extensionProvider(name)
	if ext == nil {
		return file
	}
	if file == nil {
		return ext
	}
	merged := *file
	if ext.APIKey != "" {
		merged.APIKey = ext.APIKey
	}
	if ext.Headers != nil {
		merged.Headers = maps.Clone(file.Headers)
		if merged.Headers == nil {
			merged.Headers = map[string]string{}
		}
		maps.Copy(merged.Headers, ext.Headers)
	}
	if ext.AuthHeader != nil {
		merged.AuthHeader = ext.AuthHeader
	}
	if ext.Models != nil {
		merged.Models = ext.Models
	}
	return &merged
}

// configFile names where a provider's key and headers are configured, for errors.
func (a *Auth) configFile(prov string) string {
	if a.extensionProvider(prov) != nil {
		return "the provider an extension registered"
	}
	if a.models == nil {
		return "models.json"
	}
	return fileOr(a.models.Path, "models.json")
}
