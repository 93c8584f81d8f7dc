package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// ModelsConfig is a parsed models.json: custom providers and models, and changes to built-in ones
// (pi-reference §3.8). Values such as apiKey and header values are kept as written; they are
// resolved per request (see Auth).
type ModelsConfig struct {
	Path string
	// Providers are in file order; Provider finds one by name through an index built when the file
	// is parsed, so the list is not to be changed afterwards.
	Providers []ProviderConfig
	byName    map[string]int
	// Warnings name entries pi-go ignores although pi would accept them (models of an API pi-go does
	// not speak, models of pi built-in providers pi-go lacks).
	Warnings []string
}

// ProviderConfig is one entry of "providers".
type ProviderConfig struct {
	Name           string                         `json:"-"` // the key in "providers"
	DisplayName    string                         `json:"name,omitempty"`
	BaseURL        string                         `json:"baseUrl,omitempty"`
	APIKey         string                         `json:"apiKey,omitempty"` // literal, $NAME template or !command
	API            string                         `json:"api,omitempty"`
	Headers        map[string]string              `json:"headers,omitempty"` // values resolved like APIKey
	Compat         *provider.Compat               `json:"compat,omitempty"`
	AuthHeader     *bool                          `json:"authHeader,omitempty"`
	Models         []ModelDefinition              `json:"models,omitempty"`
	ModelOverrides map[string]ModelOverrideConfig `json:"modelOverrides,omitempty"`
}

// ModelDefinition is a custom model; unset fields take pi's defaults (see ModelsConfig.Customization).
type ModelDefinition struct {
	ID               string                             `json:"id"`
	Name             string                             `json:"name,omitempty"`
	API              string                             `json:"api,omitempty"`
	BaseURL          string                             `json:"baseUrl,omitempty"`
	Reasoning        *bool                              `json:"reasoning,omitempty"`
	ThinkingLevelMap map[provider.ThinkingLevel]*string `json:"thinkingLevelMap,omitempty"`
	Input            []string                           `json:"input,omitempty"`
	Cost             *provider.ModelCost                `json:"cost,omitempty"`
	ContextWindow    *int                               `json:"contextWindow,omitempty"`
	MaxTokens        *int                               `json:"maxTokens,omitempty"`
	Headers          map[string]string                  `json:"headers,omitempty"`
	Compat           *provider.Compat                   `json:"compat,omitempty"`
}

// ModelOverrideConfig is a "modelOverrides" entry: a partial built-in model plus request headers.
type ModelOverrideConfig struct {
	provider.ModelOverride
	Headers map[string]string `json:"headers,omitempty"`
}

// Defaults of a custom model's fields (pi's).
const (
	DefaultContextWindow = 128000
	DefaultMaxTokens     = 16384
)

// ModelsError is a models.json problem; the file is then ignored as a whole and only built-in models
// are offered. Its text is pi's; the UI shows it as "models.json error: " + Error().
type ModelsError struct {
	Path string
	Kind string // "parse", "schema" or "load"
	Msg  string
}

func (e *ModelsError) Error() string {
	switch e.Kind {
	case "parse":
		return fmt.Sprintf("Failed to parse models.json: %s\n\nFile: %s", e.Msg, e.Path)
	case "schema":
		return fmt.Sprintf("Invalid models.json schema:\n%s\n\nFile: %s", e.Msg, e.Path)
	}
	return fmt.Sprintf("Failed to load models.json: %s\n\nFile: %s", e.Msg, e.Path)
}

// LoadModelsConfig reads models.json. A missing file is an empty config. Any other problem returns a
// *ModelsError and an empty config, never a partial one.
func LoadModelsConfig(path string) (*ModelsConfig, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &ModelsConfig{Path: path}, nil
	}
	if err != nil {
		return &ModelsConfig{Path: path}, &ModelsError{Path: path, Kind: "load", Msg: err.Error()}
	}
	return parseModelsConfig(data, path) // data is ours: stripped in place, not copied
}

