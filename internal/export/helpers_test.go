package export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/session"
)

// openFixture opens a copy of testdata/name (opening may repair or lock the file; the original
// stays as it is).
func openFixture(t testing.TB, name string) *session.Manager {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return openPath(t, path)
}

// openPath opens the session file at path, closed when the test ends.
func openPath(t testing.TB, path string) *session.Manager {
	t.Helper()
	m, err := session.Open(path, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if w := m.Warnings(); len(w) > 0 {
		t.Fatalf("session %s: %v", path, w)
	}
	return m
}

var fixedNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func testTheme() Theme {
	return Theme{Name: "dark", Dark: true, Colors: map[string]string{
		"accent": "#8abeb7", "userMessageBg": "#343541", "syntaxKeyword": "#569CD6", "toolDiffAdded": "#b5bd68",
	}}
}

func renderHTML(t testing.TB, m *session.Manager, opts HTMLOptions) string {
	t.Helper()
	if opts.Now.IsZero() {
		opts.Now = fixedNow
	}
	if opts.Theme.Name == "" {
		opts.Theme = testTheme()
	}
	var buf bytes.Buffer
	if err := WriteHTML(context.Background(), &buf, FromManager(m), opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
