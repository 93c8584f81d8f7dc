package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// Project trust (pi 1.6, docs/security.md): a project's .pi settings and resources load only when
// the project is trusted. The decisions live in <agentDir>/trust.json, {"<canonical dir>": true |
// false}; the nearest decision of the directory or one of its parents applies.

// trustRequiringResources are the entries of a project's .pi directory that need a trust decision
// (pi's TRUST_REQUIRING_PROJECT_CONFIG_RESOURCES); a bare .pi directory does not.
var trustRequiringResources = []string{"settings.json", "mcp.json", "extensions", "skills", "prompts", "themes", "SYSTEM.md", "APPEND_SYSTEM.md"}

// HasTrustRequiringProjectResources reports whether cwd has project resources that project trust
// gates: one of the .pi entries above, or a .agents/skills directory in cwd or an ancestor (except
// the user's own ~/.agents/skills).
func HasTrustRequiringProjectResources(cwd, home string) bool {
	dir := CanonicalPath(cwd)
	for _, name := range trustRequiringResources {
		if exists(filepath.Join(dir, ".pi", name)) {
			return true
		}
	}
	userSkills := filepath.Join(CanonicalPath(home), ".agents", "skills")
	for {
		skills := filepath.Join(dir, ".agents", "skills")
		if skills != userSkills && exists(skills) {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// CanonicalPath is path made absolute with its symbolic links resolved (pi's canonicalizePath),
// or just absolute when it cannot be resolved.
func CanonicalPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// TrustDecision is a saved decision and the directory it was saved for.
type TrustDecision struct {
	Path    string
	Trusted bool
}

// TrustUpdate changes the decision of a directory; a nil Trusted removes it.
type TrustUpdate struct {
	Path    string
	Trusted *bool
}

// TrustStore reads and writes trust.json under the "<file>.lock" directory pi locks it with.
type TrustStore struct {
	path string
}

// NewTrustStore is the store of <agentDir>/trust.json.
func NewTrustStore(agentDir string) *TrustStore {
	return &TrustStore{path: filepath.Join(agentDir, "trust.json")}
}

// Path is the trust.json file.
func (s *TrustStore) Path() string { return s.path }

// Get returns the decision nearest to cwd (cwd's own, else its parent's, and so on), or nil.
func (s *TrustStore) Get(cwd string) (*TrustDecision, error) {
	var found *TrustDecision
	err := withFileLock(s.path, func() error {
		data, err := s.read()
		if err != nil {
			return err
		}
		dir := CanonicalPath(cwd)
		for {
			if v, ok := data[dir]; ok && v != nil {
				found = &TrustDecision{Path: dir, Trusted: *v}
				return nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil
			}
			dir = parent
		}
	})
	return found, err
}

// SetMany applies updates in order and writes the file as pi does: keys sorted, two-space indent,
// a final newline. No updates (a this-session-only answer) write nothing.
func (s *TrustStore) SetMany(updates []TrustUpdate) error {
	if len(updates) == 0 {
		return nil
	}
	return withFileLock(s.path, func() error {
		data, err := s.read()
		if err != nil {
			return err
		}
		for _, u := range updates {
			key := CanonicalPath(u.Path)
			delete(data, key)
			if u.Trusted != nil {
				data[key] = u.Trusted
			}
		}
		return writeFileAtomic(s.path, encodeTrust(data), 0o644)
	})
}

// read parses trust.json; a missing file is empty. Values must be true, false or null.
func (s *TrustStore) read() (map[string]*bool, error) {
	raw, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("Failed to read trust store %s: %w", s.path, err) //nolint:staticcheck // pi's text
	}
	raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, fmt.Errorf("Failed to read trust store %s: %w", s.path, err) //nolint:staticcheck // pi's text
	}
	obj, ok := generic.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("Invalid trust store %s: expected an object", s.path) //nolint:staticcheck // pi's text
	}
	data := make(map[string]*bool, len(obj))
	for k, v := range obj {
		switch v := v.(type) {
		case bool:
			data[k] = &v
		case nil:
			data[k] = nil
		default:
			key, _ := json.Marshal(k)
			return nil, fmt.Errorf("Invalid trust store %s: value for %s must be true, false, or null", s.path, key) //nolint:staticcheck // pi's text
		}
	}
	return data, nil
}

