package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/session"
)

// warningLog collects what a session reports through OnWarning.
type warningLog struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warningLog) add(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, err.Error())
}

func (w *warningLog) matching(s string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, m := range w.msgs {
		if strings.Contains(m, s) {
			out = append(out, m)
		}
	}
	return out
}

// The store's load warnings (files -c passed over, a header-less file left alone) reach OnWarning
// exactly once, also when the session they leave is empty.
func TestStoreWarningsAreReportedOnceEvenForAnEmptySession(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.jsonl")
	if err := os.WriteFile(garbage, []byte("\x00binary\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := session.ContinueRecent(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	var log warningLog
	f := newFixture(t, nil, func(o *Options) {
		o.Store = store
		o.OnWarning = log.add
	})
	if got := log.matching(garbage); len(got) != 1 || !strings.Contains(got[0], "not a session file") {
		t.Fatalf("warnings about %s = %q (all: %q)", garbage, got, log.msgs)
	}
	if got := log.matching("new session is started"); len(got) != 1 {
		t.Fatalf("no word of the new session: %q", log.msgs)
	}

	// switching to a file without a header: left alone, a new session beside it, and said so
	if err := f.s.SwitchSession(garbage); err != nil && !errors.Is(err, session.ErrLocked) {
		t.Fatal(err)
	}
	if got := log.matching("no readable session header"); len(got) != 1 {
		t.Fatalf("switch_session to a header-less file: %q", log.msgs)
	}
}
