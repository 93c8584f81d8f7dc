package export

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/session"
)

// WriteJSONL writes the active branch as a pi session file, as pi's /export file.jsonl does: a
// header with the session's id and working directory stamped now, then the entries from the root to
// the leaf exactly as they are in the session file. On a branch each entry's parent is the one
// before it, so the lines need no change and every field pi-go does not know survives.
func WriteJSONL(w io.Writer, src Source, now time.Time) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	h := []byte(`{"type":"session","version":`)
	h = strconv.AppendInt(h, session.CurrentVersion, 10)
	h = append(h, `,"id":`...)
	h = jsonx.AppendString(h, src.Header.ID)
	h = append(h, `,"timestamp":`...)
	h = jsonx.AppendString(h, now.UTC().Format("2006-01-02T15:04:05.000Z"))
	h = append(h, `,"cwd":`...)
	h = jsonx.AppendString(h, src.Header.Cwd)
	h = append(h, "}\n"...)
	bw.Write(h)
	for _, e := range src.branch() {
		line, err := e.Raw()
		if err != nil {
			return fmt.Errorf("reading entry %s: %w", e.ID, err)
		}
		bw.Write(line)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the JSONL export: %w", err)
	}
	return nil
}
