package harness

import "github.com/pi-go/pi-go/internal/provider"

// imagesBlockedText replaces each image when images.blockImages is set (pi's words).
const imagesBlockedText = "Image reading is disabled."

// withoutImages is messages with every image of a user message or tool result replaced by pi's
// text (one text for a run of images), for images.blockImages: nothing of an image reaches the
// provider. Messages without images are shared; the others are copied, so the session keeps its
// images.
func withoutImages(messages []provider.Message) []provider.Message {
	var out []provider.Message
	for i, msg := range messages {
		var content []provider.Content
		switch m := msg.(type) {
		case *provider.UserMessage:
			content = m.Content
		case *provider.ToolResultMessage:
			content = m.Content
		}
		if !hasImage(content) {
			if out != nil {
				out = append(out, msg)
			}
			continue
		}
		if out == nil {
			out = append(make([]provider.Message, 0, len(messages)), messages[:i]...)
		}
		replaced := replaceImages(content)
		switch m := msg.(type) {
		case *provider.UserMessage:
			c := *m
			c.Content, c.ContentIsString = replaced, false
			out = append(out, &c)
		case *provider.ToolResultMessage:
			c := *m
			c.Content = replaced
			out = append(out, &c)
		}
	}
	if out == nil {
		return messages
	}
	return out
}

func hasImage(content []provider.Content) bool {
	for _, c := range content {
		if c.Type == provider.ContentImage {
			return true
		}
	}
	return false
}

func replaceImages(content []provider.Content) []provider.Content {
	out := make([]provider.Content, 0, len(content))
	for _, c := range content {
		if c.Type == provider.ContentImage {
			if n := len(out); n > 0 && out[n-1].Type == provider.ContentText && out[n-1].Text == imagesBlockedText {
				continue
			}
			c = provider.TextContent(imagesBlockedText)
		}
		out = append(out, c)
	}
	return out
}