// encodeTrust writes the decisions as JSON.stringify(sorted, null, 2) + "\n".
func encodeTrust(data map[string]*bool) []byte {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return []byte("{}\n")
	}
	out := []byte("{\n")
	for i, k := range keys {
		out = append(out, "  "...)
		out = jsonx.AppendString(out, k)
		out = append(out, ": "...)
		switch v := data[k]; {
		case v == nil:
			out = append(out, "null"...)
		case *v:
			out = append(out, "true"...)
		default:
			out = append(out, "false"...)
		}
		if i < len(keys)-1 {
			out = append(out, ',')
		}
		out = append(out, '\n')
	}
	return append(out, "}\n"...)
}

// TrustOption is one answer of the trust prompt and of /trust (pi's getProjectTrustOptions).
type TrustOption struct {
	Label   string
	Trusted bool
	// Updates are saved when the option is chosen (none: this session only).
	Updates []TrustUpdate
	// SavedPath is the directory whose decision the option saves ("" for this session only).
	SavedPath string
}

// TrustOptions lists pi's answers for cwd: trust it, trust its parent (when it has one), don't
// trust it; with sessionOnly (the startup prompt) also trust or don't trust for this run only.
func TrustOptions(cwd string, sessionOnly bool) []TrustOption {
	dir := CanonicalPath(cwd)
	yes, no := true, false
	opts := []TrustOption{{Label: "Trust", Trusted: true, Updates: []TrustUpdate{{Path: dir, Trusted: &yes}}, SavedPath: dir}}
	if parent := filepath.Dir(dir); parent != dir {
		opts = append(opts, TrustOption{
			Label:     "Trust parent folder (" + parent + ")",
			Trusted:   true,
			Updates:   []TrustUpdate{{Path: parent, Trusted: &yes}, {Path: dir}},
			SavedPath: parent,
		})
	}
	if sessionOnly {
		opts = append(opts, TrustOption{Label: "Trust (this session only)", Trusted: true})
	}
	opts = append(opts, TrustOption{Label: "Do not trust", Updates: []TrustUpdate{{Path: dir, Trusted: &no}}, SavedPath: dir})
	if sessionOnly {
		opts = append(opts, TrustOption{Label: "Do not trust (this session only)"})
	}
	return opts
}

// TrustPrompt is the question of the startup trust prompt for cwd.
func TrustPrompt(cwd string) string {
	return "Trust project folder?\n" + cwd + "\n\nThis allows pi to load .pi settings and resources, install missing project packages, and execute project extensions."
}

// TrustQuery is what decides whether a project is trusted (pi's resolveProjectTrusted, without its
// project_trust event, which cmd/pi asks the extensions before it: their yes or no wins over Saved).
type TrustQuery struct {
	// Override is --approve (true) or --no-approve (false); nil when neither was given.
	Override *bool
	// HasResources: the project has resources that need a decision.
	HasResources bool
	// Saved is the nearest saved decision, nil when none applies.
	Saved *TrustDecision
	// Default is the global defaultProjectTrust: "ask", "always" or "never".
	Default string
}

// Resolve answers the query. ask is true when the answer is to be asked (defaultProjectTrust "ask"
// and nothing else decided); a mode without a prompt then takes trusted (false) as it is.
func (q TrustQuery) Resolve() (trusted, ask bool) {
	switch {
	case q.Override != nil:
		return *q.Override, false
	case q.Saved != nil:
		return q.Saved.Trusted, false
	case !q.HasResources:
		return true, false
	}
	switch q.Default {
	case "always":
		return true, false
	case "never":
		return false, false
	}
	return false, true
}
