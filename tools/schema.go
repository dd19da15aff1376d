package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Parameter types, as JSON Schema names them.
const (
	typeString  = "string"
	typeInteger = "integer"
)

// param is one argument of a tool. The schema sent to the model and the
// checks applied to its calls are both derived from it.
type param struct {
	name     string
	typ      string
	desc     string
	required bool
	enum     []string
}

// maxInt bounds integer arguments to what a JSON number carries exactly;
// each tool then applies its own, tighter range with its own message.
const maxInt = 1 << 53

// normalize checks one non-null argument value against the parameter and
// returns it in the form the tool's argument struct decodes.
func (p param) normalize(v json.RawMessage) (json.RawMessage, error) {
	switch p.typ {
	case typeInteger:
		n, err := parseInt(v)
		if err != nil {
			return nil, err
		}
		return json.RawMessage(strconv.FormatInt(n, 10)), nil
	default:
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, errors.New("must be a string")
		}
		if len(p.enum) > 0 && !slices.Contains(p.enum, s) {
			return nil, fmt.Errorf("must be one of %s, not %q", quoteList(p.enum), s)
		}
		return v, nil
	}
}

// parseInt accepts a JSON integer, an integral float, or either in a string.
func parseInt(v json.RawMessage) (int64, error) {
	text := string(v)
	if strings.HasPrefix(text, `"`) {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return 0, errors.New("must be an integer")
		}
		text = strings.TrimSpace(s)
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		if n > maxInt || n < -maxInt {
			return 0, errors.New("is out of range")
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		var numErr *strconv.NumError
		if errors.As(err, &numErr) && errors.Is(numErr.Err, strconv.ErrRange) {
			return 0, errors.New("is out of range")
		}
		return 0, errors.New("must be an integer")
	}
	if f != math.Trunc(f) {
		return 0, errors.New("must be a whole number")
	}
	if f > maxInt || f < -maxInt {
		return 0, errors.New("is out of range")
	}
	return int64(f), nil
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// newTool builds a tool whose schema follows OpenAI's strict mode: every
// property is listed in required, optional ones accept null, and no other
// properties are allowed. Callers that do not enforce the schema may omit
// optional arguments; check treats a missing one as null.
func newTool(name, desc, example string, params []param, run func(context.Context, json.RawMessage) (Result, error)) *tool {
	return &tool{
		def: Definition{
			Name:        name,
			Description: desc,
			Parameters:  strictSchema(params),
			Strict:      true,
		},
		params:  params,
		example: example,
		run:     run,
	}
}

// propSchema is one property of a parameters schema; its field order is the
// order the model reads.
type propSchema struct {
	Type        any    `json:"type"`
	Enum        []any  `json:"enum,omitempty"`
	Description string `json:"description"`
}

// strictSchema renders the parameters object, keeping properties in
// declaration order, which is the order models tend to fill them in.
func strictSchema(params []param) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
		prop := propSchema{Type: p.typ, Description: p.desc}
		if !p.required {
			prop.Type = []string{p.typ, "null"}
		}
		for _, e := range p.enum {
			prop.Enum = append(prop.Enum, e)
		}
		if len(p.enum) > 0 && !p.required {
			prop.Enum = append(prop.Enum, nil)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		mustMarshal(&b, p.name)
		b.WriteByte(':')
		mustMarshal(&b, prop)
	}
	b.WriteString(`},"required":`)
	mustMarshal(&b, names)
	b.WriteString(`,"additionalProperties":false}`)
	return json.RawMessage(b.Bytes())
}

// mustMarshal encodes values that cannot fail to encode (strings, slices of
// strings, propSchema).
func mustMarshal(b *bytes.Buffer, v any) {
	enc, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("tools: encoding schema: %v", err))
	}
	b.Write(enc)
}
