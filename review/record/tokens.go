package record

import (
	"encoding/json"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm/wire"
	"github.com/reviewdev/review/tools"
)

// ToolTokens is c's count of what a request carries besides its messages:
// the tool definitions as sent (their wire JSON, each wrapped as a
// function tool), counted once, and the tokens that start the reply.
// Every count of a request (the plan, the loop's stop line, the step
// figures, replay) adds them this way; counting the definitions without
// what goes out with them put every figure below the request.
func ToolTokens(c *conversation.Counter, defs []tools.Definition) int {
	if len(defs) == 0 {
		return 0
	}
	sent := make([]wire.Tool, len(defs))
	for i, d := range defs {
		sent[i] = wire.FromDefinition(d)
	}
	b, err := json.Marshal(sent)
	if err != nil {
		return 0
	}
	return c.Count(string(b)) + replyPriming
}

// replyPriming are the tokens a chat request adds to start the reply.
const replyPriming = 3
