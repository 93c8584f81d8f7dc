package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLogBytes is the size past which mcp.log moves to mcp.log.1 (pi's 5 MB).
const maxLogBytes = 5 << 20

// serverLog appends servers' logging notifications to mcp.log as pi does:
// "<time> [<server>] <level> <logger>: <message>". Write errors are ignored: logging must never
// break a tool call.
type serverLog struct {
	mu   sync.Mutex
	path string
}

func newServerLog(agentDir string) *serverLog {
	if agentDir == "" {
		return &serverLog{}
	}
	return &serverLog{path: filepath.Join(agentDir, "mcp.log")}
}

// formatLogLine is one notification as a log line; continuation lines are indented.
func formatLogLine(server string, p *sdk.LoggingMessageParams, now time.Time) string {
	level := string(p.Level)
	if level == "" {
		level = "info"
	}
	logger := ""
	if p.Logger != "" {
		logger = " " + p.Logger + ":"
	}
	var text string
	if s, ok := p.Data.(string); ok {
		text = s
	} else if data, err := json.Marshal(p.Data); err == nil {
		text = string(data)
	} else {
		text = fmt.Sprint(p.Data)
	}
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\n    ")
	return fmt.Sprintf("%s [%s] %s%s %s\n", now.UTC().Format("2006-01-02T15:04:05.000Z"), server, level, logger, text)
}

func (l *serverLog) write(server string, p *sdk.LoggingMessageParams) {
	if l == nil || l.path == "" || p == nil {
		return
	}
	line := formatLogLine(server, p, time.Now())
	l.mu.Lock()
	defer l.mu.Unlock()
	if info, err := os.Stat(l.path); err == nil && info.Size() > maxLogBytes {
		_ = os.Rename(l.path, l.path+".1")
	}
	_ = os.MkdirAll(filepath.Dir(l.path), 0o755)
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(line)
	_ = f.Close()
}
