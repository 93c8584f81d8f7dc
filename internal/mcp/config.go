package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// Exposure says how a server's tools reach the model (pi 1.6's docs/mcp.md, "Control tool exposure").
type Exposure string

const (
	// ExposureCodemode is pi's default: callable from codemode scripts. pi-go has no codemode, so
	// these tools are reached through tool_search, like deferred ones.
	ExposureCodemode Exposure = "codemode"
	// ExposureDeferred tools are declared once tool_search loads them.
	ExposureDeferred Exposure = "deferred"
	// ExposureDirect tools are declared to the model like built-in tools.
	ExposureDirect Exposure = "direct"
	// ExposureHidden tools are registered but unreachable.
	ExposureHidden Exposure = "hidden"
)

var exposures = []Exposure{ExposureCodemode, ExposureDeferred, ExposureDirect, ExposureHidden}

// Exposures are the valid exposures, in pi's order.
func Exposures() []Exposure { return slices.Clone(exposures) }

// Searchable reports whether tool_search can load a tool of this exposure.
func (e Exposure) Searchable() bool { return e == ExposureCodemode || e == ExposureDeferred }

// resolveAlias maps pi's older exposure names to their current ones.
func resolveAlias(e string) string {
	if e == "codemode-deferred" {
		return string(ExposureCodemode)
	}
	return e
}

// ToolExposureRule is one toolExposure entry: an exact tool name or a pattern with *.
type ToolExposureRule struct {
	Pattern  string
	Exposure Exposure
}

// OAuthConfig is the oauth field of an HTTP server, as pi 1.6 reads it.
type OAuthConfig struct {
	ClientID              string `json:"clientId,omitempty"`
	ClientSecret          string `json:"clientSecret,omitempty"`
	CallbackPort          int    `json:"callbackPort,omitempty"`
	CallbackURL           string `json:"callbackUrl,omitempty"`
	Scope                 string `json:"scope,omitempty"`
	ClientName            string `json:"clientName,omitempty"`
	ClientRegistration    string `json:"clientRegistration,omitempty"`
	AuthServerMetadataURL string `json:"authServerMetadataUrl,omitempty"`
}

// ServerConfig is one validated mcpServers entry. Values are as written: ${VAR} and !command are
// resolved when the server is started, so a missing variable fails that server only.
type ServerConfig struct {
	// Command is set for stdio servers, URL for streamable HTTP ones.
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string

	URL     string
	Headers map[string]string
	OAuth   *OAuthConfig
	// AuthProvider is auth.provider: the server gets the token of a /login provider.
	AuthProvider string

	// Timeout is the per-request timeout in seconds; 0 means the default (60).
	Timeout      float64
	Enabled      bool
	Exposure     Exposure // "" means the default (codemode)
	ToolExposure []ToolExposureRule
	Description  string
}

// IsHTTP reports whether the server speaks streamable HTTP (else stdio).
func (c *ServerConfig) IsHTTP() bool { return c.URL != "" }

// ServerExposure is the server's exposure with the default applied.
func (c *ServerConfig) ServerExposure() Exposure {
	if c.Exposure == "" {
		return ExposureCodemode
	}
	return c.Exposure
}

// ToolExposure is one tool's exposure: its exact toolExposure entry, else the first pattern that
// matches, else the server's exposure (pi's getMcpToolExposure).
func (c *ServerConfig) ToolExposureOf(tool string) Exposure {
	for _, r := range c.ToolExposure {
		if r.Pattern == tool {
			return r.Exposure
		}
	}
	for _, r := range c.ToolExposure {
		if strings.Contains(r.Pattern, "*") && matchPattern(r.Pattern, tool) {
			return r.Exposure
		}
	}
	return c.ServerExposure()
}

// UsesOAuth reports whether the server signs in with OAuth: an HTTP server without an Authorization
// header and without auth.provider.
func (c *ServerConfig) UsesOAuth() bool {
	if !c.IsHTTP() || c.AuthProvider != "" {
		return false
	}
	for k := range c.Headers {
		if strings.EqualFold(k, "authorization") {
			return false
		}
	}
	return true
}

// Scope says which file defines a server.
type Scope string

const (
	ScopeGlobal  Scope = "global"
	ScopeProject Scope = "project"
)

// Server is a configured server: its name, config and where it came from.
type Server struct {
	Name   string
	Config ServerConfig
	Source string // the mcp.json that defines it
	Scope  Scope
	// Override is the project mcp.json that overrides enabled/exposure/toolExposure, if any.
	Override string
	// raw is the merged entry, kept so a project override can be applied on top of it.
	raw *jsonx.Object
}

