package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/resources"
)

// deployExtension is an extension command that completes its argument from a list and records the
// arguments it runs with.
type deployExtension struct {
	ran chan string
}

func (d *deployExtension) Commands() []harness.ExtensionCommand {
	return []harness.ExtensionCommand{{Name: "deploy", Description: "Deploy somewhere",
		Complete: func(_ context.Context, prefix string) ([]resources.ArgumentCompletion, error) {
			var out []resources.ArgumentCompletion
			for _, env := range []string{"production", "preview", "staging"} {
				if strings.HasPrefix(env, prefix) {
					out = append(out, resources.ArgumentCompletion{Value: env, Description: "to " + env})
				}
			}
			return out, nil
		}}}
}

func (d *deployExtension) RunCommand(_ context.Context, name, args string) (bool, error) {
	d.ran <- name + " " + args
	return true, nil
}

func (d *deployExtension) Input(context.Context, harness.InputEvent) (harness.InputResult, error) {
	return harness.InputResult{Action: harness.InputContinue}, nil
}

// After "/deploy " the command's own suggestions are listed; Tab takes the selected one and Enter
// runs the command with it.
func TestExtensionCommandArgumentCompletion(t *testing.T) {
	ext := &deployExtension{ran: make(chan string, 1)}
	sess := newTestSessionWith(t, newScript(), nil, func(o *harness.Options) { o.Extensions = ext })
	u := startUI(t, sess, Options{})
	u.typeText("/deploy pr")
	u.waitScreen("the suggestions", contains("production", "to production", "preview"))
	u.key(tea.KeyDown)
	u.key(tea.KeyTab)
	u.waitEditor("/deploy preview")
	u.key(tea.KeyEnter)
	select {
	case ran := <-ext.ran:
		if ran != "deploy preview" {
			t.Errorf("ran %q", ran)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not run")
	}
}
