package googletest

// Pi16Answers are the scripted answers of the runs scripts/interop/record-apis records from pi 1.6.0,
// in order: the two answers of the tool run, then the image run's.
func Pi16Answers() []string {
	return []string{
		NewStream("gem_mock1", "gemini-2.5-flash", 1234).
			Chunk(Thought("**Looking around**\n\nThe user wants a summary.", "")).
			Chunk(Text("Let me look around.", "")).
			Finish("STOP", Usage{Candidates: 12, Thoughts: 20, Cached: 200},
				Call("bash", `{"command":"ls"}`, "", "c2lnbmF0dXJlLW9uZQ==")),
		NewStream("gem_mock2", "gemini-2.5-flash", 1400).
			Chunk(Thought("Done.", "")).
			Finish("STOP", Usage{Candidates: 6, Thoughts: 3},
				Text("A tiny demo project.", "c2lnbmF0dXJlLXR3bw==")),
		NewStream("gem_mock3", "gemini-2.5-flash", 900).
			Finish("STOP", Usage{Candidates: 4}, Text("A red pixel.", "")),
	}
}