// parseModelsConfig parses models.json content (// comments and trailing commas allowed, as in pi
// 0.73.1; path is only used in messages) from a buffer it may change: the comments are stripped in
// place, and both decoders read that one copy (a large file costs no further copies).
func parseModelsConfig(data []byte, path string) (*ModelsConfig, error) {
	empty := &ModelsConfig{Path: path}
	clean := stripTrailingCommas(stripLineComments(data))
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return empty, &ModelsError{Path: path, Kind: "parse", Msg: describeJSONError(string(clean), err)}
	}
	if dec.More() {
		off := dec.InputOffset()
		return empty, &ModelsError{Path: path, Kind: "parse", Msg: "unexpected data after the JSON value" + position(string(clean), off)}
	}
	if problems := validateModelsSchema(generic); len(problems) > 0 {
		return empty, &ModelsError{Path: path, Kind: "schema", Msg: formatProblems(problems)}
	}
	providers := 0
	if root, ok := generic.(map[string]any); ok {
		if pm, ok := root["providers"].(map[string]any); ok {
			providers = len(pm)
		}
	}
	cfg, err := decodeModelsConfig(clean, path, providers)
	if err != nil {
		return empty, &ModelsError{Path: path, Kind: "load", Msg: err.Error()}
	}
	if err := cfg.validate(); err != nil {
		return empty, &ModelsError{Path: path, Kind: "load", Msg: err.Error()}
	}
	cfg.Warnings = cfg.unsupported()
	return cfg, nil
}

// decodeModelsConfig decodes validated content in one pass over it, keeping the providers in file
// order; a repeated name keeps its first place and its last value, as JSON.parse does. providers is
// how many there are, to size the list.
func decodeModelsConfig(clean []byte, path string, providers int) (*ModelsConfig, error) {
	dec := json.NewDecoder(bytes.NewReader(clean))
	cfg := &ModelsConfig{Path: path, byName: make(map[string]int, providers), Providers: make([]ProviderConfig, 0, providers)}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if tok != "providers" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		cfg.Providers, cfg.byName = cfg.Providers[:0], map[string]int{} // a repeated "providers": the last one counts
		if err := expectDelim(dec, '{'); err != nil {
			return nil, err
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			name, _ := tok.(string)
			var pc ProviderConfig
			if err := dec.Decode(&pc); err != nil {
				return nil, fmt.Errorf("provider %s: %w", name, err)
			}
			pc.Name = name
			if i, ok := cfg.byName[name]; ok {
				cfg.Providers[i] = pc
				continue
			}
			cfg.byName[name] = len(cfg.Providers)
			cfg.Providers = append(cfg.Providers, pc)
		}
		if err := expectDelim(dec, '}'); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("expected %v, got %v", want, tok)
	}
	return nil
}

// validate applies pi 1.6's checks beyond the schema (applyModelsJson, modelFromJson). Unlike 0.73.1,
// an entry with only an apiKey or authHeader changes a provider, and custom models need no apiKey
// (without one the provider has no key, like any provider without credentials).
func (c *ModelsConfig) validate() error {
	for i := range c.Providers {
		p := &c.Providers[i]
		builtIn := isPiBuiltinProvider(p.Name)
		if len(p.Models) == 0 {
			if p.BaseURL == "" && p.Headers == nil && p.Compat == nil && len(p.ModelOverrides) == 0 &&
				p.APIKey == "" && p.AuthHeader == nil {
				return fmt.Errorf(`Provider %s: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".`, p.Name)
			}
		} else if !builtIn && p.BaseURL == "" {
			return fmt.Errorf(`Provider %s: "baseUrl" is required when defining custom models.`, p.Name)
		}
		for _, m := range p.Models {
			if p.API == "" && m.API == "" && !builtIn {
				return fmt.Errorf(`Provider %s, model %s: no "api" specified. Set at provider or model level.`, p.Name, m.ID)
			}
			if m.ContextWindow != nil && *m.ContextWindow <= 0 {
				return fmt.Errorf("Provider %s, model %s: invalid contextWindow", p.Name, m.ID)
			}
			if m.MaxTokens != nil && *m.MaxTokens <= 0 {
				return fmt.Errorf("Provider %s, model %s: invalid maxTokens", p.Name, m.ID)
			}
		}
	}
	return nil
}

