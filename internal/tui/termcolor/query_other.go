//go:build !unix

package termcolor

import (
	"io"
	"os"
	"time"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Query does not ask the terminal on this platform: the appearance comes from COLORFGBG or is dark.
func Query(in *os.File, out io.Writer, timeout time.Duration) (bg, fg *theme.RGB) { return nil, nil }
