//go:build !linux

package filewatch

import (
	"context"
	"errors"
)

// ErrUnsupported: this platform has no file watch; changes are seen at the next /reload.
var ErrUnsupported = errors.New("file watching is not supported on this platform")

// Watch is not available here.
func Watch(ctx context.Context, path string) (<-chan struct{}, error) { return nil, ErrUnsupported }
