package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTimeoutSettings(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration // 0: not set, -1: disabled
		bad   bool
	}{
		{`300000`, 300 * time.Second, false},
		{`1500.9`, 1500 * time.Millisecond, false},
		{`"2000"`, 2 * time.Second, false},
		{`" 2000 "`, 2 * time.Second, false},
		{`0`, -1, false},
		{`"disabled"`, -1, false},
		{`"Disabled"`, -1, false},
		{`null`, 0, false},
		{`-5`, 0, true},
		{`"abc"`, 0, true},
		{`""`, 0, true},
		{`true`, 0, true},
		{`{"ms":1}`, 0, true},
	}
	for _, tt := range tests {
		agent, cwd := t.TempDir(), t.TempDir()
		path := filepath.Join(agent, "settings.json")
		settingsWrite(t, path, `{"httpIdleTimeoutMs":`+tt.value+`,"contentIdleTimeoutMs":`+tt.value+`,"defaultModel":"kept"}`)
		m := LoadSettings(agent, cwd)
		s := m.Settings()
		if got := s.HTTPIdleTimeout(); got != tt.want {
			t.Errorf("httpIdleTimeoutMs %s: %v, want %v", tt.value, got, tt.want)
		}
		if got := s.ContentIdleTimeout(); got != tt.want {
			t.Errorf("contentIdleTimeoutMs %s: %v, want %v", tt.value, got, tt.want)
		}
		if s.DefaultModel != "kept" {
			t.Errorf("%s: a bad timeout hid another key", tt.value)
		}
		warnings := m.TimeoutWarnings()
		if !tt.bad {
			if len(warnings) != 0 {
				t.Errorf("%s: unexpected warnings %q", tt.value, warnings)
			}
			continue
		}
		if len(warnings) != 2 || !strings.HasPrefix(warnings[0], path+": httpIdleTimeoutMs: ") ||
			!strings.HasPrefix(warnings[1], path+": contentIdleTimeoutMs: ") || !strings.HasSuffix(warnings[0], "; using the default") {
			t.Errorf("%s: warnings %q", tt.value, warnings)
		}
	}
}

func TestTimeoutSettingsUnset(t *testing.T) {
	s := LoadSettings(t.TempDir(), t.TempDir()).Settings()
	if s.HTTPIdleTimeout() != 0 || s.ContentIdleTimeout() != 0 {
		t.Fatalf("unset timeouts: %v %v", s.HTTPIdleTimeout(), s.ContentIdleTimeout())
	}
	if s.MaxAgentDelay() != 60*time.Second {
		t.Fatalf("retry.maxAgentDelayMs default %v", s.MaxAgentDelay())
	}
}

func TestMaxAgentDelay(t *testing.T) {
	for _, tt := range []struct {
		ms   int
		want time.Duration
	}{{120000, 2 * time.Minute}, {500, 500 * time.Millisecond}, {0, DefaultMaxAgentDelay}, {-1, DefaultMaxAgentDelay}} {
		s := Settings{Retry: RetrySettings{MaxAgentDelayMs: tt.ms}}
		if got := s.MaxAgentDelay(); got != tt.want {
			t.Errorf("maxAgentDelayMs %d: %v, want %v", tt.ms, got, tt.want)
		}
	}
	agent, cwd := t.TempDir(), t.TempDir()
	settingsWrite(t, filepath.Join(agent, "settings.json"), `{"retry":{"maxAgentDelayMs":5000,"maxRetries":1}}`)
	s := LoadSettings(agent, cwd).Settings()
	if s.MaxAgentDelay() != 5*time.Second || s.MaxRetries() != 1 {
		t.Fatalf("from the file: %v, %d", s.MaxAgentDelay(), s.MaxRetries())
	}
}
