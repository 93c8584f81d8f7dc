package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/mcp"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/anthropic"
	"github.com/pi-go/pi-go/internal/provider/demo"
	"github.com/pi-go/pi-go/internal/provider/google"
	"github.com/pi-go/pi-go/internal/provider/openai"
	"github.com/pi-go/pi-go/internal/provider/responses"
	"github.com/pi-go/pi-go/internal/resources"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tools/shell"
	"github.com/pi-go/pi-go/internal/tui"
)

// app is everything run needs once the command line is parsed.
type app struct {
	opts     *Options
	io       Streams
	cwd      string
	paths    config.AgentPaths
	settings *config.SettingsManager
	registry *provider.Registry
	auth     *config.Auth
	endpoint *config.Endpoint
	warnings []string
	// sink receives the session's warnings while the TUI runs (nil in the other modes: stderr).
	sink *tui.WarningSink
	// outputs holds the full-output files of long commands; removed when run returns.
	outputs *shell.OutputDir
	// projectTrusted: the project's .pi settings and resources count (pi 1.6's project trust).
	projectTrusted bool
	// sessDir is the session directory, looked up before project trust is resolved (as pi does).
	sessDir string
	// mcp connects the MCP servers of mcp.json; mcpTools are their tools (nil: no MCP).
	mcp       *mcp.Manager
	mcpTools  *mcp.Toolset
	mcpDetach func()
	// ext is the extension host (nil: no extensions).
	ext *extensionHost
	// cliExt caches the -e extensions as resolved (nil: not yet).
	cliExt *[]string
	// router streams every request; extensions add providers to it (extprovider.go).
	router *provider.Router
}

func (a *app) warn(format string, args ...any) {
	a.warnings = append(a.warnings, fmt.Sprintf(format, args...))
}

// flushWarnings prints the startup warnings to stderr (the TUI shows them itself).
func (a *app) flushWarnings() {
	for _, w := range a.warnings {
		fmt.Fprintln(a.io.Err, "Warning: "+w)
	}
	a.warnings = nil
}

