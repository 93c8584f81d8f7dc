package export

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeGH puts a gh on PATH (and nothing else) that answers auth status with authExit and gist
// create by copying the file to uploaded and printing a gist URL, or failing with stderr.
func fakeGH(t *testing.T, authExit int, createStderr string) (uploaded string) {
	t.Helper()
	dir := t.TempDir()
	uploaded = filepath.Join(dir, "uploaded.html")
	create := `cp "$4" ` + uploaded + ` && echo "- Creating gist session.html" >&2 && echo https://gist.github.com/someone/0123abcd`
	if createStderr != "" {
		create = `echo "` + createStderr + `" >&2; exit 1`
	}
	script := "#!/bin/sh\n" +
		`if [ "$1 $2" = "auth status" ]; then exit ` + strconv.Itoa(authExit) + "; fi\n" +
		`if [ "$1 $2 $3" = "gist create --public=false" ]; then ` + create + "; exit 0; fi\n" +
		"echo unexpected \"$@\" >&2; exit 2\n"
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"/bin:/usr/bin")
	return uploaded
}

func writePage(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "session.html")
	if err := os.WriteFile(path, []byte("<!DOCTYPE html><p>hi</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkedGH is the gh CheckGH finds, failing the test when it finds none.
func checkedGH(t *testing.T) string {
	t.Helper()
	gh, err := CheckGH(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return gh
}

func TestShareGistUploadsASecretGist(t *testing.T) {
	uploaded := fakeGH(t, 0, "")
	gh := checkedGH(t)
	got, err := ShareGist(t.Context(), gh, writePage(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if got.GistURL != "https://gist.github.com/someone/0123abcd" || got.ViewerURL != "https://pi.dev/session/#0123abcd" {
		t.Fatalf("shared %+v", got)
	}
	if data, _ := os.ReadFile(uploaded); string(data) != "<!DOCTYPE html><p>hi</p>" {
		t.Fatalf("uploaded %q", data)
	}
	got, err = ShareGist(t.Context(), gh, writePage(t), "http://viewer.test/s")
	if err != nil || got.ViewerURL != "http://viewer.test/s#0123abcd" {
		t.Fatalf("viewer override: %+v %v", got, err)
	}
}

func TestShareGistSaysWhatToDo(t *testing.T) {
	fakeGH(t, 1, "")
	if _, err := CheckGH(t.Context()); !errors.Is(err, ErrGHLoggedOut) || !strings.Contains(err.Error(), "gh auth login") {
		t.Fatalf("logged out: %v", err)
	}
	fakeGH(t, 0, "HTTP 422: quota")
	if _, err := ShareGist(t.Context(), checkedGH(t), writePage(t), ""); err == nil || err.Error() != "Failed to create gist: HTTP 422: quota" {
		t.Fatalf("create failure: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := CheckGH(t.Context()); !errors.Is(err, ErrGHMissing) || !strings.Contains(err.Error(), "https://cli.github.com/") {
		t.Fatalf("no gh: %v", err)
	}
}
