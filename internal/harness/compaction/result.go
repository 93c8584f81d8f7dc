package compaction

// Result is what a compaction produced, for the compaction entry and the compaction_end event (pi's
// CompactionResult; JSON as pi writes it).
type Result struct {
	Summary          string  `json:"summary"`
	FirstKeptEntryID string  `json:"firstKeptEntryId"`
	TokensBefore     int     `json:"tokensBefore"`
	Details          Details `json:"details"`
}

// Details lists the files the compacted history read and modified (the compaction entry's details).
// Both lists are non-nil, so they are written as [] when empty.
type Details struct {
	ReadFiles     []string `json:"readFiles"`
	ModifiedFiles []string `json:"modifiedFiles"`
}
