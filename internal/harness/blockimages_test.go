package harness

import (
	"context"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/provider"
)

func TestBlockImagesReplacesImagesInTheRequestOnly(t *testing.T) {
	settings := config.InMemorySettings(config.Settings{})
	vision := *testModel
	vision.Input = []string{"text", "image"}
	f := newFixture(t, []scriptedTurn{textTurn("one"), textTurn("two")}, func(o *Options) {
		o.Settings = settings
		o.Model = &vision
	})
	img := provider.ImageContent("iVBORw0KGgo=", "image/png")
	if err := f.s.Prompt(context.Background(), "look", []provider.Content{img, img}, BehaviorSteer); err != nil {
		t.Fatal(err)
	}
	if err := settings.Set("images.blockImages", true); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(context.Background(), "again", nil, BehaviorSteer); err != nil {
		t.Fatal(err)
	}
	count := func(req *provider.Request) (images int, texts []string) {
		u := req.Messages[0].(*provider.UserMessage)
		for _, c := range u.Content {
			if c.Type == provider.ContentImage {
				images++
			} else {
				texts = append(texts, c.Text)
			}
		}
		return images, texts
	}
	if n, _ := count(f.script.requests[0]); n != 2 {
		t.Errorf("first request: %d images, want 2", n)
	}
	n, texts := count(f.script.requests[1])
	if n != 0 || len(texts) != 2 || texts[1] != imagesBlockedText {
		t.Errorf("with blockImages: %d images, texts %q", n, texts)
	}
	// The session keeps the images.
	for _, m := range f.s.Messages() {
		if u, ok := m.(*provider.UserMessage); ok {
			if !hasImage(u.Content) {
				t.Error("the session's message lost its images")
			}
			break
		}
	}
}
