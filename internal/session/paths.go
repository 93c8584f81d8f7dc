package session

import (
	"strings"
	"time"

	"github.com/google/uuid"
)

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
