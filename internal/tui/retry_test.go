package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/harness"
)

// linesWith counts the lines of text that contain part.
func linesWith(text, part string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, part) {
			n++
		}
	}
	return n
}

// A retry chain is one status line that updates (attempt, countdown, reason); the failed attempts
// print no error lines.
func TestRetryIsOneUpdatingStatusLine(t *testing.T) {
	waiting := make(chan struct{}, 4)
	release := make(chan struct{})
	sc := newScript(errorTurn("503 Service Unavailable: upstream busy"), errorTurn("503 Service Unavailable: still busy"),
		textTurn("Recovered."))
	sess := newTestSessionWith(t, sc, nil, func(o *harness.Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			waiting <- struct{}{}
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
	u := startUI(t, sess, Options{})
	u.submit("hello")
	<-waiting
	screen := u.waitScreen("the first retry", contains("Retrying (1/3) in", "escape to cancel", "503 Service Unavailable: upstream busy"))
	if all := strings.Join(u.vt.AllLines(), "\n"); strings.Contains(all, "Error:") {
		t.Fatalf("a failed attempt printed an error line:\n%s", all)
	}
	release <- struct{}{}
	<-waiting
	screen = u.waitScreen("the second retry", contains("Retrying (2/3) in", "503 Service Unavailable: still busy"))
	if n := linesWith(screen, "Retrying"); n != 1 || strings.Contains(screen, "upstream busy") {
		t.Fatalf("%d retry lines, or the first attempt's still shown:\n%s", n, screen)
	}
	release <- struct{}{}
	all := u.waitAll("the answer", contains("Recovered."))
	u.waitScreen("no retry status", func(s string) bool { return !strings.Contains(s, "Retrying") })
	all = strings.Join(u.vt.AllLines(), "\n")
	if strings.Contains(all, "Service Unavailable") || strings.Contains(all, "Error:") {
		t.Fatalf("the retried errors left lines behind:\n%s", all)
	}
}

// A chain that runs out of attempts ends in one error line naming the last error, not one per
// attempt plus a summary.
func TestFailedRetryChainEndsInOneErrorLine(t *testing.T) {
	sc := newScript(errorTurn("503 busy"), errorTurn("503 busy"), errorTurn("503 busy"), errorTurn("503 busy"))
	sess := newTestSessionWith(t, sc, nil, func(o *harness.Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	})
	u := startUI(t, sess, Options{})
	u.submit("hello")
	all := u.waitAll("the final error", contains("Retry failed after 3 attempts: 503 busy"))
	u.waitScreen("the run to end", func(s string) bool { return !strings.Contains(s, "Working") && !strings.Contains(s, "Retrying") })
	all = strings.Join(u.vt.AllLines(), "\n")
	if n := linesWith(all, "503 busy"); n != 1 || sc.requestCount() != 4 {
		t.Fatalf("%d lines name the error after %d requests:\n%s", n, sc.requestCount(), all)
	}
}

// An error that is not retried is shown as it always was.
func TestErrorWithoutRetryIsShown(t *testing.T) {
	sc := newScript(errorTurn("401 Incorrect API key provided"))
	u := startUI(t, newTestSession(t, sc, nil), Options{})
	u.submit("hello")
	u.waitAll("the error", contains("Error: 401 Incorrect API key provided"))
	u.waitScreen("the run to end", func(s string) bool { return !strings.Contains(s, "Working") })
	if all := strings.Join(u.vt.AllLines(), "\n"); linesWith(all, "Incorrect API key") != 1 || strings.Contains(all, "Retry failed") {
		t.Fatalf("screen:\n%s", all)
	}
}