// run is the whole program after flag parsing.
func run(ctx context.Context, opts *Options, streams Streams) (err error) {
	a := &app{opts: opts, io: streams}
	// Warnings gathered before a failure are printed before its message, as pi prints its
	// diagnostics first (the modes print or show them themselves otherwise).
	defer func() {
		if err != nil {
			a.flushWarnings()
		}
	}()
	if a.cwd, err = os.Getwd(); err != nil {
		return fmt.Errorf("current directory: %w", err)
	}
	if a.paths, err = config.NewAgentPaths(os.Getenv); err != nil {
		return err
	}
	for _, w := range opts.Warnings {
		a.warn("%s", w)
	}
	a.settings = config.LoadSettings(a.paths.Dir, a.cwd)
	for _, e := range a.settings.Errors() {
		a.warn("%v", e)
	}
	for _, w := range a.settings.TimeoutWarnings() {
		a.warn("%s", w)
	}
	// Before any request: Go's HTTP client reads the proxy variables once.
	for name, value := range config.ProxyEnv(a.settings.Settings().HTTPProxy, os.LookupEnv) {
		if err := os.Setenv(name, value); err != nil {
			return fmt.Errorf("httpProxy: %w", err)
		}
	}
	// ...and a dependency's init already read them (see provider.ProxyFromEnvironment).
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t.Proxy = provider.ProxyFromEnvironment
	}
	if opts.Export != "" {
		return a.exportFile(ctx)
	}
	if err := a.loadModelsUnlessInterrupted(ctx); err != nil {
		return err
	}
	if opts.ListModels != nil {
		if a.endpoint != nil {
			return a.listServerModels(ctx, *opts.ListModels)
		}
		a.loadExtensionModels(ctx)
		return a.listModels(*opts.ListModels)
	}

	interactive := opts.interactive(streams.stdinIsTTY())
	var stdinText string
	if opts.Mode != "rpc" && !streams.stdinIsTTY() && streams.In != nil {
		data, err := io.ReadAll(streams.In)
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
		stdinText = strings.TrimSpace(string(data))
		if stdinText != "" && interactive {
			interactive = false
		}
	}
	if opts.Resume && !interactive {
		return &exitError{code: 1, msg: "--resume needs the interactive session picker; in print, JSON and RPC modes use --session <path|id> or --continue"}
	}

	initial, images, err := a.initialMessage(stdinText)
	if err != nil {
		return err
	}

	if interactive {
		a.sink = tui.NewWarningSink()
	}
	store, err := a.openSession(interactive)
	if err != nil {
		return err
	}
	if opts.NameSet {
		if _, err := store.AppendSessionInfo(opts.Name); err != nil {
			store.Close()
			return err
		}
	}
	if err := a.resolveProjectTrust(ctx, interactive, store); err != nil {
		a.ext.close()
		store.Close()
		return err
	}
	// Made before the model selection, which starts it early only for a model an extension provides.
	a.ext = a.newExtensionHost(store)
	sel, err := a.selectModel(ctx, store, interactive)
	if err != nil {
		a.ext.close()
		store.Close()
		return err
	}
	// Removed after the session is closed (defers run last first), on every way out of run: the
	// end of the prompts, /quit, and SIGINT, SIGTERM or SIGHUP, which cancel ctx.
	a.outputs = shell.NewOutputDir("")
	defer a.outputs.Close()
	sess, err := a.newSession(store, sel)
	if err != nil {
		a.ext.close()
		store.Close()
		return err
	}
	defer sess.Close()
	defer a.closeMCP()
	if a.mcp != nil && !interactive {
		a.mcp.Start()
	}
	defer a.ext.close()

	// Start-up is over: what it alone needed of the binary leaves the resident set.
	releaseExecutablePages()
	switch {
	case opts.Rewind != "":
		return a.runRewind(ctx, sess)
	case opts.Mode == "rpc":
		a.waitForExtensionModels(ctx) // pi serves once its extensions have registered (their models listed)
		a.flushWarnings()
		sess.Resources() // their problems are reported before the first command
		return a.runRPC(ctx, sess)
	case interactive:
		// The TUI reads the resources after its first frame.
		return a.runInteractive(ctx, sess, sel, initial, images)
	default:
		a.flushWarnings()
		sess.Resources()
		return a.runPrint(ctx, sess, initial, images)
	}
}

// loadModelsUnlessInterrupted runs loadModels, but a SIGINT/SIGTERM meanwhile ends pi at once (a
// models.json on a hung network mount, or a named pipe, would otherwise hold it): the load is left to
// finish on its own while the process exits.
func (a *app) loadModelsUnlessInterrupted(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- a.loadModels() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return &exitError{code: max(signalExitCode(ctx), 1)}
	}
}

