package provider

import "testing"

// TestSharedPrefixCountsTheSameMessages: an equal message in another place is not the same message.
func TestSharedPrefixCountsTheSameMessages(t *testing.T) {
	u := NewUserMessage("a")
	a := &AssistantMessage{Content: []Content{TextContent("b")}}
	r := &ToolResultMessage{ToolCallID: "c"}
	copyOfA := *a
	for _, tc := range []struct {
		a, b []Message
		want int
	}{
		{[]Message{u, a, r}, []Message{u, a, r}, 3},
		{[]Message{u, a, r}, []Message{u, a}, 2},
		{[]Message{u, a, r}, []Message{u, &copyOfA, r}, 1},
		{[]Message{u, a}, []Message{a, u}, 0},
		{nil, []Message{u}, 0},
	} {
		if got := SharedPrefix(tc.a, tc.b); got != tc.want {
			t.Errorf("SharedPrefix = %d, want %d", got, tc.want)
		}
	}
}
