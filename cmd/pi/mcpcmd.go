package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/mcp"
	"github.com/pi-go/pi-go/internal/provider"
)

// `pi mcp` adds, removes and checks MCP servers and signs in to them without a session, as pi 1.6
// does (its options, messages and exit codes). Its options are parsed the way pi parses them: an
// option may come before or after the server name, and everything after `--` (or after the
// command of `add`) belongs to the server's command line.

const mcpHelp = `Usage:
  pi mcp add <server> [options] -- <command> [args...]
  pi mcp add <server> [options] --url <url>
  pi mcp remove <server> [-l]
  pi mcp list [--json]
  pi mcp login <server> [-l] [--timeout <seconds>]
  pi mcp logout <server> [-l]

Configure and check MCP servers and sign in to OAuth servers without starting a session.
Reads ~/.pi/agent/mcp.json and, in trusted projects, .pi/mcp.json.

Commands:
  add <server>            Add or replace a server in mcp.json
  remove <server>         Remove a server from mcp.json
  list                    Show state, tools, and errors (exits 1 on failure)
  login <server>          Sign in through the browser
  logout <server>         Delete the stored OAuth credentials

Options for add, remove, login, and logout:
  -l, --local             Use .pi/mcp.json in the current project instead of the global file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send "Authorization: Bearer ${NAME}"
  --oauth-client-id <id>  Pre-registered OAuth client id
  --oauth-client-secret <secret>
                          OAuth client secret (may be ${NAME} or !command)
  --oauth-callback-port <port>
                          Fixed OAuth callback port
  --oauth-client-name <name>
                          Client name sent when registering with the OAuth server
  --oauth-client-registration <mode>
                          auto (default), cimd, or dcr
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers, shown in the system prompt

Other options:
  --json                  Print the list as JSON
  --timeout <seconds>     Time limit for the whole sign-in (default: 300)`

const mcpHelpHint = `Use "pi mcp --help" for usage.`

// mcpListTimeout bounds pi mcp list: every server gets its own timeout, this is the backstop.
const mcpListTimeout = 120 * time.Second

// mcpEnv is what the mcp commands need: the agent directory, the working directory and streams.
type mcpEnv struct {
	agentDir string
	cwd      string
	out, err io.Writer
	// openURL opens the sign-in page (nil: print it only).
	openURL func(string)
}

func (e *mcpEnv) log(format string, args ...any)  { fmt.Fprintf(e.out, format+"\n", args...) }
func (e *mcpEnv) fail(format string, args ...any) { fmt.Fprintf(e.err, format+"\n", args...) }

