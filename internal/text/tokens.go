package text

import (
	"unicode"
	"unicode/utf8"
)

// EstimateTokens is a script-aware estimate: ASCII text runs about four
// characters a token, while CJK and most other scripts run about one token a
// character.
func EstimateTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		// Most text is ASCII: eight bytes at a time while none has its
		// top bit set (the compiler makes the eight loads one).
		for i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if w&0x8080808080808080 != 0 {
				break
			}
			ascii += 8
			i += 8
		}
		if i == len(s) {
			break
		}
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r < utf8.RuneSelf:
			ascii++
		case unicode.IsSpace(r):
			ascii++
		default:
			other++
		}
	}
	return (ascii+3)/4 + other
}
