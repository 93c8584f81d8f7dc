package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckpointSettings(t *testing.T) {
	agent := t.TempDir()
	// Defaults.
	s := LoadSettings(agent, t.TempDir()).Settings()
	if !s.CheckpointsEnabled() || s.CheckpointMaxAge() != 30*24*time.Hour ||
		s.CheckpointMaxStoreSize() != 1<<30 || s.CheckpointMaxFileSize() != 10<<20 {
		t.Errorf("defaults: enabled %v age %v store %d file %d", s.CheckpointsEnabled(), s.CheckpointMaxAge(),
			s.CheckpointMaxStoreSize(), s.CheckpointMaxFileSize())
	}
	settingsWrite(t, filepath.Join(agent, "settings.json"),
		`{"checkpoints": false, "checkpointLimits": {"maxAgeDays": 0.5, "maxStoreMB": 0, "maxFileMB": 2}}`)
	s = LoadSettings(agent, t.TempDir()).Settings()
	if s.CheckpointsEnabled() || s.CheckpointMaxAge() != 12*time.Hour ||
		s.CheckpointMaxStoreSize() != -1 || s.CheckpointMaxFileSize() != 2<<20 {
		t.Errorf("set: enabled %v age %v store %d file %d", s.CheckpointsEnabled(), s.CheckpointMaxAge(),
			s.CheckpointMaxStoreSize(), s.CheckpointMaxFileSize())
	}
}

func TestCheckpointSettingsWrongTypeIsNamed(t *testing.T) {
	agent := t.TempDir()
	settingsWrite(t, filepath.Join(agent, "settings.json"),
		`{"checkpoints": "no", "checkpointLimits": {"maxFileMB": "big", "maxAgeDays": 7}}`)
	m := LoadSettings(agent, t.TempDir())
	s := m.Settings()
	if !s.CheckpointsEnabled() || s.CheckpointMaxFileSize() != 10<<20 || s.CheckpointMaxAge() != 7*24*time.Hour {
		t.Errorf("wrong values must fall back to defaults, the right ones count: %+v", s.CheckpointLimits)
	}
	var msgs []string
	for _, err := range m.Errors() {
		msgs = append(msgs, err.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"checkpoints: expected", "checkpointLimits.maxFileMB: expected"} {
		if !strings.Contains(all, want) {
			t.Errorf("errors %q lack %q", all, want)
		}
	}
}
