//go:build !unix

package toolmem

import (
	"crypto/sha256"
	"os"
)

// fileSum is the SHA-256 of the file at path.
func fileSum(path string) ([32]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(data), nil
}
