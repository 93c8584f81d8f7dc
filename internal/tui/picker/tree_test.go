package picker

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// chainTree is a session of n questions and answers, and the ids of its entries in order.
func chainTree(t *testing.T, n int) (*session.Manager, []string) {
	t.Helper()
	store := session.InMemory(t.TempDir())
	var ids []string
	for i := 0; i < n; i++ {
		for _, msg := range []provider.Message{
			&provider.UserMessage{Content: []provider.Content{provider.TextContent("question " + itoa(i))}, Timestamp: time.Now().UnixMilli()},
			&provider.AssistantMessage{Content: []provider.Content{provider.TextContent("answer " + itoa(i))},
				StopReason: provider.StopReasonStop, Timestamp: time.Now().UnixMilli()},
		} {
			id, err := store.AppendMessage(msg)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
	}
	return store, ids
}

func treeOf(store *session.Manager, selected string) *Tree {
	return NewTree(testRenderer(), store.Tree(), store.LeafID(), store.Path(""), selected)
}

func TestTreeChoosesAnEntry(t *testing.T) {
	store, ids := chainTree(t, 2)
	tr := treeOf(store, "")
	mustContain(t, view(tr, 100, 20), "Session Tree", "• user: question 0", "› • assistant: answer 1 ← active", "(4/4)")
	if got := sendOne(t, tr, keyOf(tea.KeyEnter)); got != (EntryChosen{ID: ids[3]}) {
		t.Fatalf("Enter = %#v", got)
	}
	if got := sendOne(t, tr, keyOf(tea.KeyUp), keyOf(tea.KeyUp), keyOf(tea.KeyEnter)); got != (EntryChosen{ID: ids[1]}) {
		t.Fatalf("Up Up Enter = %#v", got)
	}
	if got := sendOne(t, treeOf(store, ids[0]), keyOf(tea.KeyEnter)); got != (EntryChosen{ID: ids[0]}) {
		t.Fatalf("opened on an entry, Enter = %#v", got)
	}
}

func TestTreeEscapeClearsTheSearchFirst(t *testing.T) {
	store, ids := chainTree(t, 2)
	tr := treeOf(store, "")
	sendNone(t, tr, typing("question 0")...)
	v := view(tr, 100, 20)
	mustContain(t, v, "Search: question 0", "user: question 0")
	if strings.Contains(v, "answer 1") {
		t.Fatalf("the search did not filter:\n%s", v)
	}
	if got := sendOne(t, tr, keyOf(tea.KeyEnter)); got != (EntryChosen{ID: ids[0]}) {
		t.Fatalf("Enter on the match = %#v", got)
	}
	sendNone(t, tr, keyOf(tea.KeyEsc))
	mustContain(t, view(tr, 100, 20), "answer 1")
	if got := sendOne(t, tr, keyOf(tea.KeyEsc)); got != (Cancelled{}) {
		t.Fatalf("Escape = %#v", got)
	}
}

// A label is shown once its owner says it was saved.
func TestTreeLabelIsAskedForThenShown(t *testing.T) {
	store, ids := chainTree(t, 1)
	tr := treeOf(store, "")
	sendNone(t, tr, keyRunes("L"))
	mustContain(t, view(tr, 100, 20), "Label (empty to remove):")
	sendNone(t, tr, typing(" keep  this ")...)
	if got := sendOne(t, tr, keyOf(tea.KeyEnter)); got != (SetLabel{ID: ids[1], Label: "keep this"}) {
		t.Fatalf("Enter = %#v", got)
	}
	if v := view(tr, 100, 20); strings.Contains(v, "[keep this]") || strings.Contains(v, "Label (empty") {
		t.Fatalf("the label is shown before it was saved, or the field is still open:\n%s", v)
	}
	sendNone(t, tr, LabelSaved{ID: ids[1], Label: "keep this"})
	mustContain(t, view(tr, 100, 20), "[keep this] assistant: answer 0")
	sendNone(t, tr, keyRunes("T"))
	if v := view(tr, 100, 20); !strings.Contains(v, "[+label time]") || !regexp.MustCompile(`\[keep this\] \d\d:\d\d assistant`).MatchString(v) {
		t.Fatalf("Shift+T does not show the label's time:\n%s", v)
	}
	sendNone(t, tr, keyOf(tea.KeyCtrlL))
	mustContain(t, view(tr, 100, 20), "[labeled]", "(1/1)")
}

// The page keys move by the rows the tree shows in the room its owner gave it.
func TestTreePagesBySize(t *testing.T) {
	store, ids := chainTree(t, 10)
	tr := treeOf(store, ids[0])
	sendNone(t, tr, Size{Width: 100, Rows: 14}, keyOf(tea.KeyRight)) // 8 rows of entries
	if got := sendOne(t, tr, keyOf(tea.KeyEnter)); got != (EntryChosen{ID: ids[8]}) {
		t.Fatalf("a page down from the first entry chose %#v", got)
	}
	sendNone(t, tr, Size{Width: 100, Rows: 9}, keyOf(tea.KeyLeft)) // the minimum: 3 rows
	if got := sendOne(t, tr, keyOf(tea.KeyEnter)); got != (EntryChosen{ID: ids[5]}) {
		t.Fatalf("a page up chose %#v", got)
	}
	if n := len(tr.View(100, 14)); n != 14 {
		t.Fatalf("the tree takes %d rows of 14", n)
	}
}

// pi 1.6's new entries in the tree: a context edit is bookkeeping, shown only with every entry
// (ctrl+a) as "[context omit: <target>]"; a usage entry is never shown.
func TestTreeShowsContextEditsAndHidesUsage(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/s.jsonl"
	lines := `{"type":"session","version":3,"id":"00000000-0000-7000-8000-000000000001","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/tmp"}
{"type":"message","id":"00000001","parentId":null,"timestamp":"2026-01-02T03:04:06.000Z","message":{"role":"user","content":"question","timestamp":1}}
{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-01-02T03:04:07.000Z","message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","errorMessage":"boom","timestamp":2}}
{"type":"context_edit","id":"00000003","parentId":"00000002","timestamp":"2026-01-02T03:04:08.000Z","targetId":"00000002","replacement":null}
{"type":"usage","id":"00000004","parentId":"00000003","timestamp":"2026-01-02T03:04:09.000Z","kind":"cache_warm","provider":"p","model":"m","usage":{"input":5,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":5,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}
{"type":"message","id":"00000005","parentId":"00000004","timestamp":"2026-01-02T03:04:10.000Z","message":{"role":"user","content":"again","timestamp":3}}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := session.Open(path, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	tr := treeOf(store, "")
	v := view(tr, 100, 20)
	mustContain(t, v, "user: question", "user: again")
	if strings.Contains(v, "context") || strings.Contains(v, "usage") {
		t.Fatalf("default view shows bookkeeping:\n%s", v)
	}
	sendNone(t, tr, keyOf(tea.KeyCtrlA))
	v = view(tr, 100, 20)
	mustContain(t, v, "[context omit: 00000002]")
	if strings.Contains(v, "cache_warm") || strings.Contains(v, "usage") {
		t.Fatalf("a usage entry is shown:\n%s", v)
	}
}
