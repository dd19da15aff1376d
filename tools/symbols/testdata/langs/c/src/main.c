#include <stdio.h>
#include "buffer.h"

static char storage[BUFFER_MAX];

int main(void)
{
	struct buffer b = { storage, 0 };
	if (buffer_append(&b, "hello", 5) != 0) {
		puts("buffer_append failed");
		return 1;
	}
	buffer_reset(&b);
	return 0;
}