// newMCPCmd is `pi mcp`; each subcommand parses its own options as pi does.
func newMCPCmd(streams Streams) *cobra.Command {
	code := 0
	root := &cobra.Command{
		Use:                "mcp",
		Short:              "Add, remove, check and sign in to MCP servers",
		DisableFlagParsing: true,
		SilenceUsage:       true,
		SilenceErrors:      true,
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := newMCPEnv(streams)
			if err != nil {
				return err
			}
			code = runMCP(context.Background(), env, args)
			if code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
	return root
}

func newMCPEnv(streams Streams) (*mcpEnv, error) {
	agentDir, err := config.AgentDir(nil)
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return &mcpEnv{agentDir: agentDir, cwd: cwd, out: streams.Out, err: streams.Err}, nil
}

// runMCP runs `pi mcp <args>` and returns the exit code.
func runMCP(ctx context.Context, e *mcpEnv, args []string) int {
	if len(args) == 0 || args[0] == "help" || slices.Contains(args, "--help") || slices.Contains(args, "-h") {
		e.log("%s", mcpHelp)
		return 0
	}
	command, rest := args[0], args[1:]
	projectFile := mcp.ProjectFile(e.cwd)
	switch command {
	case "add":
		return mcpAdd(e, rest, projectFile)
	case "remove":
		return mcpRemove(e, rest, projectFile)
	}
	trusted := false
	if d, err := config.NewTrustStore(e.agentDir).Get(e.cwd); err == nil && d != nil {
		trusted = d.Trusted
	}
	cfg := mcp.Load(e.agentDir, e.cwd, trusted)
	untrustedNote := ""
	if _, err := os.Stat(projectFile); err == nil && !trusted {
		untrustedNote = projectFile + " is ignored because the project is not trusted. Start pi in the project to trust it."
	}
	switch command {
	case "list":
		opts, ok := parseMCPOptions(e, rest, map[string]string{"json": "flag"}, -1)
		if !ok {
			return 1
		}
		if len(opts.positional) > 0 {
			e.fail("Usage: pi mcp list [--json]\n%s", mcpHelpHint)
			return 1
		}
		return mcpList(ctx, e, cfg, opts.has("json"), untrustedNote)
	case "login", "logout":
		known := map[string]string{"local": "flag"}
		if command == "login" {
			known["timeout"] = "value"
		}
		opts, ok := parseMCPOptions(e, rest, known, -1)
		if !ok {
			return 1
		}
		if len(opts.positional) != 1 {
			e.fail("Usage: pi mcp %s <server> [-l]\n%s", command, mcpHelpHint)
			return 1
		}
		return mcpAuth(ctx, e, cfg, command, opts, untrustedNote)
	}
	e.fail("Unknown mcp command %q.\n%s", command, mcpHelpHint)
	return 1
}

// mcpOptions are parsed options: flags and values by name, repeatable ones in lists.
type mcpOptions struct {
	positional []string
	values     map[string]string
	lists      map[string][]string
}

func (o *mcpOptions) has(name string) bool { _, ok := o.values[name]; return ok }

// parseMCPOptions parses --name value options as pi does: `--` ends them, and so does reaching
// maxPositionals positional arguments (-1: no limit), so a server's own options pass through.
func parseMCPOptions(e *mcpEnv, args []string, known map[string]string, maxPositionals int) (*mcpOptions, bool) {
	o := &mcpOptions{values: map[string]string{}, lists: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "-l" {
			arg = "--local"
		}
		if arg == "--" || maxPositionals >= 0 && len(o.positional) >= maxPositionals {
			start := i
			if arg == "--" {
				start = i + 1
			}
			o.positional = append(o.positional, args[start:]...)
			break
		}
		if !strings.HasPrefix(arg, "--") {
			o.positional = append(o.positional, arg)
			continue
		}
		name := arg[2:]
		kind, ok := known[name]
		if !ok {
			e.fail("Unknown option %s.\n%s", args[i], mcpHelpHint)
			return nil, false
		}
		if kind == "flag" {
			o.values[name] = ""
			continue
		}
		if i+1 >= len(args) {
			e.fail("%s needs a value.", arg)
			return nil, false
		}
		i++
		if kind == "list" {
			o.lists[name] = append(o.lists[name], args[i])
		} else {
			o.values[name] = args[i]
		}
	}
	return o, true
}

func parsePairs(e *mcpEnv, option string, pairs []string) (map[string]string, bool) {
	out := map[string]string{}
	for _, p := range pairs {
		i := strings.IndexByte(p, '=')
		if i <= 0 {
			e.fail("--%s expects KEY=VALUE, got %q.", option, p)
			return nil, false
		}
		out[p[:i]] = p[i+1:]
	}
	return out, true
}

// setJS sets key to v written as JSON.stringify writes it (v is a string, number, list or map, which
// always encode).
func setJS(o *jsonx.Object, key string, v any) {
	data, _ := provider.MarshalJS(v)
	o.Set(key, data)
}

func mcpAdd(e *mcpEnv, args []string, projectFile string) int {
	usage := "Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])\n" + mcpHelpHint
	opts, ok := parseMCPOptions(e, args, map[string]string{
		"local": "flag", "url": "value", "env": "list", "cwd": "value", "header": "list",
		"bearer-token-env-var": "value", "oauth-client-id": "value", "oauth-client-secret": "value",
		"oauth-callback-port": "value", "oauth-client-name": "value", "oauth-client-registration": "value",
		"exposure": "value", "description": "value",
	}, 2)
	if !ok {
		return 1
	}
	if len(opts.positional) == 0 {
		e.fail("%s", usage)
		return 1
	}
	name, command := opts.positional[0], opts.positional[1:]
	rawURL, hasURL := opts.values["url"]
	if hasURL == (len(command) > 0) {
		e.fail("%s", usage)
		return 1
	}
	httpOnly := []string{"header", "bearer-token-env-var", "oauth-client-id", "oauth-client-secret", "oauth-callback-port", "oauth-client-name", "oauth-client-registration"}
	stdioOnly := []string{"env", "cwd"}
	misplaced, where := stdioOnly, "stdio servers"
	if !hasURL {
		misplaced, where = httpOnly, "HTTP servers (--url)"
	}
	for _, m := range misplaced {
		if _, ok := opts.values[m]; ok || len(opts.lists[m]) > 0 {
			e.fail("--%s only applies to %s.", m, where)
			return 1
		}
	}
	entry := jsonx.NewObject()
	if hasURL {
		headers, ok := parsePairs(e, "header", opts.lists["header"])
		if !ok {
			return 1
		}
		if v, ok := opts.values["bearer-token-env-var"]; ok {
			headers["Authorization"] = "Bearer ${" + v + "}"
		}
		setJS(entry, "url", rawURL)
		if len(headers) > 0 {
			setJS(entry, "headers", headers)
		}
		oauth := jsonx.NewObject()
		for _, f := range [][2]string{{"oauth-client-id", "clientId"}, {"oauth-client-secret", "clientSecret"}, {"oauth-callback-port", "callbackPort"}, {"oauth-client-name", "clientName"}, {"oauth-client-registration", "clientRegistration"}} {
			if v, ok := opts.values[f[0]]; ok {
				if f[1] == "callbackPort" {
					n, err := strconv.ParseFloat(v, 64)
					if err != nil {
						e.fail("server %q: oauth.callbackPort must be a port number", name)
						return 1
					}
					setJS(oauth, f[1], n)
					continue
				}
				setJS(oauth, f[1], v)
			}
		}
		if oauth.Len() > 0 {
			setJS(entry, "oauth", oauth)
		}
	} else {
		env, ok := parsePairs(e, "env", opts.lists["env"])
		if !ok {
			return 1
		}
		setJS(entry, "command", command[0])
		if len(command) > 1 {
			setJS(entry, "args", command[1:])
		}
		if len(env) > 0 {
			setJS(entry, "env", env)
		}
		if v, ok := opts.values["cwd"]; ok {
			setJS(entry, "cwd", v)
		}
	}
	if v, ok := opts.values["exposure"]; ok {
		setJS(entry, "exposure", v)
	}
	if v, ok := opts.values["description"]; ok {
		setJS(entry, "description", v)
	}
	data, err := entry.MarshalJSON()
	if err != nil {
		e.fail("%v", err)
		return 1
	}
	if err := mcp.ValidateEntry(name, data); err != nil {
		e.fail("%v", err)
		return 1
	}
	project := opts.has("local")
	path, scope := mcp.UserFile(e.agentDir), "global"
	if project {
		path, scope = projectFile, "project"
	}
	replaced, err := mcp.AddServer(path, name, data)
	if err != nil {
		e.fail("Could not update %s: %v", path, err)
		return 1
	}
	verb := "Added"
	if replaced {
		verb = "Replaced"
	}
	e.log("%s %s MCP server %q in %s.", verb, scope, name, path)
	if project {
		if d, err := config.NewTrustStore(e.agentDir).Get(e.cwd); err != nil || d == nil || !d.Trusted {
			e.log("The project is not trusted, so %s is ignored until you start pi in the project and trust it.", path)
		}
	}
	hint := ""
	if _, hasAuth := opts.values["bearer-token-env-var"]; hasURL && !hasAuth && !hasAuthorizationHeader(opts.lists["header"]) {
		hint = ". If it requires sign-in: pi mcp login " + name
	}
	e.log("Check it with: pi mcp list%s", hint)
	return 0
}

func hasAuthorizationHeader(pairs []string) bool {
	for _, p := range pairs {
		if k, _, _ := strings.Cut(p, "="); strings.EqualFold(k, "authorization") {
			return true
		}
	}
	return false
}

func mcpRemove(e *mcpEnv, args []string, projectFile string) int {
	opts, ok := parseMCPOptions(e, args, map[string]string{"local": "flag"}, -1)
	if !ok {
		return 1
	}
	if len(opts.positional) != 1 {
		e.fail("Usage: pi mcp remove <server> [-l]\n%s", mcpHelpHint)
		return 1
	}
	name := opts.positional[0]
	path, scope := mcp.UserFile(e.agentDir), "global"
	if opts.has("local") {
		path, scope = projectFile, "project"
	}
	removed, err := mcp.RemoveServer(path, name)
	if err != nil {
		e.fail("Could not update %s: %v", path, err)
		return 1
	}
	if removed {
		e.log("Removed %s MCP server %q from %s.", scope, name, path)
		return 0
	}
	msg := fmt.Sprintf("No %s MCP server named %q in %s.", scope, name, path)
	if other := mcp.Load(e.agentDir, e.cwd, true).Server(name); other != nil && string(other.Scope) != scope {
		hint := "; omit --local"
		if other.Scope == mcp.ScopeProject {
			hint = "; use --local"
		}
		msg += fmt.Sprintf(" It is defined in %s%s.", other.Source, hint)
	}
	e.fail("%s", msg)
	return 1
}

// mcpReport is one server in `pi mcp list --json`, in pi's shape.
type mcpReport struct {
	Name         string            `json:"name"`
	Scope        string            `json:"scope"`
	Source       string            `json:"source"`
	Override     string            `json:"override,omitempty"`
	Enabled      bool              `json:"enabled"`
	Exposure     mcp.Exposure      `json:"exposure"`
	Transport    string            `json:"transport"`
	AuthProvider string            `json:"authProvider,omitempty"`
	State        mcp.State         `json:"state"`
	Tools        []string          `json:"tools"`
	ToolExposure map[string]string `json:"toolExposure,omitempty"`
	Resources    bool              `json:"resources,omitempty"`
	Error        string            `json:"error,omitempty"`
}

func describeTransport(s mcp.Server) string {
	if s.Config.IsHTTP() {
		return s.Config.URL
	}
	return strings.Join(append([]string{s.Config.Command}, s.Config.Args...), " ")
}

func mcpList(ctx context.Context, e *mcpEnv, cfg *mcp.Config, asJSON bool, untrustedNote string) int {
	m := mcp.NewManager(cfg, mcp.Options{AgentDir: e.agentDir, Cwd: e.cwd, Version: version, ProviderToken: providerTokenIn(e.agentDir)})
	m.Start()
	waitCtx, cancel := context.WithTimeout(ctx, mcpListTimeout)
	m.Wait(waitCtx)
	cancel()
	var reports []mcpReport
	failed := len(cfg.Errors) > 0
	for _, st := range m.Statuses() {
		s := st.Server
		r := mcpReport{Name: s.Name, Scope: string(s.Scope), Source: s.Source, Override: s.Override, Enabled: s.Config.Enabled,
			Exposure: s.Config.ServerExposure(), Transport: describeTransport(s), AuthProvider: s.Config.AuthProvider, State: st.State, Tools: []string{}}
		for _, t := range st.Tools {
			r.Tools = append(r.Tools, t.Name)
			if x := s.Config.ToolExposureOf(t.Name); x != r.Exposure {
				if r.ToolExposure == nil {
					r.ToolExposure = map[string]string{}
				}
				r.ToolExposure[t.Name] = string(x)
			}
		}
		r.Resources = st.HasResources
		if st.State != mcp.StateConnected {
			r.Error = st.Error
		}
		if r.Enabled && r.State != mcp.StateConnected {
			failed = true
		}
		reports = append(reports, r)
	}
	closeCtx, cancelClose := context.WithTimeout(context.Background(), mcpCloseTimeout)
	_ = m.Close(closeCtx)
	cancelClose()
	var errs []string
	for _, err := range cfg.Errors {
		errs = append(errs, err.Error())
	}
	code := 0
	if failed {
		code = 1
	}
	if asJSON {
		out := map[string]any{"servers": reports, "errors": errs}
		if reports == nil {
			out["servers"] = []mcpReport{}
		}
		if errs == nil {
			out["errors"] = []string{}
		}
		if untrustedNote != "" {
			out["note"] = untrustedNote
		}
		data, _ := json.MarshalIndent(out, "", "  ")
		e.log("%s", data)
		return code
	}
	if len(reports) == 0 && len(errs) == 0 {
		e.log("No MCP servers configured. Add them to %s or .pi/mcp.json.", mcp.UserFile(e.agentDir))
	}
	for _, r := range reports {
		state := string(r.State)
		switch r.State {
		case mcp.StateConnected:
			plural := "s"
			if len(r.Tools) == 1 {
				plural = ""
			}
			state = fmt.Sprintf("connected, %d tool%s", len(r.Tools), plural)
		case mcp.StateNeedsAuth:
			state = "needs sign-in"
		}
		e.log("%s: %s (%s, %s)", r.Name, state, r.Exposure, r.Scope)
		e.log("  %s", r.Transport)
		if r.Override != "" {
			e.log("  project override: %s", r.Override)
		}
		if r.State == mcp.StateNeedsAuth && r.AuthProvider != "" {
			e.log("  sign in with: /login %s in pi", r.AuthProvider)
		} else if r.State == mcp.StateNeedsAuth {
			e.log("  sign in with: pi mcp login %s", r.Name)
		}
		if len(r.Tools) > 0 {
			var tools []string
			for _, t := range r.Tools {
				if x, ok := r.ToolExposure[t]; ok {
					t += " [" + x + "]"
				}
				tools = append(tools, t)
			}
			e.log("  tools: %s", strings.Join(tools, ", "))
		}
		if r.Resources {
			e.log("  offers resources")
		}
		if r.Error != "" {
			e.log("  %s", strings.ReplaceAll(r.Error, "\n", "\n  "))
		}
	}
	for _, err := range errs {
		e.log("config error: %s", err)
	}
	if untrustedNote != "" {
		e.log("%s", untrustedNote)
	}
	return code
}

// mcpAuth is pi mcp login and logout.
func mcpAuth(ctx context.Context, e *mcpEnv, cfg *mcp.Config, command string, opts *mcpOptions, untrustedNote string) int {
	name := opts.positional[0]
	s := cfg.Server(name)
	if s == nil {
		var names []string
		for _, srv := range cfg.Servers {
			names = append(names, srv.Name)
		}
		msg := fmt.Sprintf("No MCP server named %q.", name)
		if untrustedNote != "" {
			msg += " " + untrustedNote
		}
		configured := strings.Join(names, ", ")
		if configured == "" {
			configured = "none"
		}
		e.fail("%s Configured: %s.", msg, configured)
		return 1
	}
	if opts.has("local") && s.Scope != mcp.ScopeProject {
		e.fail("MCP server %q is defined in %s, not in the project; omit --local.", name, s.Source)
		return 1
	}
	if s.Config.AuthProvider != "" {
		e.fail("MCP server %q uses the credentials of provider %q. Run \"pi auth %s %s\".", name, s.Config.AuthProvider, command, s.Config.AuthProvider)
		return 1
	}
	if !s.Config.UsesOAuth() {
		e.fail("MCP server %q does not use OAuth. Only HTTP servers without an Authorization header do.", name)
		return 1
	}
	store := mcp.NewCredentialStore(e.agentDir)
	if command == "logout" {
		removed, err := store.Remove(name, s.Config.URL)
		if err != nil {
			e.fail("%v", err)
			return 1
		}
		if removed {
			e.log("Signed out of MCP server %q.", name)
		} else {
			e.log("No stored credentials for MCP server %q.", name)
		}
		return 0
	}
	timeout := 300.0
	if v, ok := opts.values["timeout"]; ok {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || !(t > 0) {
			e.fail("--timeout must be a positive number of seconds.")
			return 1
		}
		timeout = t
	}
	return mcpLogin(ctx, e, *s, store, time.Duration(timeout*float64(time.Second)))
}

// mcpLogin connects first (a server that accepts the stored token needs no sign-in), then signs in
// through the browser and connects with the new token. Tokens are never printed.
func mcpLogin(ctx context.Context, e *mcpEnv, s mcp.Server, store *mcp.CredentialStore, timeout time.Duration) int {
	cfg := &mcp.Config{Servers: []mcp.Server{s}}
	m := mcp.NewManager(cfg, mcp.Options{AgentDir: e.agentDir, Cwd: e.cwd, Version: version, Credentials: store})
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), mcpCloseTimeout)
		defer cancel()
		_ = m.Close(closeCtx)
	}()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	m.Start()
	m.Wait(ctx)
	st, _ := m.Status(s.Name)
	switch st.State {
	case mcp.StateConnected:
		e.log("Already signed in to MCP server %q (%d tools).", s.Name, len(st.Tools))
		return 0
	case mcp.StateNeedsAuth:
	default:
		e.fail("MCP server %q failed to connect: %s", s.Name, st.Error)
		return 1
	}
	err := m.SignIn(ctx, s.Name, func(authURL string) {
		e.log("Sign in to MCP server %q in your browser:\n%s", s.Name, authURL)
		if e.openURL != nil {
			e.openURL(authURL)
		}
	})
	switch {
	case errors.Is(err, mcp.ErrSignInCancelled):
		e.fail("Sign-in to MCP server %q was cancelled or not completed within %d seconds.", s.Name, int(timeout.Seconds()))
		return 1
	case err != nil:
		e.fail("Sign-in to MCP server %q failed: %v", s.Name, err)
		return 1
	}
	st, _ = m.Status(s.Name)
	e.log("Signed in to MCP server %q (%d tools).", s.Name, len(st.Tools))
	return 0
}
