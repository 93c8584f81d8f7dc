package provider

import "sort"

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

// ResumePoints is how many of a kept conversion's resume points still hold for the transcript cur:
// those within the part prev (the transcript the points were made for) and cur share. The points
// are in ascending order; in(i) is the number of leading messages point i follows.
func ResumePoints(prev, cur []Message, points int, in func(i int) int) int {
	k := SharedPrefix(prev, cur)
	return sort.Search(points, func(i int) bool { return in(i) > k })
}

// UserCursor walks the user messages of a transcript being converted from some position on, for the
// converters that make a resume point after each user message they write: TransformMessages keeps
// every user message, in order, so the k-th one a converter writes is the k-th of the transcript.
type UserCursor struct {
	msgs []Message
	next int
}

// NewUserCursor starts at position from of msgs.
func NewUserCursor(msgs []Message, from int) UserCursor { return UserCursor{msgs: msgs, next: from} }

// Next is the position just after the next user message.
func (c *UserCursor) Next() int {
	for c.next < len(c.msgs) {
		c.next++
		if _, ok := c.msgs[c.next-1].(*UserMessage); ok {
			break
		}
	}
	return c.next
}
