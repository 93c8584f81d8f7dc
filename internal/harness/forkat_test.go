package harness

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// A fork at an entry keeps that entry: forked at the first answer, the new session holds the first
// exchange and continues from it, while the original file keeps both.
func TestForkAtKeepsTheEntry(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("a1"), textTurn("a2")}, nil)
	for _, p := range []string{"one", "two"} {
		if err := f.s.Prompt(context.Background(), p, nil, BehaviorNone); err != nil {
			t.Fatal(err)
		}
	}
	original := f.store.SessionFile()
	var answer string
	for _, e := range f.store.Entries() {
		if e.Role == provider.RoleAssistant {
			answer = e.ID
			break
		}
	}
	if err := f.s.ForkAt(answer); err != nil {
		t.Fatal(err)
	}
	if f.store.SessionFile() == original {
		t.Fatal("the fork did not start a new session file")
	}
	if f.store.LeafID() != answer {
		t.Errorf("the fork's leaf is %s, want the entry forked at, %s", f.store.LeafID(), answer)
	}
	var roles []string
	for _, m := range f.s.Messages() {
		if _, system := m.(*provider.SystemMessage); !system {
			roles = append(roles, m.Role())
		}
	}
	if got := strings.Join(roles, ","); got != "user,assistant" {
		t.Errorf("messages after the fork: %s, want the first exchange", got)
	}
	if err := f.s.ForkAt("no-such-entry"); err == nil {
		t.Error("a fork at an unknown entry succeeded")
	}
}
