package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/export"
	"github.com/pi-go/pi-go/internal/provider"
)

// /export writes the page and the branch; /import of that branch resumes it as a new file in the
// session directory that keeps the session id, and a second import of the same name gets -1.
func TestExportAndImportRoundTrip(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("the **answer**"), textTurn("after import")}, nil)
	if _, err := f.s.ExportHTML(context.Background(), "", export.Theme{Dark: true}); !errors.Is(err, export.ErrNothingToExport) {
		t.Fatalf("export before any message: %v", err)
	}
	if err := f.s.Prompt(context.Background(), "the question", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	page, err := f.s.ExportHTML(context.Background(), "", export.Theme{Dark: true})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(f.dir, export.DefaultHTMLPath(f.store.SessionFile()))
	if page != want {
		t.Fatalf("page at %s, want %s", page, want)
	}
	html, _ := os.ReadFile(page)
	for _, s := range []string{"<strong>answer</strong>", "the question", "<summary>System prompt</summary>"} {
		if !strings.Contains(string(html), s) {
			t.Errorf("page lacks %q", s)
		}
	}

	out := filepath.Join(t.TempDir(), "branch.jsonl")
	if _, err := f.s.ExportJSONL(out); err != nil {
		t.Fatal(err)
	}
	id := f.s.Store().SessionID()
	imported, err := f.s.ImportJSONL(out)
	if err != nil {
		t.Fatal(err)
	}
	if imported != filepath.Join(f.store.SessionDir(), "branch.jsonl") || f.s.Store().SessionFile() != imported {
		t.Fatalf("imported to %s, session file %s", imported, f.s.Store().SessionFile())
	}
	if f.s.Store().SessionID() != id {
		t.Fatalf("imported session id %s, want %s", f.s.Store().SessionID(), id)
	}
	var answer string
	for _, m := range f.s.Messages() {
		if a, ok := m.(*provider.AssistantMessage); ok {
			answer = provider.TextOf(a.Content, "")
		}
	}
	if answer != "the **answer**" {
		t.Fatalf("resumed transcript ends with %q", answer)
	}
	// It resumes: the next prompt continues the imported transcript.
	if err := f.s.Prompt(context.Background(), "more", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	last := f.script.requests[len(f.script.requests)-1]
	var texts []string
	for _, m := range last.Messages {
		switch m := m.(type) {
		case *provider.UserMessage:
			texts = append(texts, provider.TextOf(m.Content, ""))
		case *provider.AssistantMessage:
			texts = append(texts, provider.TextOf(m.Content, ""))
		}
	}
	if got := strings.Join(texts, "|"); got != "the question|the **answer**|more" {
		t.Fatalf("request after import: %s", got)
	}

	again, err := f.s.ImportJSONL(out)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(again) != "branch-1.jsonl" {
		t.Fatalf("second import at %s", again)
	}
}

func TestImportRefusesWhatIsNotASession(t *testing.T) {
	f := newFixture(t, nil, nil)
	if _, err := f.s.ImportJSONL(filepath.Join(t.TempDir(), "missing.jsonl")); !errors.Is(err, ErrImportNotFound) {
		t.Fatalf("missing file: %v", err)
	}
	junk := filepath.Join(t.TempDir(), "junk.jsonl")
	os.WriteFile(junk, []byte("{\"hello\":1}\n"), 0o644)
	_, err := f.s.ImportJSONL(junk)
	if err == nil || !strings.Contains(err.Error(), "not a pi session file") {
		t.Fatalf("junk: %v", err)
	}
	if entries, _ := os.ReadDir(f.store.SessionDir()); len(entries) != 0 {
		t.Fatalf("copied anyway: %v", entries)
	}
}