// loadModels reads models.json and auth.json and adds the --base-url endpoint's model.
func (a *app) loadModels() error {
	var extra []provider.Model
	ep, ok, err := config.ResolveEndpoint(a.opts.BaseURL, os.Getenv)
	if err != nil {
		return &exitError{code: 1, msg: "Error: " + err.Error()}
	}
	if ok {
		a.endpoint = &ep
		if a.opts.Model == "" && a.opts.ListModels != nil {
			// --list-models asks the server itself (listServerModels).
		} else if a.opts.Model == "" {
			return &exitError{code: 1, msg: "Error: --base-url needs --model <id> (the model name the server knows, e.g. qwen2.5-coder)"}
		}
		if a.opts.Model != "" {
			id, level, hasLevel := cutThinkingSuffix(a.opts.Model)
			m, err := ep.Model(id)
			if err != nil {
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			if !hasLevel {
				level = provider.ThinkingLevel(a.opts.Thinking)
			}
			if ep.Provider == config.CustomProvider && level != "" && level != provider.ThinkingOff {
				// The user asked this server to think: send reasoning_effort, which a custom model
				// (no reasoning by default) would otherwise leave out.
				m.Reasoning = true
				m.Compat = m.Compat.Merge(&provider.Compat{SupportsReasoningEffort: provider.Ptr(true), SupportsXHigh: provider.Ptr(true)})
			}
			extra = append(extra, m)
		}
	}
	registry, models, err := config.LoadRegistry(a.paths.Models(), extra...)
	if err != nil {
		a.warn("models.json error: %v", err)
	}
	a.registry = registry
	authFile, err := config.LoadAuthFile(a.paths.Auth())
	if err != nil {
		a.warn("%v", err)
	}
	if models != nil {
		for _, w := range models.Warnings {
			a.warn("%s", w)
		}
	}
	for _, w := range authFile.Warnings {
		a.warn("%s", w)
	}
	for _, w := range config.BareEnvNameWarnings(models, authFile, os.Getenv) {
		a.warn("%s", w)
	}
	a.auth = config.NewAuth(config.AuthOptions{File: authFile, Models: models, Store: config.NewAuthStore(a.paths.Auth())})
	if a.endpoint != nil {
		a.auth.AddEndpoint(*a.endpoint)
	}
	return nil
}

// hasAuth reports whether a provider can be used: it has credentials, or it is the demo model.
func (a *app) hasAuth(p string) bool {
	return p == demo.ProviderName || a.auth.HasAuth(p) || a.registry.VirtualOnly(p)
}

// resolveProjectTrust decides whether the project's .pi settings and resources count (pi 1.6):
// --approve/--no-approve, else the user's and the command line's extensions (project_trust, when
// the project has resources that need a decision; trust_ext.go), else the nearest decision in
// trust.json, else trusted when the project has nothing that needs a decision, else
// defaultProjectTrust, whose "ask" asks in the interactive mode (before the session starts) and
// means "not trusted" in the others. The session directory was looked up with the project's
// settings before, as pi does.
func (a *app) resolveProjectTrust(ctx context.Context, interactive bool, sess *session.Manager) error {
	home, _ := os.UserHomeDir()
	if h := os.Getenv("HOME"); h != "" {
		home = h
	}
	q := config.TrustQuery{
		Override:     a.opts.Approve,
		HasResources: config.HasTrustRequiringProjectResources(a.cwd, home),
		Default:      a.settings.Settings().DefaultProjectTrust(),
	}
	store := config.NewTrustStore(a.paths.Dir)
	if q.Override == nil {
		saved, err := store.Get(a.cwd)
		if err != nil {
			a.warn("%v", err)
		}
		q.Saved = saved
	}
	trusted, ask := q.Resolve()
	if q.Override == nil && q.HasResources {
		v, decided := a.askTrustExtensions(ctx, sess)
		if code := signalExitCode(ctx); code != 0 {
			return &exitError{code: code}
		}
		if decided {
			trusted, ask = v.Trusted, false
			if v.Remember {
				a.rememberTrust(store, trusted)
			}
		}
	}
	if ask && interactive {
		options := config.TrustOptions(a.cwd, true)
		labels := make([]string, len(options))
		for i, o := range options {
			labels[i] = o.Label
		}
		choice, err := tui.StartupSelect(ctx, a.io.In, a.io.Out, a.settings.Settings().Theme, config.TrustPrompt(a.cwd), labels)
		if err != nil {
			return err
		}
		if code := signalExitCode(ctx); code != 0 {
			return &exitError{code: code}
		}
		if choice >= 0 {
			trusted = options[choice].Trusted
			if err := store.SetMany(options[choice].Updates); err != nil {
				a.warn("Could not save the trust decision: %v", err)
			}
		}
	}
	a.projectTrusted = trusted
	a.settings.SetProjectTrusted(trusted)
	if !trusted && q.HasResources && interactive {
		a.warn("%s", tui.UntrustedProjectWarning())
	}
	return nil
}

// sessionDir is where this project's sessions live.
func (a *app) sessionDir() string {
	if d := config.SessionDirOverride(a.opts.SessionDir, os.Getenv); d != "" {
		return d
	}
	if d := a.settings.Settings().SessionDir; d != "" {
		if home, err := os.UserHomeDir(); err == nil {
			d = config.ExpandTilde(d, home)
		}
		return d
	}
	return a.paths.SessionDirFor(a.cwd)
}

// openSession picks the session file as pi does (§5.6).
func (a *app) openSession(interactive bool) (*session.Manager, error) {
	o := a.opts
	dir := a.sessionDir()
	a.sessDir = dir
	switch {
	case o.NoSession && o.SessionID != "":
		return session.InMemoryWithID(a.cwd, o.SessionID), nil
	case o.NoSession:
		return session.InMemory(a.cwd), nil
	case o.Fork != "":
		if o.SessionID != "" && a.findSessionByID(dir, o.SessionID) != "" {
			return nil, &exitError{code: 1, msg: fmt.Sprintf("Session already exists with id '%s'", o.SessionID)}
		}
		path, err := a.resolveSessionArg(o.Fork, dir)
		if err != nil {
			return nil, err
		}
		m, err := session.ForkFromWithID(path, a.cwd, dir, o.SessionID)
		if err != nil {
			return nil, &exitError{code: 1, msg: "Error: " + err.Error()}
		}
		return m, nil
	case o.Session != "":
		res, err := session.ResolveSession(o.Session, dir, a.paths.Sessions())
		if err != nil {
			return nil, err
		}
		switch res.Kind {
		case session.ResolvedNotFound:
			return nil, &exitError{code: 1, msg: fmt.Sprintf("No session found matching '%s'", o.Session)}
		case session.ResolvedGlobal:
			if !interactive {
				return nil, &exitError{code: 1, msg: fmt.Sprintf("Session found in different project: %s\nUse --fork %s to copy it into this project.", res.Cwd, o.Session)}
			}
			fmt.Fprintf(a.io.Out, "Session found in different project: %s\n", res.Cwd)
			if !confirm(a.io, "Fork this session into current directory?") {
				return nil, &exitError{code: 0, msg: "Aborted."}
			}
			m, err := session.ForkFrom(res.Path, a.cwd, dir)
			if err != nil {
				return nil, &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			return m, nil
		}
		return a.openFile(res.Path, dir)
	case o.Continue:
		m, err := session.ContinueRecent(a.cwd, dir)
		if err != nil {
			return nil, sessionOpenError(err)
		}
		return m, nil
	case o.SessionID != "":
		if path := a.findSessionByID(dir, o.SessionID); path != "" {
			return a.openFile(path, dir)
		}
		a.warn("No project session found with id '%s'; creating a new session with that id.", o.SessionID)
		return session.CreateWithID(a.cwd, dir, o.SessionID)
	}
	return session.Create(a.cwd, dir), nil
}

// findSessionByID is the session file of this project with exactly id (pi 1.6's findById): in a
// session directory other than the project's own, only a session of this directory counts.
func (a *app) findSessionByID(dir, id string) string {
	path := session.FindByID(dir, id)
	if path == "" || filepath.Clean(dir) == filepath.Clean(a.paths.SessionDirFor(a.cwd)) {
		return path
	}
	if info, ok := session.Describe(path); ok && info.Cwd == a.cwd {
		return path
	}
	return ""
}

func (a *app) openFile(path, dir string) (*session.Manager, error) {
	m, err := session.Open(path, session.OpenOptions{SessionDir: dir, Cwd: a.cwd})
	if err != nil {
		return nil, sessionOpenError(err)
	}
	return m, nil // its warnings are the harness's to report (sessionWarning), as for -c
}

func sessionOpenError(err error) error {
	var le *session.LockError
	if errors.As(err, &le) {
		return &exitError{code: 1, msg: "Error: " + err.Error()}
	}
	return err
}

func (a *app) resolveSessionArg(arg, dir string) (string, error) {
	res, err := session.ResolveSession(arg, dir, a.paths.Sessions())
	if err != nil {
		return "", err
	}
	if res.Kind == session.ResolvedNotFound {
		return "", &exitError{code: 1, msg: fmt.Sprintf("No session found matching '%s'", arg)}
	}
	return res.Path, nil
}

// confirm asks a yes/no question on the terminal.
func confirm(s Streams, question string) bool {
	fmt.Fprintf(s.Out, "%s [y/N] ", question)
	var answer string
	if _, err := fmt.Fscanln(s.In, &answer); err != nil {
		return false
	}
	answer = strings.ToLower(strings.TrimSpace(answer))
	return answer == "y" || answer == "yes"
}

// cacheRetention is pi's PI_CACHE_RETENTION ("long" asks for one-hour prompt caching).
func cacheRetention() anthropic.CacheRetention {
	if os.Getenv("PI_CACHE_RETENTION") == "long" {
		return anthropic.CacheLong
	}
	return anthropic.CacheShort
}

// newRouter registers the provider package of every API pi-go speaks, and the demo transport for the
// demo model (it answers like an OpenAI endpoint without a network).
func newRouter() *provider.Router {
	r := provider.NewRouter()
	// No provider-level retries: pi's SDK retries twice out of sight, but then one rate limit becomes
	// up to twelve requests under the harness's own (visible, abortable) retries. The harness retries.
	r.HandleAPI(provider.APIOpenAICompletions, openai.New(openai.Config{}))
	r.HandleAPI(provider.APIAnthropicMessages, anthropic.New(anthropic.Config{CacheRetention: cacheRetention()}))
	r.HandleAPI(provider.APIOpenAIResponses, responses.New(responses.Config{}))
	r.HandleAPI(provider.APIGoogleGenerativeAI, google.New(google.Config{}))
	r.HandleProvider(demo.ProviderName, openai.New(openai.Config{HTTPClient: demo.HTTPClient(demo.Options{})}))
	return r
}

// newSession builds the harness session: tools, system prompt, model.
func (a *app) newSession(store *session.Manager, sel modelSelection) (*harness.Session, error) {
	settings := a.settings.Settings()
	defaults, _ := settings.DefaultTools()
	toolSel := harness.ToolSelection{
		Defaults: defaults,
		NoTools:  a.opts.NoTools || a.opts.NoBuiltinTools,
		Tools:    a.opts.Tools,
		ToolsSet: a.opts.ToolsSet,
		Exclude:  a.opts.ExcludeTools,
	}
	toolNames, selWarnings := harness.SelectToolNames(toolSel)
	for _, w := range selWarnings {
		a.warn("%s", w)
	}
	var sess *harness.Session
	imagesUnsupportedBy := func() string {
		if sess == nil || sess.Model() == nil || sess.Model().SupportsImages() {
			return ""
		}
		return sess.Model().ID
	}
	// Every built-in tool is built (cheap; edit and write share one mutation queue), so a resumed
	// session can take the tools its transcript declared; toolNames are the active ones.
	available, toolWarnings := harness.BuildTools(harness.BuiltinToolNames, harness.ToolOptions{
		Cwd:                 store.Cwd(),
		ShellPath:           settings.ShellPath,
		ShellCommandPrefix:  settings.ShellCommandPrefix,
		BinDir:              a.paths.Bin(),
		DisableImageResize:  !settings.AutoResizeImages(),
		OutputDir:           a.outputs,
		ImagesUnsupportedBy: imagesUnsupportedBy,
		SessionEnv: func() []string {
			if sess == nil {
				return nil
			}
			return sess.SessionEnv()
		},
	})
	for _, w := range toolWarnings {
		a.warn("%s", w)
	}
	tools := harness.PickTools(available, toolNames)
	mcpStatic := a.startMCP(store.Cwd(), a.ext != nil)
	tools = append(tools, mcpStatic...)
	available = append(available, mcpStatic...)
	loadout := toolSel.Loadout(available)
	loadout.Extra = a.mcpAvailable
	prompt, err := a.systemPromptOptions(store.Cwd(), a.warn)
	if err != nil {
		return nil, err
	}
	hopts := harness.Options{
		Cwd:               store.Cwd(),
		AgentDir:          a.paths.Dir,
		Settings:          a.settings,
		Store:             store,
		Stream:            a.streamRouter().Stream,
		Models:            a.registry,
		HasAuth:           a.hasAuth,
		RequestAuth:       a.requestAuth,
		Model:             sel.model,
		ThinkingLevel:     sel.thinking,
		KeepModel:         sel.fromCLI,
		KeepThinking:      sel.forceThinking,
		ScopedModels:      sel.scoped,
		Tools:             tools,
		Loadout:           loadout,
		Prompt:            prompt,
		Sections:          a.mcpSections(),
		LoadResources:     func() *resources.Set { return a.loadResources(store.Cwd()) },
		ReloadPrompt:      func() (harness.SystemPromptOptions, error) { return a.reloadPrompt(store.Cwd()) },
		BashShellPath:     settings.ShellPath,
		BashCommandPrefix: settings.ShellCommandPrefix,
		BashBinDir:        a.paths.Bin(),
		BashOutputDir:     a.outputs,
		UnknownContextWindow: func(m *provider.Model) bool {
			return m.Provider == config.CustomProvider
		},
		OnWarning:       a.sessionWarning,
		OpenCheckpoints: a.openCheckpoints(store.Cwd()),
	}
	a.ext.sessionOptions(&hopts)
	if sess, err = harness.New(hopts); err != nil {
		return nil, err
	}
	a.attachMCP(sess)
	a.ext.start(sess)
	return sess, nil
}

// sessionWarning reports a problem the session met while running.
func (a *app) sessionWarning(err error) {
	if a.sink != nil {
		a.sink.Warn(err)
		return
	}
	fmt.Fprintln(a.io.Err, "Warning: "+err.Error())
}

func (a *app) requestAuth(ctx context.Context, m *provider.Model) (string, map[string]string, error) {
	if m.Provider == demo.ProviderName || provider.IsVirtual(m) {
		return "", nil, nil
	}
	ra, err := a.auth.RequestAuth(ctx, m)
	if err != nil {
		return "", nil, err
	}
	return ra.APIKey.Reveal(), ra.Headers, nil
}

// systemPromptOptions gathers --system-prompt / SYSTEM.md, appends and context files.
func (a *app) systemPromptOptions(cwd string, warn func(string, ...any)) (harness.SystemPromptOptions, error) {
	var o harness.SystemPromptOptions
	systemFile, appendFile := harness.DiscoverPromptFiles(a.paths.Dir, cwd, a.projectTrusted)
	custom := a.opts.SystemPrompt
	if custom == "" {
		custom = systemFile
	}
	text, err := harness.ResolvePromptText(custom)
	if err != nil {
		return o, err
	}
	o.CustomPrompt = text
	appends := a.opts.AppendSystemPrompt
	if len(appends) == 0 && appendFile != "" {
		appends = []string{appendFile}
	}
	for _, ap := range appends {
		t, err := harness.ResolvePromptText(ap)
		if err != nil {
			return o, err
		}
		o.AppendPrompts = append(o.AppendPrompts, t)
	}
	if !a.opts.NoContextFiles {
		files, errs := harness.LoadContextFiles(a.paths.Dir, cwd)
		for _, e := range errs {
			warn("%v", e)
		}
		o.ContextFiles = files
	}
	return o, nil
}
