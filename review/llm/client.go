package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/llm/wire"
	"github.com/reviewdev/review/tools"
)

// Model is a chat-completion endpoint. The agent depends on this interface
// because a second implementation is real: other providers, and a scripted
// model in benchmarks.
type Model interface {
	Complete(ctx context.Context, req Request) (*Reply, error)
}

// Request is one chat-completion request.
type Request struct {
	Model    string
	Messages []conversation.Message
	Tools    []tools.Definition
	// ToolChoice is "auto" (the default when empty), "none", "required",
	// or the name of an offered tool to force that tool.
	ToolChoice string
	// Temperature is left to the server when nil; a 0 is sent as 0.
	// Reasoning models (o1, o3, o4, gpt-5) accept only their default, so
	// it is never sent to them.
	Temperature *float32
	// MaxTokens bounds the answer; 0 leaves it to the server. Reasoning
	// models receive it as max_completion_tokens.
	MaxTokens int
	// Reasoning holds the reasoning_content of assistant messages of the
	// current tool loop, by message ID: reasoning models (DeepSeek) require
	// it back within the loop and document dropping it from history, so
	// only the messages named here carry it.
	Reasoning map[string]string

	maxField string // the token-limit field the server accepts, if learned
	// stream asks for the answer as server-sent events, and streamUsage
	// for the usage event at their end (stream_options.include_usage).
	stream, streamUsage bool
}

// Usage is the token usage the server reported for one request.
type Usage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	// Cached is the part of Prompt served from the provider's prompt
	// cache (prompt_tokens_details.cached_tokens).
	Cached int `json:"cached"`
	Total  int `json:"total"`
	// Reasoning is the part of Completion spent on reasoning
	// (completion_tokens_details.reasoning_tokens).
	Reasoning int `json:"reasoning,omitempty"`
}

// Reply is the outcome of a request.
type Reply struct {
	// Message is the assistant message. Layer and Turn are the caller's.
	Message      conversation.Message
	FinishReason string
	Usage        Usage
	// Request is the HTTP request body exactly as sent (the same bytes on
	// every attempt); Response is the raw body of the last response, or
	// for a streamed answer the completion reassembled from it. Neither
	// holds the API key: should a server echo it, it is masked.
	Request  []byte
	Response []byte
	// Attempts counts the HTTP requests made, retries included.
	Attempts int
	// Reasoning is the reply's reasoning_content, if the server sent one.
	Reasoning string
	// ToolChoice is the tool choice actually sent: "auto" or "required"
	// when the server refused a forced function, so the caller knows the
	// tool is only asked for, not forced.
	ToolChoice string
	// Fallbacks are the refusals learned while making this request, each
	// for the rest of the run.
	Fallbacks []Fallback
	// Stream describes how a streamed answer arrived; nil when it came
	// whole. Response is then the completion reassembled from its events
	// (or, if they made none, the raw bytes received).
	Stream *StreamStats

	whole bool // a streamed request answered whole
}

// Defaults for a ClientConfig's zero fields.
const (
	DefaultBaseURL     = "https://api.openai.com/v1"
	DefaultTimeout     = 2 * time.Minute
	DefaultMaxAttempts = 4
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 30 * time.Second
)

// ClientConfig configures a Client. Zero fields take the defaults above.
type ClientConfig struct {
	// BaseURL is the API root including the version, as in
	// OPENAI_BASE_URL: "http://localhost:11434/v1" for Ollama.
	BaseURL string
	// BaseURLFrom names what set BaseURL, as the user wrote it
	// ("--base-url", "OPENAI_BASE_URL", "base_url in .review.yaml:3"); the
	// errors about the endpoint carry it, so that advice names the setting
	// to change. "" is the default endpoint.
	BaseURLFrom string
	// APIKey is sent as a bearer token; empty sends no Authorization
	// header (local servers). It never appears in replies, errors or
	// formatted output.
	APIKey string
	// Timeout bounds the wait for the response to start (its headers;
	// without streaming, that is the whole generation) and then again the
	// reading of its body, in each attempt. A streamed attempt must end
	// within it, from the request on.
	Timeout time.Duration
	// MaxAttempts bounds the attempts of one request; 1 disables retries.
	MaxAttempts int
	// BaseDelay and MaxDelay shape the backoff between attempts: a random
	// wait up to BaseDelay·2^(n-1), capped at MaxDelay.
	BaseDelay, MaxDelay time.Duration
	// OnRetry, if set, is called before waiting to retry, with the attempt
	// that failed, the wait, and why it failed.
	OnRetry func(attempt int, wait time.Duration, err error)
	// HTTPClient sends the requests; nil uses a client of its own.
	HTTPClient *http.Client
	// Headers are added to every request (a gateway's routing or
	// organisation headers). They are never recorded or shown; see
	// CredentialHeader for those shown as [redacted] in configuration.
	Headers map[string]string
	// ExtraBody fields are added to every request body, after ours; a
	// field the request already sets keeps our value.
	ExtraBody map[string]any
	// Stream asks for answers as server-sent events (with the usage at
	// their end), so that a silent server is noticed within
	// FirstByteTimeout and progress can be shown (WithReceiveHook). A
	// server that refuses streaming, or its usage option, is asked without
	// them for the rest of the run.
	Stream bool
	// Concurrency bounds the attempts in flight at once, shared by every
	// request made through the client (see limiter); 0 is 1.
	Concurrency int
	// FirstByteTimeout bounds, in a streamed attempt, the wait for the
	// first byte of the answer and any silence after it; 0 takes
	// DefaultFirstByteTimeout. It is never more than Timeout, which then
	// bounds the whole attempt.
	FirstByteTimeout time.Duration
}

