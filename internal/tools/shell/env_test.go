package shell

import (
	"slices"
	"testing"
)

// The agent's commands see pi 1.6's markers; with SessionEnv they see this session's variables
// instead of any inherited from pi's own environment (pi running inside pi), read at each command.
func TestEnvironSessionVariables(t *testing.T) {
	t.Setenv("PI_SESSION_ID", "outer-session")
	t.Setenv("PI_MODEL", "outer-model")
	t.Setenv("AI_AGENT", "something-else")
	plain := environ("", nil, nil)
	if !slices.Contains(plain, "AI_AGENT=pi") || !slices.Contains(plain, "PI_CODING_AGENT=true") || !slices.Contains(plain, "PI_SESSION_ID=outer-session") {
		t.Errorf("! command environment: %q", plain)
	}
	model := "m1"
	session := func() []string { return []string{"PI_SESSION_ID=s1", "PI_PROVIDER=p", "PI_MODEL=" + model} }
	env := environ("", nil, session)
	for _, want := range []string{"AI_AGENT=pi", "PI_SESSION_ID=s1", "PI_PROVIDER=p", "PI_MODEL=m1"} {
		if !slices.Contains(env, want) {
			t.Errorf("tool environment lacks %s", want)
		}
	}
	if slices.Contains(env, "PI_SESSION_ID=outer-session") || slices.Contains(env, "PI_MODEL=outer-model") {
		t.Error("inherited session variables kept")
	}
	model = "m2"
	if env := environ("", nil, session); !slices.Contains(env, "PI_MODEL=m2") {
		t.Error("session variables are read at each command")
	}
	// Without a model or a file, those variables are absent rather than inherited.
	env = environ("", nil, func() []string { return []string{"PI_SESSION_ID=s2"} })
	for _, kv := range env {
		if kv == "PI_MODEL=outer-model" {
			t.Error("PI_MODEL inherited")
		}
	}
}