// Provider returns the entry for a provider name, or nil.
func (c *ModelsConfig) Provider(name string) *ProviderConfig {
	if c == nil {
		return nil
	}
	if i, ok := c.byName[name]; ok {
		return &c.Providers[i]
	}
	return nil
}

// modelDefaults is where a custom model's api and baseUrl come from when it names none: the
// built-in provider of the same name.
func modelDefaults(providerName string) (api, baseURL string) {
	if p, ok := provider.LookupBuiltinProvider(providerName); ok {
		return p.API, p.BaseURL
	}
	return "", ""
}

// resolvedModel builds the custom model of a definition with pi's defaults; ok is false when pi-go
// cannot use it (no api or baseUrl anywhere, or an API pi-go does not speak).
func resolvedModel(p *ProviderConfig, d *ModelDefinition) (provider.Model, bool) {
	defAPI, defBase := modelDefaults(p.Name)
	api := firstNonEmpty(d.API, p.API, defAPI)
	baseURL := firstNonEmpty(d.BaseURL, p.BaseURL, defBase)
	if !provider.SpeaksAPI(api) || baseURL == "" {
		return provider.Model{}, false
	}
	return definedModel(p, d, api, baseURL), true
}

// definedModel is the model of a definition (models.json's, or an extension's registration) with
// pi's defaults for what it leaves out.
func definedModel(p *ProviderConfig, d *ModelDefinition, api, baseURL string) provider.Model {
	m := provider.Model{
		ID:               d.ID,
		Name:             firstNonEmpty(d.Name, d.ID),
		API:              api,
		Provider:         p.Name,
		BaseURL:          baseURL,
		Reasoning:        d.Reasoning != nil && *d.Reasoning,
		ThinkingLevelMap: d.ThinkingLevelMap,
		Input:            d.Input,
		ContextWindow:    DefaultContextWindow,
		MaxTokens:        DefaultMaxTokens,
		Compat:           mergeCompat(p.Compat, d.Compat),
	}
	if m.Input == nil {
		m.Input = []string{"text"}
	}
	if d.Cost != nil {
		m.Cost = *d.Cost
	}
	if d.ContextWindow != nil {
		m.ContextWindow = *d.ContextWindow
	}
	if d.MaxTokens != nil {
		m.MaxTokens = *d.MaxTokens
	}
	return m
}

