//go:build !unix

package toolmem

import "errors"

func smallReviewChild(string) error { return errors.New("needs getrusage") }
