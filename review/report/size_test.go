package report

import (
	"testing"

	"github.com/reviewdev/review/conversation"
)

// TestSizeCountsCharacters holds replay's sizes to characters, as pruning
// and --history-chars count them, not bytes.
func TestSizeCountsCharacters(t *testing.T) {
	c, err := conversation.NewCounter("", conversation.Estimate)
	if err != nil {
		t.Fatal(err)
	}
	m := conversation.Message{Role: conversation.Assistant, Content: "héllo wörld",
		ToolCalls: []conversation.ToolCall{{Name: "read_file_hunk", Arguments: `{"path":"ü.go"}`}}}
	if chars, _ := size(c, m); chars != 11+14+15 {
		t.Errorf("size = %d chars, want %d", chars, 11+14+15)
	}
}
