package session

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
)

// SessionsRoot is the directory holding every project's session directory: <agentDir>/sessions.
func SessionsRoot(agentDir string) string { return filepath.Join(agentDir, "sessions") }

// DefaultSessionDir is the session directory of a working directory:
// <agentDir>/sessions/--<cwd without its leading separator, with / \ : as ->--. It is not created
// here; the first write creates it.
func DefaultSessionDir(agentDir, cwd string) string {
	return filepath.Join(SessionsRoot(agentDir), EncodeCwd(cwd))
}

// EncodeCwd is the directory name pi gives a working directory's sessions ("/home/me/proj" →
// "--home-me-proj--").
func EncodeCwd(cwd string) string {
	s := cwd
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) {
		s = s[1:]
	}
	s = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(s)
	return "--" + s + "--"
}

// sessionFileName is <ISO time with : and . as ->_<id>.jsonl.
func sessionFileName(timestamp, id string) string {
	return sessionFileStamp(timestamp) + "_" + id + ".jsonl"
}

// sessionFileStamp is an ISO time as file names carry it: : and . as -.
func sessionFileStamp(timestamp string) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(timestamp)
}

// newSessionID is a UUIDv7 like pi 0.73.1's.
func newSessionID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// newEntryID is 8 hex characters of a random UUID, retried on collision; after 100 collisions a full
// UUID, as pi does.
func newEntryID(taken func(string) bool) string {
	for i := 0; i < 100; i++ {
		id := uuid.NewString()[:8]
		if !taken(id) {
			return id
		}
	}
	return uuid.NewString()
}

// clock is the time source of a Manager (tests pin it).
type clock func() time.Time