// Format prints the configuration without the API key, so a config that
// ends up in a log or an error does not leak it.
func (c ClientConfig) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "{BaseURL:%s APIKey:%s Timeout:%s MaxAttempts:%d}",
		DisplayURL(c.BaseURL), keyState(c.APIKey), c.Timeout, c.MaxAttempts)
}

func keyState(key string) string {
	if key == "" {
		return "unset"
	}
	return "[redacted]"
}

// Client is a Model speaking the OpenAI chat-completions protocol, which
// OpenAI, Azure-compatible gateways, Ollama, vLLM, llama.cpp and others
// serve. It is safe for concurrent use.
type Client struct {
	cfg      ClientConfig
	http     *http.Client
	endpoint string // full URL of the chat-completions resource
	site     string // the base URL as shown in messages: no credentials, no query
	header   http.Header
	urlErr   error
	caps     caps
	lim      *limiter
}

// NewClient returns a client for cfg. A malformed base URL is reported by
// the first Complete.
func NewClient(cfg ClientConfig) *Client {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = DefaultBaseDelay
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = DefaultMaxDelay
	}
	if cfg.MaxDelay < cfg.BaseDelay {
		cfg.MaxDelay = cfg.BaseDelay
	}
	c := &Client{cfg: cfg, http: cfg.HTTPClient, lim: newLimiter(cfg.Concurrency)}
	if c.http == nil {
		c.http = &http.Client{}
	}
	c.endpoint, c.site, c.urlErr = endpointURL(cfg.BaseURL)
	c.http = keepCredentialsHome(cfg.HTTPClient, hostOf(c.endpoint))
	c.header = http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json"},
	}
	for k, v := range cfg.Headers {
		c.header.Set(k, v)
	}
	if cfg.APIKey != "" && c.header.Get("Authorization") == "" {
		c.header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	return c
}

// String describes the client without its credentials.
func (c *Client) String() string { return "model client for " + c.site }

// Complete sends req and returns the assistant's reply. When the request
// was sent but failed, the returned Reply still carries Request, the last
// Response and Attempts so the failed exchange can be recorded.
func (c *Client) Complete(ctx context.Context, req Request) (*Reply, error) {
	if c.urlErr != nil {
		return nil, c.urlErr
	}
	hook := SendHook(ctx)
	var fbs []Fallback
	for {
		sent := c.caps.adapt(req, c.cfg.Stream)
		r, err := c.complete(ctx, sent, hook)
		if err == nil && r.whole {
			// Asked for a stream, the server sent the answer whole: it
			// does not stream, and the next requests say so.
			fbs = append(fbs, c.caps.wholeAnswer())
		}
		if err != nil && r != nil && r.Response != nil {
			// A refused feature we can do without: learn it for the run
			// and send again without it. Each feature is learned at most
			// once per level, so this ends.
			if fb, ok := c.caps.learn(sent, req, err); ok {
				// The hook sees the new body too: the step records what
				// was finally sent.
				fbs = append(fbs, fb)
				continue
			}
		}
		if r != nil {
			r.Fallbacks = fbs
			r.ToolChoice = sent.ToolChoice
		}
		return r, err
	}
}

