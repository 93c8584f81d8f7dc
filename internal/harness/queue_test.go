package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/loop"
)

func TestQueueModesArePersisted(t *testing.T) {
	agentDir := t.TempDir()
	settings := config.LoadSettings(agentDir, t.TempDir())
	f := newFixture(t, nil, func(o *Options) { o.Settings = settings })
	if err := f.s.SetSteeringMode(loop.QueueAll); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetFollowUpMode(loop.QueueAll); err != nil {
		t.Fatal(err)
	}
	if f.s.Agent().SteeringMode() != loop.QueueAll || f.s.Agent().FollowUpMode() != loop.QueueAll {
		t.Errorf("agent modes: %s %s", f.s.Agent().SteeringMode(), f.s.Agent().FollowUpMode())
	}
	data, err := os.ReadFile(filepath.Join(agentDir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"steeringMode": "all"`) || !strings.Contains(string(data), `"followUpMode": "all"`) {
		t.Errorf("settings.json:\n%s", data)
	}
	if err := f.s.SetSteeringMode("sometimes"); err == nil {
		t.Error("invalid mode accepted")
	}
	if f.s.Agent().SteeringMode() != loop.QueueAll {
		t.Errorf("invalid mode changed the agent: %s", f.s.Agent().SteeringMode())
	}
}
