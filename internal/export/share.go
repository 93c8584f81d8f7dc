package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// DefaultShareViewer is pi's session viewer; a share link is the viewer with the gist id as its
// fragment. PI_SHARE_VIEWER_URL overrides it (the caller passes it in).
const DefaultShareViewer = "https://pi.dev/session/"

// Errors of ShareGist that tell the user what to do, in pi's words.
var (
	ErrGHMissing   = errors.New("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/") //nolint:staticcheck // pi's text
	ErrGHLoggedOut = errors.New("GitHub CLI is not logged in. Run 'gh auth login' first.")                   //nolint:staticcheck // pi's text
)

// Shared is where a shared session can be seen.
type Shared struct {
	ViewerURL string // the session viewer's link
	GistURL   string // the secret gist itself
}

// CheckGH finds the GitHub CLI and checks that it is logged in (ErrGHMissing, ErrGHLoggedOut
// otherwise); it returns the command's path.
func CheckGH(ctx context.Context) (string, error) {
	gh, err := exec.LookPath("gh")
	if err != nil {
		return "", ErrGHMissing
	}
	if err := exec.CommandContext(ctx, gh, "auth", "status").Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", ErrGHLoggedOut
	}
	return gh, nil
}

// ShareGist uploads the page at htmlPath as a secret gist with the GitHub CLI gh (the path CheckGH
// returned), as pi's /share does when it shares through GitHub: `gh gist create --public=false`
// prints the gist's URL. viewerBase is the viewer URL ("" for pi's).
func ShareGist(ctx context.Context, gh, htmlPath, viewerBase string) (Shared, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, gh, "gist", "create", "--public=false", htmlPath)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return Shared{}, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return Shared{}, fmt.Errorf("Failed to create gist: %s", msg) //nolint:staticcheck // pi's text
	}
	gistURL := strings.TrimSpace(stdout.String())
	if i := strings.LastIndexByte(gistURL, '\n'); i >= 0 { // gh may print more than the URL before it
		gistURL = strings.TrimSpace(gistURL[i+1:])
	}
	id := gistURL[strings.LastIndexByte(gistURL, '/')+1:]
	if id == "" {
		return Shared{}, errors.New("Failed to parse gist ID from gh output") //nolint:staticcheck // pi's text
	}
	if viewerBase == "" {
		viewerBase = DefaultShareViewer
	}
	return Shared{ViewerURL: viewerBase + "#" + id, GistURL: gistURL}, nil
}
