package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables naming pi's directories.
const (
	EnvAgentDir   = "PI_CODING_AGENT_DIR"
	EnvSessionDir = "PI_CODING_AGENT_SESSION_DIR"
)

// ConfigDirName is the name of pi's directory in the home and project folders.
const ConfigDirName = ".pi"

// Getenv reads one environment variable; os.Getenv in production, a map lookup in tests.
type Getenv func(key string) string

// HomeDir is the user's home directory: $HOME when set (so tests and wrappers can move it), else the
// system's idea of it.
func HomeDir(getenv Getenv) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if h := getenv("HOME"); h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("cannot find the home directory: set HOME or " + EnvAgentDir)
	}
	return h, nil
}

// ExpandTilde expands "~" and a leading "~/" to home, as pi does for its directory variables; "~user"
// and everything else is left alone.
func ExpandTilde(path, home string) string {
	if path == "~" {
		return home
	}
	if strings.HasPrefix(path, "~/") {
		return home + path[1:]
	}
	return path
}

// AgentDir is pi's agent directory: $PI_CODING_AGENT_DIR with ~ expanded, else ~/.pi/agent.
func AgentDir(getenv Getenv) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	home, herr := HomeDir(getenv)
	if dir := getenv(EnvAgentDir); dir != "" {
		if herr != nil && (dir == "~" || strings.HasPrefix(dir, "~/")) {
			return "", herr
		}
		return ExpandTilde(dir, home), nil
	}
	if herr != nil {
		return "", herr
	}
	return filepath.Join(home, ConfigDirName, "agent"), nil
}

// SessionDirOverride is the session directory chosen outside settings: the --session-dir flag value,
// else $PI_CODING_AGENT_SESSION_DIR with ~ expanded; "" when neither is set (then settings'
// sessionDir, then the per-cwd default under AgentPaths.Sessions apply).
func SessionDirOverride(flag string, getenv Getenv) string {
	if flag != "" {
		return flag
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := getenv(EnvSessionDir)
	if dir == "" {
		return ""
	}
	home, err := HomeDir(getenv)
	if err != nil {
		return dir
	}
	return ExpandTilde(dir, home)
}

// AgentPaths names the files and folders inside an agent directory.
type AgentPaths struct {
	Dir string
}

// NewAgentPaths resolves the agent directory from the environment (see AgentDir).
func NewAgentPaths(getenv Getenv) (AgentPaths, error) {
	dir, err := AgentDir(getenv)
	return AgentPaths{Dir: dir}, err
}

func (p AgentPaths) join(name ...string) string {
	return filepath.Join(append([]string{p.Dir}, name...)...)
}

// Models is models.json.
func (p AgentPaths) Models() string { return p.join("models.json") }

// Auth is auth.json.
func (p AgentPaths) Auth() string { return p.join("auth.json") }

// Sessions is the root of the per-project session folders.
func (p AgentPaths) Sessions() string { return p.join("sessions") }

// SessionDirFor is the default session folder of a working directory:
// sessions/--<cwd without its leading separator, with / \ and : as ->--.
func (p AgentPaths) SessionDirFor(cwd string) string {
	return filepath.Join(p.Sessions(), EncodeSessionDirName(cwd))
}

// EncodeSessionDirName turns a working directory into pi's session folder name.
func EncodeSessionDirName(cwd string) string {
	s := cwd
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) {
		s = s[1:]
	}
	s = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(s)
	return "--" + s + "--"
}

// Bin holds downloaded helper binaries (fd, rg).
func (p AgentPaths) Bin() string { return p.join("bin") }
