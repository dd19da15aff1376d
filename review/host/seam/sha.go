package seam

// FullSHA reports whether s is a whole commit SHA, as a host names a
// commit in its answers: 40 hexadecimal digits (SHA-1) or 64 (SHA-256).
// What a host answers is checked with it before any of it is copied into
// a request or handed to git: an answer is data from the network, and a
// "SHA" of a hundred thousand characters is not one.
func FullSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
