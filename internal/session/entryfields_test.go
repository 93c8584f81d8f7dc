package session

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/pi-go/pi-go/internal/provider"
)

// Message entries share one zero entryFields; every other entry has its own, and nothing written to
// one entry shows in another.
func TestEntryFieldsShared(t *testing.T) {
	dir := t.TempDir()
	m := Create("/proj", dir)
	must := func(_ string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(m.AppendModelChange("p", "model"))
	must(m.AppendThinkingLevelChange(provider.ThinkingHigh))
	u, err := m.AppendMessage(provider.NewUserMessage("hello"))
	must(u, err)
	must(m.AppendMessage(&provider.AssistantMessage{Content: []provider.Content{provider.TextContent("hi")},
		Provider: "p", Model: "model", StopReason: provider.StopReasonStop}))
	must(m.AppendLabelChange(u, "start"))
	must(m.AppendCustomEntry("ext", map[string]int{"n": 1}))
	must(m.AppendCustomMessageEntry(&provider.CustomMessage{CustomType: "ext", Content: []provider.Content{provider.TextContent("note")}, Display: true}))
	must(m.AppendSessionInfo("name"))
	must(m.AppendCompaction("summary", u, 100, nil, false, nil))
	must(m.AppendContextEdit(u, nil))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	check := func(name string, entries []*Entry) {
		t.Helper()
		own := map[*entryFields]string{}
		for _, e := range entries {
			if e.Type == TypeMessage {
				if e.entryFields != noFields {
					t.Errorf("%s: message entry %s has fields of its own", name, e.ID)
				}
				continue
			}
			if e.entryFields == noFields || e.entryFields == nil {
				t.Errorf("%s: %s entry %s shares the message entries' fields", name, e.Type, e.ID)
			}
			if other, ok := own[e.entryFields]; ok {
				t.Errorf("%s: %s entry %s shares its fields with %s", name, e.Type, e.ID, other)
			}
			own[e.entryFields] = e.ID
		}
		if !reflect.DeepEqual(*noFields, entryFields{}) {
			t.Fatalf("%s: the shared fields of message entries were written: %+v", name, *noFields)
		}
	}
	check("appended", m.Entries())
	r, err := Open(m.SessionFile(), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	check("loaded", r.Entries())
	for _, e := range r.Entries() {
		if e.Type == TypeLabel && (e.Label != "start" || e.TargetID != u) {
			t.Fatalf("label entry read back as %+v", e.entryFields)
		}
	}
}

// An entry stays small: a long session holds one per line.
func TestEntrySize(t *testing.T) {
	if size := unsafe.Sizeof(Entry{}); size > 176 {
		t.Fatalf("Entry is %d bytes, want at most 176", size)
	}
}
