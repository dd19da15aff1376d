package conversation

// Role is who speaks a message.
type Role string

// Roles as used by chat-completion style APIs.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
	Tool      Role = "tool"
)

// Layer is the part of the context a message belongs to. Layers decide what
// pruning may touch: static never, the current loop never, summary and window
// before each loop starts.
type Layer string

// The context layers, in the order they appear in a request.
const (
	Static  Layer = "static"
	Summary Layer = "summary"
	Window  Layer = "window"
	Loop    Layer = "loop"
)

// Message is one message of a conversation.
type Message struct {
	// ID is stable for the life of the conversation, so prune events can
	// name the messages they dropped.
	ID         string     `json:"id,omitempty"`
	Role       Role       `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Name is the tool name on a tool result.
	Name  string `json:"name,omitempty"`
	Layer Layer  `json:"layer"`
	// Turn numbers user turns from 1; static messages are turn 0.
	Turn int `json:"turn"`
	// Ref is the tool-memory reference of the full output behind a tool
	// result's preview, if it was stored.
	Ref string `json:"ref,omitempty"`
	// Hunks marks a user message that carries a unit's hunks: diff
	// context, though it opens the unit's loop.
	Hunks bool `json:"hunks,omitempty"`
	// Learnings marks the static layer's system message that holds the
	// team's learnings: replay shows it as a layer of its own.
	Learnings bool `json:"learnings,omitempty"`

	// Pruning marks. The pruner changes earlier turns only by stubbing a
	// tool result, capping an oversized message, or dropping a whole turn
	// (which then lives on in the summary); each is recorded in an event.
	Stubbed bool `json:"stubbed,omitempty"`
	Capped  bool `json:"capped,omitempty"`
	Dropped bool `json:"dropped,omitempty"`
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