// Config is what the mcp.json files configure.
type Config struct {
	Servers []Server
	// AutoEnableCodemode is the top-level autoEnableCodemode, nil when neither file sets it.
	AutoEnableCodemode *bool
	// Errors are invalid files and entries, each naming its file; they never stop other servers.
	Errors []error
	// ProjectFile is the project's mcp.json when the project is trusted.
	ProjectFile string
}

// Server returns the server with this name, or nil.
func (c *Config) Server(name string) *Server {
	for i := range c.Servers {
		if c.Servers[i].Name == name {
			return &c.Servers[i]
		}
	}
	return nil
}

// UserFile is the user-level mcp.json of an agent directory.
func UserFile(agentDir string) string { return filepath.Join(agentDir, "mcp.json") }

// ProjectFile is the project-level mcp.json of a working directory.
func ProjectFile(cwd string) string { return filepath.Join(cwd, ".pi", "mcp.json") }

// Load reads the user mcp.json and, when the project is trusted, the project's, as pi 1.6 does
// (loadMcpConfig): project entries replace user entries of the same name; a project entry without
// command, url or type only overrides enabled, exposure and toolExposure of the user's entry.
// Disabled servers are included, so they can be enabled again.
func Load(agentDir, cwd string, projectTrusted bool) *Config {
	c := &Config{}
	c.readFile(UserFile(agentDir), ScopeGlobal)
	if projectTrusted {
		c.ProjectFile = ProjectFile(cwd)
		c.readFile(c.ProjectFile, ScopeProject)
	}
	return c
}

func (c *Config) errorf(format string, args ...any) {
	c.Errors = append(c.Errors, fmt.Errorf(format, args...))
}

var overrideKeys = []string{"enabled", "exposure", "toolExposure"}

func (c *Config) readFile(path string, scope Scope) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		c.errorf("%s: %w", path, err)
		return
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	top, err := jsonx.ParseObject(data)
	if err != nil {
		c.errorf("%s: %w", path, err)
		return
	}
	serversRaw, hasServers := top.Get("mcpServers")
	if hasServers && !jsonx.IsObject(serversRaw) {
		c.errorf(`%s: expected an object with an "mcpServers" object`, path)
		return
	}
	if raw, ok := top.Get("autoEnableCodemode"); ok {
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			c.errorf("%s: autoEnableCodemode must be a boolean", path)
		} else {
			c.AutoEnableCodemode = &b
		}
	}
	if !hasServers {
		return
	}
	servers, err := jsonx.ParseObject(serversRaw)
	if err != nil {
		c.errorf("%s: mcpServers: %w", path, err)
		return
	}
	for name, raw := range servers.All() {
		c.readEntry(path, scope, name, raw)
	}
}

func (c *Config) readEntry(path string, scope Scope, name string, raw json.RawMessage) {
	var entry *jsonx.Object
	if jsonx.IsObject(raw) {
		var err error
		if entry, err = jsonx.ParseObject(raw); err != nil {
			c.errorf("%s: server %q: %w", path, name, err)
			return
		}
	}
	if scope == ScopeProject && entry != nil && isOverride(entry) {
		base := c.Server(name)
		if base == nil {
			c.errorf(`%s: server %q needs "command" or "url", or a global server to override`, path, name)
			return
		}
		for k := range entry.All() {
			if !slices.Contains(overrideKeys, k) {
				c.errorf("%s: server %q: an override can only set %s", path, name, strings.Join(overrideKeys, ", "))
				return
			}
		}
		merged := base.raw.Clone()
		for k, v := range entry.All() {
			merged.Set(k, v)
		}
		cfg, err := validateServer(name, merged)
		if err != nil {
			c.errorf("%s: %w", path, err)
			return
		}
		base.Config, base.raw, base.Override = *cfg, merged, path
		return
	}
	cfg, err := validateServer(name, entry)
	if err != nil {
		c.errorf("%s: %w", path, err)
		return
	}
	// Names that differ only in - and _ would share a namespace.
	for _, other := range c.Servers {
		if other.Name != name && namespace(other.Name) == namespace(name) {
			c.errorf("%s: server %q conflicts with %q", path, name, other.Name)
			return
		}
	}
	if scope == ScopeProject && cfg.AuthProvider != "" {
		c.errorf("%s: server %q: auth is only allowed in the global mcp.json", path, name)
		return
	}
	s := Server{Name: name, Config: *cfg, Source: path, Scope: scope, raw: entry}
	if existing := c.Server(name); existing != nil {
		*existing = s
		return
	}
	c.Servers = append(c.Servers, s)
}

