// Package backoff is the one retry schedule of review's HTTP clients (the
// model, GitHub and GitLab): a policy of attempts, capped exponential
// waits with full jitter, the server's own Retry-After hint, and a wait
// the caller's context ends at once.
package backoff
