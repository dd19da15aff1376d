#include <string.h>
#include "buffer.h"

/* buffer_append copies n bytes at the end of b. */
int buffer_append(struct buffer *b, const char *s, int n)
{
	if (b->len + n > BUFFER_MAX) {
		return -1;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	return 0;
}

void buffer_reset(struct buffer *b)
{
	b->len = 0;
}
