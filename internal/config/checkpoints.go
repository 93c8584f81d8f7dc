package config

import "time"

// CheckpointLimitSettings are checkpointLimits, pi-go's own key (pi ignores it): the bounds of the
// rewind store. An unset value takes the default; 0 means no limit.
type CheckpointLimitSettings struct {
	// MaxAgeDays: checkpoints older than this are pruned (default 30).
	MaxAgeDays *float64 `json:"maxAgeDays,omitempty"`
	// MaxStoreMB: a project's store above this size loses its oldest checkpoints (default 1024).
	MaxStoreMB *float64 `json:"maxStoreMB,omitempty"`
	// MaxFileMB: files larger than this are left out of snapshots (default 10).
	MaxFileMB *float64 `json:"maxFileMB,omitempty"`
}

// Defaults of checkpointLimits.
const (
	DefaultCheckpointMaxAgeDays = 30
	DefaultCheckpointMaxStoreMB = 1024
	DefaultCheckpointMaxFileMB  = 10
)

// CheckpointsEnabled is checkpoints, pi-go's own key (default true): per-turn snapshots of the
// working tree for rewind.
func (s Settings) CheckpointsEnabled() bool { return s.Checkpoints == nil || *s.Checkpoints }

// CheckpointMaxAge is checkpointLimits.maxAgeDays as a duration; -1 means no limit.
func (s Settings) CheckpointMaxAge() time.Duration {
	days := limitOr(s.CheckpointLimits.MaxAgeDays, DefaultCheckpointMaxAgeDays)
	if days <= 0 {
		return -1
	}
	return time.Duration(days * float64(24*time.Hour))
}

// CheckpointMaxStoreSize is checkpointLimits.maxStoreMB in bytes; -1 means no limit.
func (s Settings) CheckpointMaxStoreSize() int64 {
	return megabytes(limitOr(s.CheckpointLimits.MaxStoreMB, DefaultCheckpointMaxStoreMB))
}

// CheckpointMaxFileSize is checkpointLimits.maxFileMB in bytes; -1 means no limit.
func (s Settings) CheckpointMaxFileSize() int64 {
	return megabytes(limitOr(s.CheckpointLimits.MaxFileMB, DefaultCheckpointMaxFileMB))
}

func limitOr(v *float64, def float64) float64 {
	if v == nil {
		return def
	}
	return *v
}

func megabytes(mb float64) int64 {
	if mb <= 0 {
		return -1
	}
	return int64(mb * (1 << 20))
}
