package extensions

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// The sidecar is one script: its protocol and runner (sidecar.mjs), then the terminal UI's
// components (sidecar_ui.mjs), renderers (sidecar_render.mjs) and the registered providers
// (sidecar_provider.mjs), whose functions sidecar.mjs calls.
var (
	//go:embed sidecar.mjs
	sidecarMain []byte
	//go:embed sidecar_ui.mjs
	sidecarUI []byte
	//go:embed sidecar_render.mjs
	sidecarRender []byte
	//go:embed sidecar_provider.mjs
	sidecarProvider []byte
	sidecarScript   = slices.Concat(sidecarMain, []byte("\n"), sidecarUI, []byte("\n"), sidecarRender, []byte("\n"), sidecarProvider)
	// sidecarCLI runs pi-go from Node (its process.argv[1] in the sidecar), after a first line that
	// names the binary (cliScript).
	//go:embed sidecar_cli.mjs
	sidecarCLI []byte
)

// Sidecar is the Node process that runs pi's TypeScript and JavaScript extensions with the installed
// pi package's own loader and ExtensionRunner.
type Sidecar struct {
	Node string // the node executable
	// Script is sidecar.mjs as written to the cache directory.
	Script string
	// Package is the directory of the pi package (…/@earendil-works/pi-coding-agent or
	// …/@mariozechner/pi-coding-agent).
	Package string
	// Extensions are the entry files to load, in order.
	Extensions []string
	// CLI is pi-go's CLI for Node (sidecar_cli.mjs, written beside Script): the sidecar's
	// process.argv[1], so an extension that starts "the running pi" (process.execPath with
	// process.argv[1]) starts pi-go. Empty: argv[1] stays the sidecar script.
	CLI string
}

func (s *Sidecar) argv() []string { return []string{s.Node, "--no-warnings", s.Script} }

func (s *Sidecar) options() json.RawMessage {
	opts := map[string]string{"piPackage": s.Package}
	if s.CLI != "" {
		opts["cli"] = s.CLI
	}
	b, _ := json.Marshal(opts)
	return b
}

// ErrNoNode and ErrNoPiPackage say what is missing to run TypeScript extensions.
var (
	ErrNoNode      = errors.New("extensions need Node.js: install Node 22 (https://nodejs.org) or set PI_GO_NODE to its node executable")
	ErrNoPiPackage = errors.New("extensions need pi's package: run `npm install -g @earendil-works/pi-coding-agent` or set PI_PACKAGE_DIR to its directory")
)

// Locate is where to find Node and the pi package.
type Locate struct {
	AgentDir string
	Home     string
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
	// PackageDir is a directory named by the settings (empty: none).
	PackageDir string
	// CacheDir receives sidecar.mjs (e.g. ~/.cache/pi-go).
	CacheDir string
	// Executable is the pi-go binary the sidecar's extensions start as "pi" (empty: os.Executable;
	// unknown, they cannot).
	Executable string
}

// NewSidecar finds Node and the pi package and writes the sidecar script for scripts. Its errors are
// ErrNoNode or ErrNoPiPackage (one line each, saying what to install) or the cache directory's.
func NewSidecar(l Locate, scripts []string) (*Sidecar, error) {
	getenv := l.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	node := getenv("PI_GO_NODE")
	if node == "" {
		node = "node"
	}
	node, err := exec.LookPath(node)
	if err != nil {
		return nil, ErrNoNode
	}
	pkg := findPiPackage(l, getenv, node)
	if pkg == "" {
		return nil, ErrNoPiPackage
	}
	script, err := writeScript(l.CacheDir)
	if err != nil {
		return nil, err
	}
	sc := &Sidecar{Node: node, Script: script, Package: pkg, Extensions: scripts}
	exe := l.Executable
	if exe == "" {
		exe, _ = os.Executable()
	}
	if exe != "" {
		// Without it the extensions still run: one that starts pi finds the sidecar script instead.
		sc.CLI, _ = writeCLI(l.CacheDir, exe)
	}
	return sc, nil
}

var piPackageNames = []string{"@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"}

// findPiPackage looks where pi can be: the settings' directory, PI_PACKAGE_DIR, the npm global prefix
// (NPM_CONFIG_PREFIX, or the one beside node), and pi's own npm directory.
func findPiPackage(l Locate, getenv func(string) string, node string) string {
	isPkg := func(dir string) bool {
		_, err := os.Stat(filepath.Join(dir, "dist", "index.js"))
		return dir != "" && err == nil
	}
	for _, dir := range []string{l.PackageDir, getenv("PI_PACKAGE_DIR")} {
		if isPkg(dir) {
			return dir
		}
	}
	var roots []string
	for _, prefix := range []string{getenv("NPM_CONFIG_PREFIX"), getenv("npm_config_prefix")} {
		if prefix != "" {
			roots = append(roots, filepath.Join(prefix, "lib", "node_modules"), filepath.Join(prefix, "node_modules"))
		}
	}
	if real, err := filepath.EvalSymlinks(node); err == nil {
		prefix := filepath.Dir(filepath.Dir(real)) // <prefix>/bin/node
		roots = append(roots, filepath.Join(prefix, "lib", "node_modules"))
	}
	if l.Home != "" {
		roots = append(roots, filepath.Join(l.Home, ".npm-global", "lib", "node_modules"))
	}
	roots = append(roots, filepath.Join(l.AgentDir, "npm", "node_modules"))
	for _, root := range roots {
		for _, name := range piPackageNames {
			if dir := filepath.Join(root, filepath.FromSlash(name)); isPkg(dir) {
				return dir
			}
		}
	}
	return ""
}

// writeScript writes sidecar.mjs once per content into dir (named by its hash, so two pi-go versions
// never share a file) and returns its path.
func writeScript(dir string) (string, error) { return writeCached(dir, "sidecar-", sidecarScript) }

// writeCLI writes pi-go's CLI for Node, which runs exe, into dir and returns its path. Its first line
// names exe, so each binary has its own file.
func writeCLI(dir, exe string) (string, error) { return writeCached(dir, "pi-go-cli-", cliScript(exe)) }

func cliScript(exe string) []byte {
	name, _ := json.Marshal(exe)
	return slices.Concat([]byte("const executable = "), name, []byte(";\n"), sidecarCLI)
}

// writeCached writes content into dir as prefix + its hash + ".mjs", unless it is there already.
func writeCached(dir, prefix string, content []byte) (string, error) {
	sum := sha256.Sum256(content)
	path := filepath.Join(dir, prefix+hex.EncodeToString(sum[:6])+".mjs")
	if data, err := os.ReadFile(path); err == nil && string(data) == string(content) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("extension sidecar: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".sidecar-*")
	if err != nil {
		return "", fmt.Errorf("extension sidecar: %w", err)
	}
	_, werr := tmp.Write(content)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("extension sidecar: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("extension sidecar: %w", err)
	}
	return path, nil
}