func (c *Client) complete(ctx context.Context, req Request, hook func([]byte)) (*Reply, error) {
	body, err := EncodeRequest(req)
	if err != nil {
		return nil, err
	}
	if body, err = withExtra(body, c.cfg.ExtraBody); err != nil {
		return nil, err
	}
	if hook != nil {
		hook(body)
	}
	var (
		ex       exchange
		attempts int
	)
	for answers := 1; ; answers++ {
		ex, err = c.send(ctx, body, req.stream, req.MaxTokens)
		attempts += ex.attempts
		if err == nil && ex.bad != nil {
			err = ex.bad
		}
		if err == nil {
			var r *Reply
			if r, err = DecodeReply(ex.status, ex.body); err == nil {
				err = c.checkSize(r, req.MaxTokens)
			}
			if err == nil {
				r.Request, r.Response, r.Attempts, r.Stream, r.whole = body, ex.body, attempts, ex.stream, ex.whole
				return r, nil
			}
		}
		var big *AnswerSizeError
		if !errors.As(err, &big) {
			break
		}
		// What the model sent is kept for the record only up to the
		// limit: the rest is what must not reach the store.
		ex.body = ex.body[:min(len(ex.body), big.Limit)]
		big.Answers, big.Attempts = answers, attempts
		if answers >= maxAnswers || ctx.Err() != nil {
			break
		}
		// A model caught repeating itself may not be the next time.
		if c.cfg.OnRetry != nil {
			c.cfg.OnRetry(attempts, 0, err)
		}
	}
	var ae *APIError
	if errors.As(err, &ae) {
		ae.NoKey = c.cfg.APIKey == ""
		ae.URLSetting = c.cfg.BaseURLFrom
	}
	return &Reply{Request: body, Response: ex.body, Attempts: attempts, Stream: ex.stream}, err
}

type sendHookKey struct{}

// WithSendHook returns a context under which Complete calls hook with the
// request body just before it is first sent (once, however many attempts
// follow), so a caller can record what went out even if the process dies
// before the reply arrives. hook must not modify or keep the slice beyond
// copying it.
func WithSendHook(ctx context.Context, hook func(body []byte)) context.Context {
	return context.WithValue(ctx, sendHookKey{}, hook)
}

// endpointURL derives the chat-completions URL and the base URL's display
// form from a base URL. A base that already names the resource is kept, as
// people paste either.
func endpointURL(base string) (endpoint, site string, err error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		// url.Error repeats the whole URL, which may hold credentials.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", "", &URLError{Reason: err.Error()}
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", &URLError{URL: DisplayURL(base)}
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	site = DisplayURL(u.String())
	if !strings.HasSuffix(u.Path, "/chat/completions") {
		u.Path += "/chat/completions"
	}
	return u.String(), site, nil
}

// URLError is a base URL that names no HTTP endpoint.
type URLError struct {
	URL    string // as DisplayURL shows it; empty if it does not parse
	Reason string // why it does not parse
}

func (e *URLError) Error() string {
	if e.URL == "" {
		return "invalid model endpoint URL: " + e.Reason
	}
	return fmt.Sprintf("invalid model endpoint URL %q", e.URL)
}

// ErrNoModel is a request that names no model.
var ErrNoModel = errors.New("no model named")

// Local reports whether a base URL names a server that plausibly needs no
// API key: this machine, a private or link-local address, or a name that
// is not a public host (a single label such as a container's name, or a
// .local, .internal, .lan or .home.arpa name).
func Local(baseURL string) bool {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified()
	}
	if host == "localhost" || !strings.Contains(host, ".") {
		return true
	}
	for _, suffix := range []string{".localhost", ".local", ".internal", ".lan", ".home.arpa"} {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}

// DisplayURL is raw without user info, query and fragment: the form of a
// URL that may be shown, logged or stored, since a gateway's credentials
// ("user:password@", "?api-key=", "&sig=") travel in those parts. Every
// message, table and record that names an endpoint shows it this way. A
// URL written without its scheme ("localhost:11434/v1",
// "user:pw@host/v1") keeps what follows its last "@".
func DisplayURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "(unparsable URL)"
	}
	shown := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	if u.Opaque != "" {
		shown.Opaque = afterAt(u.Opaque)
	}
	if u.Host == "" {
		shown.Path = afterAt(u.Path)
	}
	return shown.String()
}

