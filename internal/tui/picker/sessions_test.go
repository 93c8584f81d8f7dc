package picker

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/session"
)

func testSessions() []session.Info {
	now := time.Now()
	return []session.Info{
		{Path: "/s/current.jsonl", FirstMessage: "the current question", Modified: now, MessageCount: 2},
		{Path: "/s/old.jsonl", FirstMessage: "an old question", Modified: now.Add(-time.Hour), MessageCount: 4},
		{Path: "/s/named.jsonl", Name: "Named one", FirstMessage: "named question", Modified: now.Add(-2 * time.Hour)},
	}
}

// loadedSessions is a picker that asked for this folder's sessions and got testSessions.
func loadedSessions(t *testing.T, initial bool) *Sessions {
	t.Helper()
	sp := NewSessions(testRenderer(), "/s/current.jsonl", initial)
	req, ok := sp.Init()().(LoadSessions)
	if !ok || req != (LoadSessions{All: false, Seq: 1}) {
		t.Fatalf("Init asks for %#v", req)
	}
	mustContain(t, view(sp, 120, 20), "Resume Session (Current Folder)", "Loading sessions...")
	sendNone(t, sp, SessionsLoaded{Request: req, Infos: testSessions()})
	return sp
}

func TestSessionsChooseAnotherSession(t *testing.T) {
	sp := loadedSessions(t, false)
	v := view(sp, 120, 20)
	mustContain(t, v, "  the current question", "› an old question", "Named one", "Sort: Threaded")
	if got := sendOne(t, sp, keyOf(tea.KeyEnter)); got != (SessionChosen{Path: "/s/old.jsonl"}) {
		t.Fatalf("Enter = %#v (the cursor starts on the first session not in use)", got)
	}
	if got := sendOne(t, sp, keyOf(tea.KeyUp), keyOf(tea.KeyEnter)); got != (Cancelled{}) {
		t.Fatalf("Enter on the session in use = %#v", got)
	}
	if got := sendOne(t, sp, keyOf(tea.KeyEsc)); got != (Cancelled{}) {
		t.Fatalf("Escape = %#v", got)
	}
}

func TestSessionsOpenedByResumeFlag(t *testing.T) {
	sp := loadedSessions(t, true)
	if got := sendOne(t, sp, keyOf(tea.KeyEnter)); got != (SessionChosen{Path: "/s/old.jsonl", Initial: true}) {
		t.Fatalf("Enter = %#v", got)
	}
	if got := sendOne(t, sp, keyOf(tea.KeyEsc)); got != (NoSessionChosen{}) {
		t.Fatalf("Escape = %#v", got)
	}
}

func TestSessionsScopeLoadsOnceAndDropsStaleAnswers(t *testing.T) {
	sp := loadedSessions(t, false)
	req, ok := sendOne(t, sp, keyOf(tea.KeyTab)).(LoadSessions)
	if !ok || req != (LoadSessions{All: true, Seq: 2}) {
		t.Fatalf("Tab asks for %#v", req)
	}
	mustContain(t, view(sp, 120, 20), "Resume Session (All)", "Loading...")
	stale := LoadSessions{All: true, Seq: 1}
	sendNone(t, sp, SessionsLoaded{Request: stale, Infos: testSessions()[:1]})
	mustContain(t, view(sp, 120, 20), "Loading sessions...")
	elsewhere := session.Info{Path: "/t/far.jsonl", FirstMessage: "far away", Cwd: "/t", Modified: time.Now()}
	sendNone(t, sp, SessionsLoaded{Request: req, Infos: []session.Info{elsewhere}})
	mustContain(t, view(sp, 120, 20), "› far away", "/t 0 now")
	// Back to this folder: already loaded, nothing asked.
	sendNone(t, sp, keyOf(tea.KeyTab))
	mustContain(t, view(sp, 120, 20), "an old question")
	sendNone(t, sp, SessionsLoaded{Request: LoadSessions{Seq: 3}, Err: errors.New("disk gone")})
	sp2 := NewSessions(testRenderer(), "", false)
	req = sp2.Init()().(LoadSessions)
	sendNone(t, sp2, SessionsLoaded{Request: req, Err: errors.New("disk gone")})
	mustContain(t, view(sp2, 120, 20), "Failed to load sessions: disk gone")
}

