package clipboard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTool writes an executable shell script named name into dir.
func fakeTool(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// onlyPath makes dir the whole PATH: the tools found are the fakes.
func onlyPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	return dir
}

func env(vars map[string]string) Env {
	return Env{Getenv: func(k string) string { return vars[k] }, GOOS: "linux"}
}

const xclipWithPNG = `case "$*" in
"-selection clipboard -t TARGETS -o") printf 'TARGETS\ntext/plain\nimage/jpeg\nimage/png\n' ;;
"-selection clipboard -t image/png -o") printf '\211PNG-from-xclip' ;;
*) exit 1 ;;
esac
`

func TestReadImageXclipPrefersPNG(t *testing.T) {
	dir := onlyPath(t)
	fakeTool(t, dir, "xclip", xclipWithPNG)
	img, err := ReadImage(context.Background(), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if img.MIMEType != "image/png" || string(img.Data) != "\x89PNG-from-xclip" {
		t.Errorf("image = %q %q", img.MIMEType, img.Data)
	}
}

func TestReadImageWaylandFirstAndNoFallThroughOnEmpty(t *testing.T) {
	dir := onlyPath(t)
	fakeTool(t, dir, "xclip", xclipWithPNG)
	fakeTool(t, dir, "wl-paste", `case "$*" in
"--list-types") printf 'text/plain;charset=utf-8\nUTF8_STRING\n' ;;
*) exit 1 ;;
esac
`)
	_, err := ReadImage(context.Background(), env(map[string]string{"WAYLAND_DISPLAY": "wayland-0"}))
	if !errors.Is(err, ErrNoImage) {
		t.Fatalf("err = %v, want ErrNoImage (a Wayland clipboard without an image is not read through X11)", err)
	}

	fakeTool(t, dir, "wl-paste", `case "$*" in
"--list-types") printf 'image/webp\nimage/jpeg;q=1\n' ;;
"--type image/jpeg;q=1 --no-newline") printf 'JPEGDATA' ;;
*) exit 1 ;;
esac
`)
	img, err := ReadImage(context.Background(), env(map[string]string{"XDG_SESSION_TYPE": "wayland"}))
	if err != nil {
		t.Fatal(err)
	}
	if img.MIMEType != "image/jpeg" || string(img.Data) != "JPEGDATA" {
		t.Errorf("image = %q %q", img.MIMEType, img.Data)
	}
}

func TestReadImageWaylandWithoutWlPasteUsesXclip(t *testing.T) {
	dir := onlyPath(t)
	fakeTool(t, dir, "xclip", xclipWithPNG)
	img, err := ReadImage(context.Background(), env(map[string]string{"WAYLAND_DISPLAY": "wayland-0"}))
	if err != nil || img.MIMEType != "image/png" {
		t.Fatalf("img %v err %v", img, err)
	}
}

func TestReadImageNoToolSaysWhatToInstall(t *testing.T) {
	onlyPath(t)
	_, err := ReadImage(context.Background(), env(nil))
	if !errors.Is(err, ErrNoTool) || !strings.Contains(err.Error(), "xclip") {
		t.Errorf("err = %v", err)
	}
	_, err = ReadImage(context.Background(), env(map[string]string{"WAYLAND_DISPLAY": "w"}))
	if !errors.Is(err, ErrNoTool) || !strings.Contains(err.Error(), "wl-clipboard") {
		t.Errorf("wayland err = %v", err)
	}
}

func TestReadImageUnsupportedType(t *testing.T) {
	dir := onlyPath(t)
	fakeTool(t, dir, "xclip", `case "$*" in
"-selection clipboard -t TARGETS -o") printf 'image/bmp\n' ;;
"-selection clipboard -t image/bmp -o") printf 'BM' ;;
esac
`)
	_, err := ReadImage(context.Background(), env(nil))
	if !errors.Is(err, ErrNoImage) || !strings.Contains(err.Error(), "image/bmp") {
		t.Errorf("err = %v", err)
	}
}

func TestReadImageFailingToolIsUnavailable(t *testing.T) {
	dir := onlyPath(t)
	fakeTool(t, dir, "xclip", "exit 1\n")
	if _, err := ReadImage(context.Background(), env(nil)); !errors.Is(err, ErrNoTool) {
		t.Errorf("err = %v", err)
	}
}

func TestReadText(t *testing.T) {
	dir := onlyPath(t)
	fakeTool(t, dir, "xclip", `[ "$*" = "-selection clipboard -o" ] && printf 'hello\nworld'`)
	got, err := ReadText(context.Background(), env(nil))
	if err != nil || got != "hello\nworld" {
		t.Errorf("text %q err %v", got, err)
	}
}

func TestExtension(t *testing.T) {
	for mime, want := range map[string]string{"image/png": "png", "image/jpeg": "jpg", "IMAGE/WEBP; x=1": "webp", "image/gif": "gif", "x": "png"} {
		if got := Extension(mime); got != want {
			t.Errorf("Extension(%q) = %q, want %q", mime, got, want)
		}
	}
}
