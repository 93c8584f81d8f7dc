package provider

// SharedPrefix is how many leading messages a and b share: the same messages, not merely equal ones.
// A transcript holds pointers to messages that are not changed once they are in it (an edit, a
// compaction or a branch switch puts new messages there), so the providers that keep the previous
// request's converted messages know by it how much of that conversion still holds.
func SharedPrefix(a, b []Message) int {
	k := 0
	for k < len(a) && k < len(b) && sameMessage(a[k], b[k]) {
		k++
	}
	return k
}

func sameMessage(a, b Message) bool {
	switch a := a.(type) {
	case *UserMessage:
		b, ok := b.(*UserMessage)
		return ok && a == b
	case *AssistantMessage:
		b, ok := b.(*AssistantMessage)
		return ok && a == b
	case *ToolResultMessage:
		b, ok := b.(*ToolResultMessage)
		return ok && a == b
	}
	// Other roles are not sent; telling them apart is not worth the trouble.
	return false
}