func TestSessionsDeleteAsksFirstAndSparesTheSessionInUse(t *testing.T) {
	sp := loadedSessions(t, false)
	sendNone(t, sp, keyOf(tea.KeyUp), keyOf(tea.KeyCtrlD))
	mustContain(t, view(sp, 120, 20), "Cannot delete the currently active session")
	sendNone(t, sp, keyOf(tea.KeyDown), keyOf(tea.KeyCtrlD))
	mustContain(t, view(sp, 120, 20), "Delete session? enter confirm · esc cancel")
	sendNone(t, sp, keyOf(tea.KeyDown)) // every other key waits for the answer
	if got := sendOne(t, sp, keyOf(tea.KeyEnter)); got != (DeleteSession{Path: "/s/old.jsonl"}) {
		t.Fatalf("Enter = %#v", got)
	}
	sendNone(t, sp, SessionDeleted{Path: "/s/old.jsonl", Status: "Session deleted"})
	v := view(sp, 120, 20)
	mustContain(t, v, "Session deleted", "the current question")
	if strings.Contains(v, "an old question") {
		t.Fatalf("the deleted session is still listed:\n%s", v)
	}
	sendNone(t, sp, keyOf(tea.KeyCtrlD), keyOf(tea.KeyEsc))
	if got := sendOne(t, sp, keyOf(tea.KeyCtrlD), keyOf(tea.KeyEnter)); got != (DeleteSession{Path: "/s/named.jsonl"}) {
		t.Fatalf("Enter = %#v", got)
	}
	sendNone(t, sp, SessionDeleted{Path: "/s/named.jsonl", Err: errors.New("read-only")})
	mustContain(t, view(sp, 120, 20), "Failed to delete: read-only", "Named one")
}

func TestSessionsRename(t *testing.T) {
	sp := loadedSessions(t, false)
	sendNone(t, sp, keyOf(tea.KeyCtrlR))
	mustContain(t, view(sp, 120, 20), "Rename Session", "enter to save")
	sendNone(t, sp, typing("Better name")...)
	got := sendOne(t, sp, keyOf(tea.KeyEnter))
	if got != (RenameSession{Path: "/s/old.jsonl", Name: "Better name"}) {
		t.Fatalf("Enter = %#v", got)
	}
	reload := sendOne(t, sp, SessionRenamed{})
	if reload != (LoadSessions{Seq: 2, Refresh: true}) {
		t.Fatalf("after the rename the picker asks for %#v", reload)
	}
	sendNone(t, sp, keyOf(tea.KeyCtrlR)) // not while the list reloads
	if v := view(sp, 120, 20); strings.Contains(v, "Rename Session") {
		t.Fatalf("renaming during a reload:\n%s", v)
	}
	renamed := testSessions()
	renamed[1].Name = "Better name"
	sendNone(t, sp, SessionsLoaded{Request: reload.(LoadSessions), Infos: renamed})
	mustContain(t, view(sp, 120, 20), "› Better name")
	sendNone(t, sp, SessionRenamed{Err: errors.New("not written")})
	mustContain(t, view(sp, 120, 20), "Failed to rename: not written")
	sendNone(t, sp, keyOf(tea.KeyUp), keyOf(tea.KeyCtrlR), keyOf(tea.KeyCtrlU), keyRunes("Mine"))
	if got := sendOne(t, sp, keyOf(tea.KeyEnter)); got != (RenameSession{Path: "/s/current.jsonl", Name: "Mine", Active: true}) {
		t.Fatalf("renaming the session in use = %#v", got)
	}
}