func mergeCompat(base, over *provider.Compat) *provider.Compat {
	if over == nil {
		return base
	}
	return base.Merge(over)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// unsupported says what pi would load and pi-go cannot, once per provider and cause, naming the file:
// models of a pi built-in provider pi-go has no catalogue for, and models whose API pi-go does not
// speak (never dropped silently).
func (c *ModelsConfig) unsupported() []string {
	var out []string
	spoken := strings.Join(provider.SpokenAPIs, ", ")
	for i := range c.Providers {
		p := &c.Providers[i]
		var noProvider []string
		byAPI := map[string][]string{}
		var apis []string
		if p.API != "" && !provider.SpeaksAPI(p.API) && len(p.Models) == 0 {
			byAPI[p.API] = nil
			apis = append(apis, p.API)
		}
		for j := range p.Models {
			d := &p.Models[j]
			if _, ok := resolvedModel(p, d); ok {
				continue
			}
			defAPI, _ := modelDefaults(p.Name)
			api := firstNonEmpty(d.API, p.API, defAPI)
			switch {
			case api == "" && isPiBuiltinProvider(p.Name):
				noProvider = append(noProvider, d.ID)
			case api != "" && !provider.SpeaksAPI(api):
				if _, seen := byAPI[api]; !seen {
					apis = append(apis, api)
				}
				byAPI[api] = append(byAPI[api], d.ID)
			}
		}
		if len(noProvider) > 0 {
			out = append(out, fmt.Sprintf("%s: provider %s: pi-go has no built-in %s provider; set \"baseUrl\" and \"api\" (one of %s) to use it. Skipped models: %s.",
				c.Path, p.Name, p.Name, spoken, strings.Join(noProvider, ", ")))
		}
		for _, api := range apis {
			msg := fmt.Sprintf("%s: provider %s: api %q is not supported by pi-go (it speaks %s).", c.Path, p.Name, api, spoken)
			if ids := byAPI[api]; len(ids) > 0 {
				msg += " Skipped models: " + strings.Join(ids, ", ") + "."
			}
			out = append(out, msg)
		}
	}
	return out
}

// Customization is what this file changes in the model list, for provider.NewRegistry: built-in
// providers re-routed (baseUrl, compat), built-in models patched (modelOverrides) and custom models.
func (c *ModelsConfig) Customization() *provider.Customization {
	cust := &provider.Customization{
		Providers:      map[string]provider.ProviderOverride{},
		ModelOverrides: map[string]map[string]provider.ModelOverride{},
	}
	if c == nil {
		return cust
	}
	models := 0
	for i := range c.Providers {
		models += len(c.Providers[i].Models)
	}
	cust.Models = make([]provider.Model, 0, models)
	for i := range c.Providers {
		p := &c.Providers[i]
		if p.BaseURL != "" || p.Compat != nil {
			cust.Providers[p.Name] = provider.ProviderOverride{BaseURL: p.BaseURL, Compat: p.Compat}
		}
		if len(p.ModelOverrides) > 0 {
			mo := map[string]provider.ModelOverride{}
			for id, o := range p.ModelOverrides {
				mo[id] = o.ModelOverride
			}
			cust.ModelOverrides[p.Name] = mo
		}
		for j := range p.Models {
			if m, ok := resolvedModel(p, &p.Models[j]); ok {
				cust.Models = append(cust.Models, m)
			}
		}
	}
	return cust
}

// LoadRegistry builds the model registry: built-in models with models.json (at modelsPath) applied,
// then extra models (e.g. the --base-url model), upserted by provider and id. A models.json problem is
// returned as err together with a registry of the built-ins and extras only, as pi keeps working
// without the file.
func LoadRegistry(modelsPath string, extra ...provider.Model) (*provider.Registry, *ModelsConfig, error) {
	cfg, err := LoadModelsConfig(modelsPath)
	cust := cfg.Customization()
	cust.Models = append(cust.Models, extra...)
	return provider.NewRegistry(provider.BuiltinModels(), cust), cfg, err
}

// stringEnd returns the offset just past the string literal that starts at b[i] == '"', or -1 when
// it does not close: an escape is a backslash and any character but a newline, every other
// character but '"' and '\' stands for itself (pi's "(?:\\.|[^"\\])*").
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			if j+1 >= len(b) || b[j+1] == '\n' {
				return -1
			}
			j++
		}
	}
	return -1
}

// stripLineComments drops "//" to the end of the line outside strings (in place).
func stripLineComments(b []byte) []byte {
	out := b[:0]
	for i := 0; i < len(b); {
		switch {
		case b[i] == '"':
			if end := stringEnd(b, i); end > 0 {
				out = append(out, b[i:end]...)
				i = end
				continue
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			continue
		}
		out = append(out, b[i])
		i++
	}
	return out
}

// stripTrailingCommas drops a comma followed only by whitespace before } or ], outside strings (in
// place).
func stripTrailingCommas(b []byte) []byte {
	out := b[:0]
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			if end := stringEnd(b, i); end > 0 {
				out = append(out, b[i:end]...)
				i = end
				continue
			}
		case ',':
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r' || b[j] == '\f') {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				i++ // the comma goes; the whitespace and bracket are copied next
				continue
			}
		}
		out = append(out, b[i])
		i++
	}
	return out
}

// describeJSONError turns a decoding error into a message with a line and column.
func describeJSONError(text string, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return syn.Error() + position(text, syn.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "unexpected end of JSON input"
	}
	return err.Error()
}

// position renders a byte offset of text as " (line L, column C)".
func position(text string, offset int64) string {
	if offset > int64(len(text)) {
		offset = int64(len(text))
	}
	line, col := 1, 1
	for _, r := range text[:offset] {
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Sprintf(" (line %d, column %d)", line, col)
}
