package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/tools"
)

// unHTML undoes json.Marshal's HTML escapes.
var unHTML = strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")

// goOpenAI is the request as go-openai's types encoded it, which runs
// recorded before this package were sent with: the bytes must not change
// but for <, > and &, which go-openai escapes as in HTML and Encode sends
// as they are.
type goOpenAI struct {
	Model               string                         `json:"model"`
	Messages            []openai.ChatCompletionMessage `json:"messages"`
	Tools               []openai.Tool                  `json:"tools,omitempty"`
	ToolChoice          any                            `json:"tool_choice,omitempty"`
	Temperature         *float32                       `json:"temperature,omitempty"`
	MaxTokens           int                            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                            `json:"max_completion_tokens,omitempty"`
	Stream              bool                           `json:"stream,omitempty"`
	StreamOptions       *openai.StreamOptions          `json:"stream_options,omitempty"`
}

func TestEncodingIsGoOpenAIs(t *testing.T) {
	zero := float32(0)
	defs := []tools.Definition{
		{Name: "read_file", Description: "Read <a> & file.", Strict: true, Parameters: json.RawMessage("{\n \"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}}")},
		{Name: "list_files"},
	}
	msgs := []conversation.Message{
		{Role: conversation.System, Content: "You review code <b>&amp;</b> \u2028 \xff."},
		{Role: conversation.User, Content: ""},
		{Role: conversation.Assistant, ToolCalls: []conversation.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"<x>.go"}`}, {ID: "c2", Name: "list_files"}}},
		{Role: conversation.Tool, ToolCallID: "c1", Name: "read_file", Content: "package x\n"},
		{Role: conversation.Tool, ToolCallID: "c2", Name: "list_files"},
		{Role: conversation.Assistant, Content: "Done.", ToolCalls: []conversation.ToolCall{{ID: "c3", Name: "submit_review", Arguments: "{}"}}},
	}
	for _, choice := range []string{"", "required", "read_file"} {
		ours := Request{Model: "m", Temperature: &zero, MaxTokens: 100, Stream: true, StreamOptions: &StreamOptions{IncludeUsage: true}}
		theirs := goOpenAI{Model: "m", Temperature: &zero, MaxTokens: 100, Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true}}
		for i, m := range msgs {
			w := FromMessage(m)
			if i == 2 {
				w.ReasoningContent = "thinking"
			}
			ours.Messages = append(ours.Messages, w)
			o := openai.ChatCompletionMessage{Role: w.Role, Content: w.Content, ReasoningContent: w.ReasoningContent, ToolCallID: w.ToolCallID}
			for _, tc := range w.ToolCalls {
				o.ToolCalls = append(o.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
			}
			theirs.Messages = append(theirs.Messages, o)
		}
		for _, d := range defs {
			w := FromDefinition(d)
			ours.Tools = append(ours.Tools, w)
			theirs.Tools = append(theirs.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
				Name: w.Function.Name, Description: w.Function.Description, Strict: w.Function.Strict, Parameters: w.Function.Parameters}})
		}
		tc, err := ToolChoice(choice, defs)
		if err != nil {
			t.Fatal(err)
		}
		ours.ToolChoice = tc
		switch choice {
		case "":
			theirs.ToolChoice = "auto"
		case "required":
			theirs.ToolChoice = choice
		default:
			theirs.ToolChoice = openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: choice}}
		}
		got, err := ours.Encode()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(theirs)
		if err != nil {
			t.Fatal(err)
		}
		want = []byte(unHTML.Replace(string(want)))
		if !bytes.Equal(got, want) {
			t.Errorf("tool choice %q: encoded\n%s\ngo-openai encodes\n%s", choice, got, want)
		}
		back, err := DecodeRequest(got)
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Conversation()) != len(msgs) || len(back.Definitions()) != len(defs) || back.Definitions()[0].Name != "read_file" {
			t.Errorf("decoded %+v", back)
		}
		if back.ForcesFunction() != (choice == "read_file") {
			t.Errorf("tool choice %q: ForcesFunction() = %v", choice, back.ForcesFunction())
		}
	}
}

func TestContent(t *testing.T) {
	for body, want := range map[string]string{
		`{"role":"user","content":"a"}`:  "a",
		`{"role":"user","content":null}`: "",
		`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"},{"text":"b"}]}`: "ab",
	} {
		var m Message
		if err := json.Unmarshal([]byte(body), &m); err != nil || m.Content != want {
			t.Errorf("%s: content %q, %v; want %q", body, m.Content, err, want)
		}
	}
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"user","content":7}`), &m); err == nil {
		t.Error("a content that is a number was read")
	}
	var a Answer
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":null,"refusal":"no"}`), &a); err != nil || a.Content != nil || a.ToMessage().Content != "no" {
		t.Errorf("refusal: %+v, %v", a, err)
	}
}

func TestDecodeError(t *testing.T) {
	for body, want := range map[string]ErrorBody{
		`{"error":{"message":"Bad key","type":"invalid_request_error","code":"invalid_api_key"}}`: {Message: "Bad key", Type: "invalid_request_error", Code: "invalid_api_key"},
		`{"error":"model not found"}`: {Message: "model not found"},
		`{"object":"error","message":"too long","type":"BadRequestError","code":400}`: {Message: "too long", Type: "BadRequestError", Code: float64(400)},
	} {
		got, ok := DecodeError([]byte(body))
		if !ok || got != want {
			t.Errorf("%s: %+v, %v; want %+v", body, got, ok, want)
		}
	}
	for _, body := range []string{`<html>`, `{}`, `{"error":{}}`} {
		if got, ok := DecodeError([]byte(body)); ok {
			t.Errorf("%s read as %+v", body, got)
		}
	}
}

func TestStreamError(t *testing.T) {
	for data, want := range map[string]string{
		`{"error":{"message":"overloaded","type":"server_error"}}`: "overloaded",
		`{"error":"gone"}`: "gone",
		`{"object":"error","message":"out of memory"}`: "out of memory",
		`{"error":[1,2]}`: "[1,2]",
	} {
		c, err := DecodeChunk([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := c.StreamError(); !ok || e.Message != want {
			t.Errorf("%s: %+v, %v; want %q", data, e, ok, want)
		}
	}
	c, _ := DecodeChunk([]byte(`{"choices":[{"index":0,"delta":{"content":"a"}}],"error":null}`))
	if e, ok := c.StreamError(); ok {
		t.Errorf("an answer's chunk read as error %+v", e)
	}
}
