package responsestest

// Pi16Answers are the scripted answers of the runs scripts/interop/record-apis records from pi 1.6.0,
// in order: the two answers of the tool run, then the image run's.
func Pi16Answers() []string {
	return []string{
		NewStream("resp_mock1", "mock-resp").
			Reasoning("rs_mock1", "gAAAAABmockEncryptedOne==", "**Looking around**\n\n", "The user wants a summary.").
			Message("msg_mock1", "", "Let me ", "look around.").
			FunctionCall("fc_mock1", "call_mock1", "bash", `{"command":`, `"ls"}`).
			Completed(Usage{Input: 1234, Cached: 200, Output: 57, Reasoning: 20}),
		NewStream("resp_mock2", "mock-resp").
			Reasoning("rs_mock2", "gAAAAABmockEncryptedTwo==", "Done.").
			Message("msg_mock2", "final_answer", "A tiny ", "demo project.").
			Completed(Usage{Input: 1400, Cached: 1200, Output: 30, Reasoning: 8}),
		NewStream("resp_mock3", "mock-resp").
			Message("msg_mock3", "", "A red pixel.").
			Completed(Usage{Input: 900, Output: 5}),
	}
}
