package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/text"
)

// Parameter types, as JSON Schema names them.
const (
	typeString  = "string"
	typeInteger = "integer"
	typeArray   = "array"
	typeBoolean = "boolean"
)

// Param is one argument of a tool. The schema the model reads (its limits
// and, in its description, its default), the checks applied to each call
// and the example shown when a call is wrong are all derived from it, so a
// limit or a default is declared once. Build one with String, Integer or
// Array and the methods below; each returns a changed copy.
type Param struct {
	name, typ, desc string
	required        bool
	notNull         bool
	enum            []string
	min, max        *int
	def             any
	example         any
	hasExample      bool
	items           json.RawMessage
}

// String is a string argument.
func String(name, desc string) Param { return Param{name: name, typ: typeString, desc: desc} }

// Integer is an integer argument. Models sometimes send integers as
// strings or as integral floats ("10", 10.0); calls accept both.
func Integer(name, desc string) Param { return Param{name: name, typ: typeInteger, desc: desc} }

// Boolean is a true/false argument. Calls also accept "true" and
// "false" as strings.
func Boolean(name, desc string) Param { return Param{name: name, typ: typeBoolean, desc: desc} }

// Array is an array argument whose elements follow the items schema. The
// tool checks the elements itself, wording its errors with Args.Errorf.
func Array(name, desc string, items json.RawMessage) Param {
	return Param{name: name, typ: typeArray, desc: desc, items: items}
}

// Required makes the model send the argument: the schema does not allow
// null, and a call without it is refused.
func (p Param) Required() Param { p.required, p.notNull = true, true; return p }

// NotNull makes the schema ask for a value, not null, while a call that
// leaves the argument out is still run, the tool taking its zero value.
// It is for a tool that tolerates slips of models that do not follow the
// schema.
func (p Param) NotNull() Param { p.notNull = true; return p }

// Enum limits a string argument to values.
func (p Param) Enum(values ...string) Param { p.enum = values; return p }

// Min is the smallest value of an integer argument; a call below it is
// refused.
func (p Param) Min(n int) Param { p.min = &n; return p }

// Max is the largest value of an integer argument; a call above it is run
// with Max, and the result says so (Args.Notes), since asking for too much
// is not worth a round trip.
func (p Param) Max(n int) Param { p.max = &n; return p }

// Default is the value of an optional argument the call leaves out or sends
// as null.
func (p Param) Default(v any) Param { p.def = v; return p }

// Example is the argument's value in the example of a valid call; nil
// shows null.
func (p Param) Example(v any) Param { p.example, p.hasExample = v, true; return p }

// maxInt bounds integer arguments without a Max to what a JSON number
// carries exactly.
const maxInt = 1 << 53

// description is the parameter's description with its default, worded
// the same for every tool. Limits are not repeated: the schema shows them
// as minimum and maximum, which a provider enforcing the schema applies
// while sampling and which others show the model as they are.
func (p Param) description() string {
	if p.def == nil {
		return p.desc
	}
	return p.desc + " Null for " + jsonValue(p.def) + "."
}

// normalize checks one non-null argument value against the parameter and
// returns it in the form the tool's argument struct decodes, with a note
// when it was lowered to the maximum.
func (p Param) normalize(v json.RawMessage) (json.RawMessage, string, error) {
	switch p.typ {
	case typeInteger:
		n, err := parseInt(v)
		if err != nil {
			return nil, "", err
		}
		if p.min != nil && n < int64(*p.min) {
			return nil, "", p.belowMin(n)
		}
		note := ""
		if p.max != nil && n > int64(*p.max) {
			note = fmt.Sprintf("%s %d lowered to the maximum, %d", p.name, n, *p.max)
			n = int64(*p.max)
		}
		return json.RawMessage(strconv.FormatInt(n, 10)), note, nil
	case typeBoolean:
		switch strings.TrimSpace(strings.Trim(string(v), `"`)) {
		case "true":
			return json.RawMessage("true"), "", nil
		case "false":
			return json.RawMessage("false"), "", nil
		}
		return nil, "", errors.New("must be true or false")
	case typeArray:
		var a []json.RawMessage
		if err := json.Unmarshal(v, &a); err != nil {
			return nil, "", errors.New("must be an array")
		}
		return v, "", nil
	default:
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, "", errors.New("must be a string")
		}
		if len(p.enum) > 0 && !slices.Contains(p.enum, s) {
			return nil, "", fmt.Errorf("must be one of %s, not %q", quoteList(p.enum), s)
		}
		return v, "", nil
	}
}

func (p Param) belowMin(n int64) error {
	if p.def != nil {
		return fmt.Errorf("must be at least %d (or null for %s), got %d", *p.min, jsonValue(p.def), n)
	}
	return fmt.Errorf("must be at least %d, got %d", *p.min, n)
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

// ArgError is a mistake in the arguments of a call. Every tool's argument
// mistakes are worded by its Error method, so that the model reads one
// style whichever tool it called: the tool, the argument, what is wrong,
// and a valid example.
type ArgError struct {
	Tool string
	// Arg names the argument: "path", or "findings[0].severity" inside an
	// array. Empty for the arguments as a whole.
	Arg string
	// Problem says what is wrong, as the rest of a sentence about the
	// argument: "must be at least 1, got 0".
	Problem string
	// Example is a valid arguments object.
	Example string
}

func (e *ArgError) Error() string {
	if e.Arg == "" {
		return fmt.Sprintf("%s arguments %s, e.g. %s", e.Tool, e.Problem, e.Example)
	}
	return fmt.Sprintf("%s argument %q %s (e.g. %s)", e.Tool, e.Arg, e.Problem, e.Example)
}

// propSchema is one property of a parameters schema; its field order is the
// order the model reads.
type propSchema struct {
	Type        any             `json:"type"`
	Enum        []any           `json:"enum,omitempty"`
	Minimum     *int            `json:"minimum,omitempty"`
	Maximum     *int            `json:"maximum,omitempty"`
	Items       json.RawMessage `json:"items,omitempty"`
	Description string          `json:"description,omitempty"`
}

// strictSchema renders the parameters object so that it follows OpenAI's
// strict mode: every property is listed in required, optional ones accept
// null, and no other properties are allowed. Callers that do not enforce
// the schema may omit optional arguments; check treats a missing one as
// null. Properties keep their declaration order, which is the order models
// tend to fill them in.
//
// Limits are shown as minimum and maximum, which strict mode supports.
// Defaults are said in the description only: strict mode refuses the
// default keyword, and a provider that enforces the schema would refuse
// every request.
func strictSchema(params []Param) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
		prop := propSchema{Type: p.typ, Description: p.description(), Minimum: p.min, Maximum: p.max, Items: p.items}
		if !p.notNull {
			prop.Type = []string{p.typ, "null"}
		}
		for _, e := range p.enum {
			prop.Enum = append(prop.Enum, e)
		}
		if len(p.enum) > 0 && !p.notNull {
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

// example renders a valid arguments object from the parameters' examples,
// in declaration order.
func example(params []Param) string {
	var kv []any
	for _, p := range params {
		if p.hasExample {
			kv = append(kv, p.name, p.example)
		}
	}
	return jsonArgs(kv...)
}

// jsonValue renders a value as JSON, strings without HTML escaping.
func jsonValue(v any) string {
	if v == nil {
		return "null"
	}
	switch v := v.(type) {
	case string:
		return text.QuoteJSON(v)
	case json.RawMessage:
		return string(v) // as written, spacing kept
	}
	b, err := text.JSON(v)
	if err != nil {
		panic(fmt.Sprintf("tools: encoding %v: %v", v, err))
	}
	return string(b)
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