// afterAt is s after its last "@": what precedes it may be user info.
func afterAt(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// ErrContextLength is matched (errors.Is) by an APIError saying the request
// does not fit the model's context window, so the caller can prune harder
// and try again.
var ErrContextLength = errors.New("request exceeds the model's context window")

// ErrBadResponse is matched (errors.Is) when a successful HTTP response is
// not a usable chat completion.
var ErrBadResponse = errors.New("model endpoint sent a response that is not a chat completion")

// APIError is an error response from the model endpoint.
type APIError struct {
	Status  int    // HTTP status
	Type    string // provider's error type, e.g. "invalid_request_error"
	Code    string // provider's error code, e.g. "context_length_exceeded"
	Message string // provider's message, on one line
	// Attempts is the number of attempts made; above 1 when the error
	// outlived the retries.
	Attempts int
	// NoKey is set when the request carried no API key, so that a 401
	// asks for one rather than calling it wrong.
	NoKey bool
	// URLSetting names the setting that chose the endpoint, as
	// ClientConfig.BaseURLFrom, for advice on a 404; empty for the
	// default endpoint.
	URLSetting string
}

// Error is a one-line message saying what failed, and what to do when
// that does not depend on how the endpoint was chosen.
func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	switch {
	case e.Status == http.StatusUnauthorized && e.NoKey:
		return "model endpoint requires an API key (HTTP 401) and none was sent: set OPENAI_API_KEY"
	case e.Status == http.StatusUnauthorized:
		return "model endpoint rejected the API key (HTTP 401): check OPENAI_API_KEY"
	case e.Status == http.StatusForbidden:
		return fmt.Sprintf("model endpoint refused the request (HTTP 403): %s: check that the API key may use this model", msg)
	case e.Status == http.StatusNotFound:
		return fmt.Sprintf("model endpoint answered HTTP 404 (%s)", msg)
	case e.contextLength():
		return fmt.Sprintf("%s (HTTP %d): %s", ErrContextLength, e.Status, msg)
	case e.quota():
		return fmt.Sprintf("model endpoint reports the quota is used up (HTTP %d): %s: check the account's plan and billing", e.Status, msg)
	case e.Attempts > 1:
		return fmt.Sprintf("model endpoint failed %d attempts, the last with HTTP %d: %s", e.Attempts, e.Status, msg)
	case e.Status == http.StatusBadRequest:
		return "model endpoint rejected the request (HTTP 400): " + msg
	default:
		return fmt.Sprintf("model endpoint answered HTTP %d: %s", e.Status, msg)
	}
}

// Is makes errors.Is(err, ErrContextLength) true for context-length errors.
func (e *APIError) Is(target error) bool {
	return target == ErrContextLength && e.contextLength()
}

// contextPhrases are lowercase fragments of the messages OpenAI, vLLM,
// llama.cpp, Ollama and Anthropic-style gateways use when the prompt does
// not fit.
var contextPhrases = []string{
	"context_length_exceeded",
	"maximum context length",
	"context length exceeded",
	"exceeds the context window",
	"exceeds the available context size",
	"maximum model length",
	"too many tokens",
	"prompt is too long",
	"prompt too long",
}

func (e *APIError) contextLength() bool {
	if e.Status == http.StatusRequestEntityTooLarge ||
		e.Code == "context_length_exceeded" || e.Type == "exceed_context_size_error" {
		return true
	}
	msg := strings.ToLower(e.Message)
	for _, p := range contextPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// quota reports OpenAI's "insufficient_quota", a 429 that waiting does not
// cure.
func (e *APIError) quota() bool {
	return e.Code == "insufficient_quota" || e.Type == "insufficient_quota"
}

// retryable reports whether another attempt may succeed.
func (e *APIError) retryable() bool {
	switch e.Status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return !e.contextLength() && !e.quota()
	}
	return false
}

// decodeAPIError reads an error body. ok reports whether the body held a
// recognisable error object; if not, the message is the body's text.
func decodeAPIError(status int, body []byte) (e *APIError, ok bool) {
	e = &APIError{Status: status}
	if w, ok := wire.DecodeError(body); ok {
		e.Type, e.Code, e.Message = w.Type, codeString(w.Code), squash(w.Message)
		return e, true
	}
	if utf8.Valid(body) {
		e.Message = squash(string(body))
	}
	return e, false
}

func codeString(code any) string {
	switch c := code.(type) {
	case nil:
		return ""
	case string:
		return c
	case int:
		return strconv.Itoa(c)
	case float64:
		return strconv.FormatFloat(c, 'f', -1, 64)
	default:
		b, _ := json.Marshal(c)
		return string(b)
	}
}

// maxMessage bounds a provider message quoted in an error, in runes.
const maxMessage = 300

// squash collapses s onto one line and shortens it, so a provider's
// message (or an HTML error page) fits a one-line error.
func squash(s string) string { return text.OneLine(s, maxMessage) }

// SendHook returns the hook set by WithSendHook, or nil. A Model that does
// not use Client calls it as Client does, so what it sends is recorded too.
func SendHook(ctx context.Context) func(body []byte) {
	hook, _ := ctx.Value(sendHookKey{}).(func([]byte))
	return hook
}
