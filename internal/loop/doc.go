// Package loop is the agent loop and the Agent: it turns one prompt into as many turns as the model
// needs, runs tool batches, delivers steering and follow-up messages and honours abort. It knows no
// TUI, no vendor and no concrete tool: it sees providers through StreamFunc and tools through Tool.
//
// The loop is pi-agent-core 1.6's (agent-loop.js), step for step:
//
//	agent_start, turn_start, message_start/end for each prompt message (and a system message
//	                                                  declaring changed tools, see below)
//	pending := poll steering                          (typed while the run was starting)
//	loop (outer: follow-ups)
//	  loop while the model called tools or pending is non-empty (inner: turns)
//	    unless this is the first turn:
//	      PrepareNextTurn(previous turn)              (may compact, change state, add messages)
//	      if pending is empty: pending := poll steering   (never two in one-at-a-time mode)
//	      turn_start
//	    message_start/end for the prepared messages, then for pending, a system message declaring
//	      the tools that changed since the transcript declared them among or ahead of them
//	      (declareToolChanges)
//	    PrepareRequest(plan); stream one answer: message_start, message_update*, message_end
//	    error or aborted: FinishTurn (decision ignored), turn_end, agent_end; stop
//	    tool calls (the content is the ground truth, not the stop reason):
//	      stop reason length: none runs, each gets the "hit the output token limit" error result
//	      otherwise the batch runs (calls not started before an abort get "Operation aborted")
//	    decision := FinishTurn(turn); turn_end
//	    decision end: agent_end; stop                 (queues stay queued)
//	    pending := poll steering                      (steering never cuts a batch short)
//	  pending := poll follow-ups; if any, go on
//	  decision was continue and nothing brought a request: one request from the transcript
//	agent_end
//
// The prompt and the tool declarations live in the transcript as system messages (pi 1.6): a
// request's prompt and tools are their replay (provider.CollapseSystemMessages), the Agent's tools are
// what its calls run against.
//
// A run that fails outside the stream contract (a hook's error, a panic, no stream function) ends
// with a synthetic error message: message_start, message_end, turn_end, agent_end.
package loop
