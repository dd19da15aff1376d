package record

import (
	"encoding/json"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/tools"
)

// ToolTokens is c's count of tool definitions as a request carries them:
// their JSON, counted once. Every count of a request (the plan, the loop's
// stop line, the step figures, replay) adds the tools this way.
func ToolTokens(c *conversation.Counter, defs []tools.Definition) int {
	if len(defs) == 0 {
		return 0
	}
	b, err := json.Marshal(defs)
	if err != nil {
		return 0
	}
	return c.Count(string(b))
}