// isOverride reports whether an entry overrides a server defined elsewhere: it has no command, url
// or type.
func isOverride(entry *jsonx.Object) bool {
	return !entry.Has("command") && !entry.Has("url") && !entry.Has("type")
}

var errNoTransport = errors.New(`needs either "command" (stdio) or "url" (streamable HTTP)`)

var serverNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// validateServer checks one entry with pi 1.6's rules and messages (validateMcpServerConfig of
// pi-mcp and of the coding agent). entry is nil when the value is not an object.
func validateServer(name string, entry *jsonx.Object) (*ServerConfig, error) {
	if !serverNameRE.MatchString(name) {
		return nil, fmt.Errorf(`invalid server name %q (use letters, digits, "_" and "-")`, name)
	}
	if entry == nil {
		return nil, fmt.Errorf("server %q must be an object", name)
	}
	cfg, err := decodeServer(entry)
	if errors.Is(err, errNoTransport) {
		return nil, fmt.Errorf(`server %q %w`, name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", name, err)
	}
	return cfg, nil
}

// field decodes entry[key] into dst when present, with msg as the error.
func field(entry *jsonx.Object, key string, dst any, msg string) (bool, error) {
	raw, ok := entry.Get(key)
	if !ok {
		return false, nil
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, dst) != nil {
		return true, errors.New(msg)
	}
	return true, nil
}

func decodeServer(entry *jsonx.Object) (*ServerConfig, error) {
	cfg := &ServerConfig{Enabled: true}
	if _, err := field(entry, "enabled", &cfg.Enabled, "enabled must be a boolean"); err != nil {
		return nil, err
	}
	if _, err := field(entry, "description", &cfg.Description, "description must be a string"); err != nil {
		return nil, err
	}
	if ok, err := field(entry, "timeout", &cfg.Timeout, "timeout must be a positive number of seconds"); err != nil || ok && !(cfg.Timeout > 0) {
		return nil, errors.New("timeout must be a positive number of seconds")
	}
	var typ, command, rawURL string
	hasType, _ := field(entry, "type", &typ, "")
	_, urlErr := field(entry, "url", &rawURL, "")
	_, cmdErr := field(entry, "command", &command, "")
	if typ == "sse" {
		return nil, errors.New("legacy SSE transport is not supported; use the streamable HTTP URL")
	}
	switch {
	case entry.Has("url") && urlErr == nil && (!hasType || typ == "http" || typ == "streamable-http"):
		cfg.URL = rawURL
		if err := decodeHTTP(entry, cfg); err != nil {
			return nil, err
		}
	case entry.Has("command") && cmdErr == nil && (!hasType || typ == "stdio"):
		cfg.Command = command
		if err := decodeStdio(entry, cfg); err != nil {
			return nil, err
		}
	default:
		return nil, errNoTransport
	}
	if err := decodeExposure(entry, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

func decodeStdio(entry *jsonx.Object, cfg *ServerConfig) error {
	if _, err := field(entry, "args", &cfg.Args, "args must be an array of strings"); err != nil {
		return err
	}
	if _, err := field(entry, "env", &cfg.Env, "env must map names to strings"); err != nil {
		return err
	}
	_, err := field(entry, "cwd", &cfg.Cwd, "cwd must be a string")
	return err
}

var loopbackHosts = []string{"localhost", "127.0.0.1", "[::1]", "::1"}

func isLoopback(u *url.URL) bool { return slices.Contains(loopbackHosts, u.Hostname()) }

func decodeHTTP(entry *jsonx.Object, cfg *ServerConfig) error {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("url must be an http or https URL")
	}
	if _, err := field(entry, "headers", &cfg.Headers, "headers must map names to strings"); err != nil {
		return err
	}
	if raw, ok := entry.Get("oauth"); ok {
		if !jsonx.IsObject(raw) {
			return errors.New("oauth must be an object")
		}
		o, err := decodeOAuth(raw)
		if err != nil {
			return err
		}
		cfg.OAuth = o
	}
	if raw, ok := entry.Get("auth"); ok {
		var a struct {
			Provider string `json:"provider"`
		}
		if json.Unmarshal(raw, &a) != nil || a.Provider == "" {
			return errors.New("auth.provider must be a provider name")
		}
		if u.Scheme != "https" && !isLoopback(u) {
			return errors.New("auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]")
		}
		cfg.AuthProvider = a.Provider
	}
	return nil
}

func decodeOAuth(raw json.RawMessage) (*OAuthConfig, error) {
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	o := &OAuthConfig{}
	for _, f := range []struct {
		key string
		dst *string
	}{{"clientId", &o.ClientID}, {"clientSecret", &o.ClientSecret}, {"callbackUrl", &o.CallbackURL}, {"scope", &o.Scope}, {"clientName", &o.ClientName}, {"clientRegistration", &o.ClientRegistration}, {"authServerMetadataUrl", &o.AuthServerMetadataURL}} {
		if _, err := field(obj, f.key, f.dst, "oauth."+f.key+" must be a string"); err != nil {
			return nil, err
		}
	}
	var port float64
	if ok, err := field(obj, "callbackPort", &port, "oauth.callbackPort must be a port number"); err != nil || ok && (port != float64(int(port)) || port < 1 || port > 65535) {
		return nil, errors.New("oauth.callbackPort must be a port number")
	}
	o.CallbackPort = int(port)
	if o.CallbackURL != "" {
		u, err := url.Parse(o.CallbackURL)
		if err != nil || u.Scheme != "http" || !isLoopback(u) || u.RawQuery != "" || u.Fragment != "" {
			return nil, errors.New("oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment")
		}
		if p := u.Port(); p != "" && o.CallbackPort != 0 && p != fmt.Sprint(o.CallbackPort) {
			return nil, errors.New("oauth.callbackUrl and oauth.callbackPort name different ports")
		}
	}
	if obj.Has("clientName") && strings.TrimSpace(o.ClientName) == "" {
		return nil, errors.New("oauth.clientName must be a non-empty string")
	}
	switch o.ClientRegistration {
	case "", "auto", "dcr":
	case "cimd":
		if o.ClientID != "" || o.ClientName != "" {
			return nil, errors.New(`oauth.clientRegistration "cimd" cannot be combined with oauth.clientId or oauth.clientName`)
		}
		if o.CallbackURL != "" {
			u, _ := url.Parse(o.CallbackURL)
			if u.Hostname() == "::1" || u.Path != "/callback" {
				return nil, errors.New(`oauth.clientRegistration "cimd" requires oauth.callbackUrl on localhost or 127.0.0.1 with path /callback`)
			}
		}
	default:
		return nil, errors.New(`oauth.clientRegistration must be "auto", "dcr", or "cimd"`)
	}
	if o.AuthServerMetadataURL != "" {
		u, err := url.Parse(o.AuthServerMetadataURL)
		if err != nil || !(u.Scheme == "https" || u.Scheme == "http" && isLoopback(u)) {
			return nil, errors.New("oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]")
		}
	}
	return o, nil
}

func exposureList() string {
	quoted := make([]string, len(exposures))
	for i, e := range exposures {
		quoted[i] = `"` + string(e) + `"`
	}
	return strings.Join(quoted, ", ")
}

func decodeExposure(entry *jsonx.Object, cfg *ServerConfig) error {
	if raw, ok := entry.Get("exposure"); ok {
		var s string
		if json.Unmarshal(raw, &s) != nil || !slices.Contains(exposures, Exposure(resolveAlias(s))) {
			return fmt.Errorf("exposure must be one of %s", exposureList())
		}
		cfg.Exposure = Exposure(resolveAlias(s))
	}
	raw, ok := entry.Get("toolExposure")
	if !ok {
		return nil
	}
	if !jsonx.IsObject(raw) {
		return errors.New("toolExposure must map tool names to exposures")
	}
	rules, err := jsonx.ParseObject(raw)
	if err != nil {
		return fmt.Errorf("toolExposure: %w", err)
	}
	for tool, raw := range rules.All() {
		var s string
		if json.Unmarshal(raw, &s) != nil || !slices.Contains(exposures, Exposure(resolveAlias(s))) {
			return fmt.Errorf("toolExposure %q must be one of %s", tool, exposureList())
		}
		cfg.ToolExposure = append(cfg.ToolExposure, ToolExposureRule{Pattern: tool, Exposure: Exposure(resolveAlias(s))})
	}
	return nil
}

// matchPattern reports whether name matches pattern as a whole, * matching any characters.
func matchPattern(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	last := len(parts) - 1
	for _, p := range parts[1:last] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return strings.HasSuffix(name, parts[last])
}

// ValidateEntry checks one server entry (a JSON object) as Load would, for pi mcp add.
func ValidateEntry(name string, entry json.RawMessage) error {
	var obj *jsonx.Object
	if jsonx.IsObject(entry) {
		var err error
		if obj, err = jsonx.ParseObject(entry); err != nil {
			return fmt.Errorf("server %q: %w", name, err)
		}
	}
	_, err := validateServer(name, obj)
	return err
}
