package text

import "testing"

func TestJSON(t *testing.T) {
	b, err := JSON(map[string]string{"code": "if a < b && c > d {}"})
	if err != nil || string(b) != `{"code":"if a < b && c > d {}"}` {
		t.Errorf("JSON = %s, %v", b, err)
	}
	if q := QuoteJSON("<x>\n\u2028"); q != `"<x>\n\u2028"` {
		t.Errorf("QuoteJSON = %s", q)
	}
	if _, err := JSON(func() {}); err == nil {
		t.Error("a func encoded")
	}
}
