package compaction

import "github.com/pi-go/pi-go/internal/provider"

// Result is what a compaction produced, for the compaction entry, the compaction_end event and RPC's
// compact (pi's CompactionResult; JSON as pi 1.6 writes it).
type Result struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	TokensBefore     int    `json:"tokensBefore"`
	// EstimatedTokensAfter estimates the messages of the context the compaction left (pi 1.6); the
	// harness sets it once it has rebuilt that context.
	EstimatedTokensAfter int `json:"estimatedTokensAfter"`
	// Usage is what the summary requests cost (pi 1.6), both of a split turn's added up.
	Usage   provider.Usage `json:"usage"`
	Details Details        `json:"details"`
}

// Details lists the files the compacted history read and modified (the compaction entry's details).
// Both lists are non-nil, so they are written as [] when empty.
type Details struct {
	ReadFiles     []string `json:"readFiles"`
	ModifiedFiles []string `json:"modifiedFiles"`
}
